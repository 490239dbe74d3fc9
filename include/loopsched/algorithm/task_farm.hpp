// task_farm: master-worker scheduling of independent tasks created on the root
// while the farm runs (Kazouris, chapter 4), over any transport: tasks and
// results of any type, a cost model fitted on the replies, redistribution,
// and self-scheduling or any chunk policy as schemes to compare against.
// Over a Boost.MPI communicator: <loopsched/mpi/task_farm.hpp>.
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/outcome.hpp>
#include <loopsched/placement_spec.hpp>
#include <loopsched/runtime/tasks/farm_driver.hpp>
#include <loopsched/runtime/core/statistics.hpp>
#include <loopsched/task_farm_handle.hpp>
#include <loopsched/task_options.hpp>
#include <loopsched/transport/channel.hpp>

#include <concepts>
#include <cstdint>
#include <vector>

namespace loopsched {

/// A farm's outcome: on the root, every task's result by creation order in
/// `value` (unless a callback took them) and the ids of cancelled tasks; the
/// statistics on every rank.
template <class Result>
struct farm_outcome : outcome<std::vector<Result>> {
    std::vector<std::uint64_t> cancelled;
    std::size_t moved = 0; ///< on the root: tasks a busy worker passed to an idle one (redistribution)
};

/// Runs a task farm on every rank of `transport`. On the root,
/// `produce(farm)` creates tasks with farm.submit(task[, hints]), may wait for
/// their results with farm.wait_all() (a work cycle) and submit more; on the
/// workers, `body(task)` computes each task's result. Collective: every rank
/// calls it with the same options (checked, as for loops). Every task runs
/// exactly once; its result reaches the root once. A task or the producer
/// that throws makes every rank throw (remote_error for a task).
template <transferable Task, channel_source C, class Produce, class Body>
requires std::invocable<Body&, Task const&> &&
        std::invocable<Produce&, task_farm_handle<Task, farm_result_t<Body, Task>>&>
farm_outcome<farm_result_t<Body, Task>> task_farm(C& transport, Produce&& produce, Body&& body,
                                                  task_farm_options const& options = {}) {
    farm_outcome<farm_result_t<Body, Task>> out;
    detail::run_task_farm<Task>(transport, produce, body, options,
                                detail::resolve_choice(options.scheme, "options.scheme"), out);
    return out;
}

} // namespace loopsched
