// A worker's way out of a loop: its owner takes the machine back. The body, or a
// signal handler, calls leave(); the runtime returns the rank's unfinished work.
#pragma once

#include <atomic>

namespace loopsched {

/// Set on a rank, in parallel_for_options::leaving (with departures = true): once leave() is called
/// (from the body, another thread, or a signal handler: it only stores a lock-free
/// flag), the rank finishes the step it is in (about a millisecond of work),
/// returns the rest of its chunk to the master and takes no more work; it
/// still ends the loop with the others, so the communicator stays consistent.
/// The loop's results are those of a run without the departure. The root's
/// own worker may leave too; the root keeps serving.
class departure {
public:
    /// Asks this rank to leave at its next step; safe in a signal handler.
    void leave() noexcept { asked_.store(true, std::memory_order_relaxed); }
    /// Whether leave() was called (since the last reset()).
    [[nodiscard]] bool asked() const noexcept { return asked_.load(std::memory_order_relaxed); }
    /// For the next loop: this rank works again.
    void reset() noexcept { asked_.store(false, std::memory_order_relaxed); }

private:
    std::atomic<bool> asked_{false};
    static_assert(std::atomic<bool>::is_always_lock_free, "leave() must be callable from a signal handler");
};

} // namespace loopsched
