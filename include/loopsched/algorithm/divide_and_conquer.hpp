// divide_and_conquer: dynamic scheduling of recursive computations of any
// degree on workers of different speeds (Kazouris, chapter 3), over any
// transport, with the placement (where tasks go) chosen by name: Kazouris's
// scheme, APRIL's static binomial tree, random work stealing, or Karamcheti and Wah's
// D_LPT by cost estimates with its baselines.
// Over a Boost.MPI communicator: <loopsched/mpi/divide_and_conquer.hpp>.
#pragma once

#include <loopsched/divide_and_conquer_ops.hpp>
#include <loopsched/outcome.hpp>
#include <loopsched/placement_spec.hpp>
#include <loopsched/statistics.hpp>
#include <loopsched/runtime/tasks/compiled.hpp>
#include <loopsched/runtime/tasks/dnc_driver.hpp>
#include <loopsched/task_options.hpp>
#include <loopsched/transport/channel.hpp>

#include <concepts>
#include <ranges>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace loopsched {

/// Solves `problem` by dividing it, on every rank of `transport`: collective,
/// every rank calls it with the same options (checked, as for loops). The
/// root's problem is the one solved; the result is on the root, identical to
/// sequential_divide_and_conquer's. A throwing is_leaf, solve, divide or
/// combine makes every rank throw (remote_error).
template <class Problem, channel_source C, class Ops>
requires DivideAndConquer<std::remove_reference_t<Ops>, Problem> dnc_outcome<dnc_result_t<Ops, Problem>>
divide_and_conquer(C& transport, Problem const& problem, Ops&& ops, dnc_options const& options = {}) {
    using Result = dnc_result_t<Ops, Problem>;
    auto& ch = detail::channel_of(transport);
    using T = std::remove_cvref_t<decltype(ch.transport())>;
    auto const calls = detail::dnc_calls_for<Problem, Result>(problem, ops);
    detail::resolved_choice const placement = detail::resolve_choice(options.placement, "options.placement");
    dnc_outcome<Result> out;
    if constexpr (detail::engines_compiled_for<T>) {
        detail::erased_channel<T> erased(ch);
        detail::take_dnc_run<Result>(detail::run_erased_dnc(erased.get(), calls, options, placement),
                                     ch.rank() == options.root, out);
    } else {
        detail::loop_link<T> link(ch);
        detail::take_dnc_run<Result>(detail::run_dnc_engine(link, calls, options, placement),
                                     ch.rank() == options.root, out);
    }
    return out;
}

} // namespace loopsched
