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
#include <type_traits>
#include <vector>

namespace loopsched {

namespace detail {
/// The farm engine a compiled library holds for transport T
/// (engines_compiled_for): the body, the producer and the delivery erased;
/// defined and instantiated there.
template <Transport T>
farm_run run_compiled_farm(channel<T>& ch, farm_calls const& calls, result_sink to_root, task_farm_options const& o,
                           resolved_choice const& scheme);
} // namespace detail

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
    auto& ch = detail::channel_of(transport);
    detail::resolved_choice const scheme = detail::resolve_choice(options.scheme, "options.scheme");
    detail::run_task_farm<Task>(
            produce, body,
            [&](detail::farm_calls const& calls, auto& handle) {
                using handle_type = std::remove_cvref_t<decltype(handle)>;
                using T = std::remove_cvref_t<decltype(ch.transport())>;
                if constexpr (detail::engines_compiled_for<T>)
                    return detail::run_compiled_farm(ch, calls, detail::result_sink::to(handle), options, scheme);
                else
                    return detail::run_farm_engine(ch, calls, detail::deliver_to<handle_type>{&handle}, options,
                                                   scheme);
            },
            out);
    return out;
}

} // namespace loopsched
