// How much stack a thread has left below a point, so that a recursion the
// engines run for the user (divide and conquer) can stop with an error
// naming its depth before it overflows (Linux threads, MPI's main thread).
#pragma once

#include <pthread.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace loopsched::detail {

/// Where the calling frame is on the stack (which grows down here): the frame
/// address, not a local's, which AddressSanitizer may move to the heap.
[[nodiscard]] inline std::uintptr_t stack_position() noexcept {
    return reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
}

/// Bytes of the calling thread's stack below its current frame; 0 if unknown
/// (or if the frame is not on the thread's own stack: a simulator's actor).
[[nodiscard]] inline std::size_t thread_stack_left() noexcept {
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return 0;
    void* low = nullptr;
    std::size_t size = 0;
    int const got = pthread_attr_getstack(&attr, &low, &size);
    pthread_attr_destroy(&attr);
    if (got != 0) return 0;
    auto const bottom = reinterpret_cast<std::uintptr_t>(low), at = stack_position();
    return at > bottom && at - bottom <= size ? at - bottom : 0;
}

/// A recursion's stack budget from where it starts: the stack left there
/// (`left`: the thread's, or the simulator's actor stack) less a reserve for
/// the frames the recursion's leaves call (the user's operations, messages).
class stack_budget {
public:
    explicit stack_budget(std::size_t left) noexcept
            : top_(stack_position()), usable_(left - std::min(left, reserve(left))) {}
    /// Whether the stack at the caller's frame has gone past the budget (never, if it is unknown).
    [[nodiscard]] bool exceeded() const noexcept {
        std::uintptr_t const at = stack_position();
        return usable_ > 0 && at < top_ && top_ - at > usable_;
    }
    [[nodiscard]] std::size_t usable() const noexcept { return usable_; }

private:
    static std::size_t reserve(std::size_t left) noexcept {
        return std::clamp<std::size_t>(left / 8, 64 * 1024, 512 * 1024);
    }
    std::uintptr_t top_;
    std::size_t usable_;
};

} // namespace loopsched::detail
