// A Transport decorator for tests: a rank that dies, and the notice the
// others get, as an MPI library with ULFM gives them (transport.hpp's
// failed_tag), so that the core's handling of a failed rank runs in-process
// (and under ThreadSanitizer).
#pragma once

#include <loopsched/transport/transport.hpp>

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>
#include <utility>

namespace loopsched::testing {

/// The rank that died (-1: none yet), shared by every rank's decorator.
struct deaths {
    std::atomic<int> dead{-1};
};

/// Thrown on the dying rank to unwind its thread: not a std::exception, and
/// thrown again by every send or receive it tries on the way out.
struct rank_died {};

template <Transport T>
class failing_transport {
public:
    failing_transport(T inner, deaths& d) : inner_(std::move(inner)), deaths_(&d) {}

    [[nodiscard]] int rank() const { return inner_.rank(); }
    [[nodiscard]] int size() const { return inner_.size(); }
    [[nodiscard]] double now() const { return inner_.now(); }

    /// This rank dies now (from its body).
    [[noreturn]] void die() {
        deaths_->dead.store(rank());
        throw rank_died{};
    }

    /// To a dead rank: dropped.
    void send(int dest, int tag, bytes data) {
        if (is_dead()) throw rank_died{};
        if (dest != deaths_->dead.load()) inner_.send(dest, tag, std::move(data));
    }
    message receive(int source, int tag) {
        while (true) {
            if (auto m = try_receive(source, tag)) return std::move(*m);
            std::this_thread::sleep_for(std::chrono::microseconds(20));
        }
    }
    /// The notice first, once, when a rank has died.
    std::optional<message> try_receive(int source, int tag) {
        if (is_dead()) throw rank_died{};
        if (int const d = deaths_->dead.load(); d >= 0 && !told_) {
            told_ = true;
            return message{d, failed_tag, {}};
        }
        return inner_.try_receive(source, tag);
    }

private:
    [[nodiscard]] bool is_dead() const { return deaths_->dead.load() == rank(); }

    T inner_;
    deaths* deaths_;
    bool told_ = false;
};

} // namespace loopsched::testing
