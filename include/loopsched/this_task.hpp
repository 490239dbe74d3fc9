// this_task: what a running task may tell its scheduler from inside its body,
// as std::this_thread does for a thread: a revised estimate of its remaining
// time (Karamcheti and Wah's update_estimate), and a look at messages from a long task.
#pragma once

#include <loopsched/error.hpp>

#include <cmath>

namespace loopsched {
namespace detail {

/// The scheduler listening on this thread, while a task of it runs here.
class task_listener {
public:
    /// A revised estimate of the running task's remaining work; whether it was taken.
    virtual bool revise(double remaining) = 0;
    /// A look at the scheduler's messages from inside a long task.
    virtual void poll() = 0;

protected:
    ~task_listener() = default;
};
inline thread_local task_listener* current_task_listener = nullptr;

/// Installs a listener for the scope of a task's run (nested runs restore the outer one).
class listening {
public:
    explicit listening(task_listener* l) noexcept : outer_(current_task_listener) { current_task_listener = l; }
    ~listening() { current_task_listener = outer_; }
    listening(listening const&) = delete;
    listening& operator=(listening const&) = delete;

private:
    task_listener* outer_;
};

} // namespace detail

namespace this_task {

/// The running task expects `remaining` more units of work (the cost
/// measure's units, as the operations' cost() gives them). Returns whether a
/// scheduler took it (one that places by estimates: placement "dlpt" and its
/// baselines); elsewhere the call does nothing.
inline bool estimate(double remaining) {
    detail::require(std::isfinite(remaining) && remaining >= 0.0, "this_task::estimate(remaining)", remaining,
                    "must be >= 0");
    return detail::current_task_listener != nullptr && detail::current_task_listener->revise(remaining);
}

/// Lets the scheduler answer the other ranks from inside a long task: a
/// request for work, a result for a waiting task. Call it every so often in a
/// task that runs for long (a row of pixels, an outer iteration); it looks at
/// messages at most once per poll interval, so calling it often costs a clock
/// reading. Without it, a worker answers only between its tasks, and an idle
/// worker waits for the running task to end (Kazouris's run-time polls on an
/// alarm for the same reason). Outside a task of a scheduler that listens, it
/// does nothing.
inline void poll() {
    if (detail::current_task_listener != nullptr) detail::current_task_listener->poll();
}

} // namespace this_task
} // namespace loopsched
