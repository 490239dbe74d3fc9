// A Transport decorator for tests: counts the messages another transport sends,
// by the runtime's message kind, so that tests can assert what a loop sent.
#pragma once

#include <loopsched/runtime/core/link.hpp>
#include <loopsched/transport/transport.hpp>

#include <array>
#include <atomic>
#include <optional>
#include <utility>

namespace loopsched::testing {

/// Messages sent, by kind; shared by every rank's decorator (thread-safe).
struct message_counts {
    std::array<std::atomic<long>, 1 << detail::kind_bits> sent{};
    [[nodiscard]] long of(detail::kind k) const { return sent[static_cast<std::size_t>(k)].load(); }
};

template <Transport T>
class counting_transport {
public:
    counting_transport(T inner, message_counts& counts) : inner_(std::move(inner)), counts_(&counts) {}

    [[nodiscard]] int rank() const { return inner_.rank(); }
    [[nodiscard]] int size() const { return inner_.size(); }
    void send(int dest, int tag, bytes data) {
        counts_->sent[static_cast<std::size_t>(detail::kind_of(tag))]++;
        inner_.send(dest, tag, std::move(data));
    }
    message receive(int source, int tag) { return inner_.receive(source, tag); }
    std::optional<message> try_receive(int source, int tag) { return inner_.try_receive(source, tag); }
    [[nodiscard]] double now() const { return inner_.now(); }

private:
    T inner_;
    message_counts* counts_;
};

} // namespace loopsched::testing
