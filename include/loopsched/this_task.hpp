// this_task: what a running task may tell its scheduler from inside its body,
// as std::this_thread does for a thread: a revised estimate of its remaining
// time (Karamcheti and Wah's update_estimate).
#pragma once

#include <loopsched/error.hpp>

#include <cmath>

namespace loopsched {
namespace detail {

/// The scheduler listening on this thread, while a task of it runs here.
class estimate_listener {
public:
    virtual void revise(double remaining) = 0;

protected:
    ~estimate_listener() = default;
};
inline thread_local estimate_listener* current_estimate_listener = nullptr;

/// Installs a listener for the scope of a task's run (nested runs restore the outer one).
class listening {
public:
    explicit listening(estimate_listener* l) noexcept : outer_(current_estimate_listener) {
        current_estimate_listener = l;
    }
    ~listening() { current_estimate_listener = outer_; }
    listening(listening const&) = delete;
    listening& operator=(listening const&) = delete;

private:
    estimate_listener* outer_;
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
    if (detail::current_estimate_listener == nullptr) return false;
    detail::current_estimate_listener->revise(remaining);
    return true;
}

} // namespace this_task
} // namespace loopsched
