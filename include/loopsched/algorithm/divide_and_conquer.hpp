// divide_and_conquer: dynamic scheduling of recursive computations of any
// degree on workers of different speeds (Kazouris, chapter 3), over any
// transport, with the placement (where tasks go) chosen by name: Kazouris's
// scheme, APRIL's static binomial tree, random work stealing, or Karamcheti and Wah's
// D_LPT by cost estimates with its baselines.
// Over a Boost.MPI communicator: <loopsched/mpi/divide_and_conquer.hpp>.
#pragma once

#include <loopsched/divide_and_conquer_ops.hpp>
#include <loopsched/placement_spec.hpp>
#include <loopsched/runtime/core/statistics.hpp>
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
    dnc_outcome<dnc_result_t<Ops, Problem>> out;
    detail::run_divide_and_conquer<Problem, dnc_result_t<Ops, Problem>>(
            transport, problem, ops, options, detail::resolve_choice(options.placement, "options.placement"), out);
    return out;
}

} // namespace loopsched
