// The root's own worker and its master, which share a rank: their messages
// pass by a call and a queue instead of the transport.
#pragma once

#include <loopsched/runtime/core/link.hpp>
#include <loopsched/runtime/core/messages.hpp>

#include <cstddef>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace loopsched::detail {

/// Between the master and the worker that share the root's rank: the worker's
/// messages reach the master at once, by a call (its bytes lent for the call);
/// the master's wait in a queue for the worker's next turn, so the master
/// never calls back into a worker that is in the middle of a step.
struct loopback {
    void (*deliver)(void* master, message_view) = nullptr;
    void* master = nullptr;
    // A vector drained from the front, not a deque: libstdc++'s deque
    // allocates when made, and the root makes this every loop.
    std::vector<message> to_worker;
    std::size_t next = 0;

    void to_master(int from, kind what, std::span<std::byte const> data) const {
        deliver(master, message_view(from, static_cast<int>(what), data));
    }
    void post_to_worker(int from, kind what, std::span<std::byte const> data) {
        to_worker.push_back(message{from, static_cast<int>(what), copy_bytes(data)});
    }
    std::optional<message> take_for_worker() {
        if (next == to_worker.size()) return std::nullopt;
        message m = std::move(to_worker[next++]);
        if (next == to_worker.size()) { // drained: start again at the front
            to_worker.clear();
            next = 0;
        }
        return m;
    }
};

} // namespace loopsched::detail
