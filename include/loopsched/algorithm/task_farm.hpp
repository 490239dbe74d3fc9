// task_farm: master-worker scheduling of independent tasks created on the root
// while the farm runs (Kazouris, chapter 4), over any transport: tasks and
// results of any type, a cost model fitted on the replies, redistribution,
// and self-scheduling or any chunk policy as schemes to compare against.
// Over a Boost.MPI communicator: <loopsched/mpi/task_farm.hpp>.
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/outcome.hpp>
#include <loopsched/placement_spec.hpp>
#include <loopsched/runtime/tasks/compiled.hpp>
#include <loopsched/runtime/tasks/farm_driver.hpp>
#include <loopsched/statistics.hpp>
#include <loopsched/task_farm_handle.hpp>
#include <loopsched/task_options.hpp>
#include <loopsched/transport/channel.hpp>

#include <concepts>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace loopsched {

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
    auto& ch = detail::channel_of(transport);
    using T = std::remove_cvref_t<decltype(ch.transport())>;
    detail::farm_seams<Task, std::remove_reference_t<Produce>, std::remove_reference_t<Body>> seams(produce, body);
    detail::resolved_choice const placement = std::apply(detail::resolve_choice, detail::chosen_placement(options));
    if constexpr (detail::engines_compiled_for<T>) {
        detail::erased_channel<T> erased(ch);
        return seams.outcome(detail::run_erased_farm(erased.get(), seams.calls(), seams.sink(), options, placement));
    } else {
        return seams.outcome(detail::run_farm_engine(ch, seams.calls(), seams.delivery(), options, placement));
    }
}

} // namespace loopsched
