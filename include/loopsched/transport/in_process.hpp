// An in-process transport: ranks are threads of one process exchanging messages
// through mailboxes. Used to test the runtime's protocol without mpiexec.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/transport/clock.hpp>
#include <loopsched/transport/transport.hpp>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace loopsched::in_process {

/// The mailboxes shared by all ranks of one in-process run.
class network {
public:
    explicit network(int ranks) : boxes_(static_cast<std::size_t>(ranks)) {}

    void post(int dest, message m) {
        auto& box = boxes_.at(static_cast<std::size_t>(dest));
        {
            std::lock_guard lock(box.mutex);
            box.queue.push_back(std::move(m));
        }
        box.ready.notify_all();
    }

    std::optional<message> take(int self, int source, int tag, bool wait) {
        auto& box = boxes_.at(static_cast<std::size_t>(self));
        std::unique_lock lock(box.mutex);
        while (true) {
            if (auto m = detail::take_matching(box.queue, source, tag)) return m;
            if (!wait) return std::nullopt;
            box.ready.wait(lock);
        }
    }

    [[nodiscard]] int size() const noexcept { return static_cast<int>(boxes_.size()); }

private:
    struct mailbox {
        std::mutex mutex;
        std::condition_variable ready;
        std::deque<message> queue;
    };
    std::vector<mailbox> boxes_;
};

/// One rank's view of the network; models Transport.
class endpoint {
public:
    endpoint(network& net, int rank) : net_(&net), rank_(rank) {}

    [[nodiscard]] int rank() const noexcept { return rank_; }
    [[nodiscard]] int size() const noexcept { return net_->size(); }
    void send(int dest, int tag, bytes data) {
        detail::require(dest >= 0 && dest < size(), "destination rank", dest, "must be a rank of the network");
        net_->post(dest, message{rank_, tag, std::move(data)});
    }
    message receive(int source, int tag) { return *net_->take(rank_, source, tag, true); }
    std::optional<message> try_receive(int source, int tag) { return net_->take(rank_, source, tag, false); }
    [[nodiscard]] double now() const noexcept { return detail::fast_clock::now(); }

private:
    network* net_;
    int rank_;
};

/// Runs `program(endpoint&)` on `ranks` threads and joins them. If any rank
/// throws, the first exception (by rank) is rethrown after all have finished.
inline void run(int ranks, std::function<void(endpoint&)> const& program) {
    detail::require(ranks >= 1, "in_process ranks", ranks, "must be >= 1");
    network net(ranks);
    std::vector<std::exception_ptr> failures(static_cast<std::size_t>(ranks));
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; ++r)
        threads.emplace_back([&, r] {
            endpoint self(net, r);
            try {
                program(self);
            } catch (...) {
                failures[static_cast<std::size_t>(r)] = std::current_exception();
            }
        });
    for (auto& t : threads) t.join();
    for (auto& f : failures)
        if (f) std::rethrow_exception(f);
}

} // namespace loopsched::in_process
