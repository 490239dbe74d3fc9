// What divide and conquer's manager and workers say to each other (the
// messages' fixed parts) and the cost measure their tasks carry; no engine.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace loopsched {

/// Which measure orders tasks by cost (Kazouris, 3.4.2): chosen once, at the
/// first division, and carried by every task.
enum class cost_measure : std::uint8_t {
    unknown = 0,
    user,  ///< the operations' cost(problem)
    size,  ///< the problem's size in bytes (its first division changed it)
    depth, ///< the depth in the tree: shallower costs more
};

namespace detail {

/// Where a task's result goes: a frame on a worker, or the manager (rank -1).
struct result_address {
    std::int32_t rank = -1;
    std::uint32_t index = 0;
    std::uint64_t frame = 0;
};

/// One task on the wire; `list` workers follow, then the problem's byte count
/// (std::uint64_t) and its bytes.
struct dnc_task_header {
    result_address parent;
    double cost = 0.0;
    std::uint32_t depth = 0;
    std::uint8_t measure = 0;
    std::uint8_t pad[3]{};
    std::uint64_t list = 0;
};

/// Where tasks on the wire come from (the first byte of a work message).
enum class task_origin : std::uint8_t {
    list,     ///< the start, or a division sending along a worker list
    steal,    ///< a victim's answer to a steal (maybe none)
    transfer, ///< a donor's answer to the manager's transfer
    named     ///< a task the manager named (placing by estimates)
};

/// What the manager asks a busy worker: send a task to that idle one.
struct dnc_transfer {
    std::uint64_t to_index = 0;
    std::int64_t to_rank = 0;
    std::uint64_t task = 0; ///< the queued task's order + 1 (placing by estimates); 0: the placement chooses
    /// The donor's load to give, as a share of it (seed 000's (4.6)); 0: the placement's one choice.
    double share = 0.0;
};

/// A worker's info to the manager: its queue's summed cost (kazouris), the
/// list workers it did not use, or (placing by estimates) its whole queue.
inline constexpr std::uint8_t info_load = 0, info_unused_workers = 1, info_queue = 2;

/// What a worker reports of itself when the manager places by estimates.
struct dnc_queue_report {
    double running = -1.0;    ///< its running task's estimate in cost units (< 0: none)
    double running_for = 0.0; ///< seconds since that estimate was set
    double own_units = 0.0;   ///< the estimated own work (a node's cost less its subproblems') it ran
    double own_seconds = 0.0; ///< the seconds that work took, times its speed
    double unlisted = 0.0;    ///< the summed cost of the queued tasks not listed
    std::uint64_t unlisted_count = 0;
    std::uint64_t tasks = 0;  ///< queued tasks listed after this
    std::uint8_t revised = 0; ///< the running task revised its estimate (rule 3: its queue is placed again)
    std::uint8_t pad[7]{};
};
/// The queued tasks a report lists besides the new ones: the cheapest (an
/// idle worker pulls the lowest-priority task); the others go as a sum.
inline constexpr std::size_t listed_old_tasks = 8;
struct dnc_reported_task {
    std::uint64_t order = 0;
    double cost = 0.0;      ///< in cost units (the queue's weight)
    double bytes = 0.0;     ///< its size, where known cheaply (else 0)
    std::uint8_t fresh = 0; ///< created here by a division and not reported before
    std::uint8_t pad[7]{};
};

/// The settings every rank agrees on.
struct dnc_settings {
    double info_period = 1e-3;
};

/// The weight a task adds to its queue's sum.
inline double queue_weight(double cost, cost_measure m) noexcept {
    return m == cost_measure::depth ? std::exp2(cost) : cost;
}

} // namespace detail
} // namespace loopsched
