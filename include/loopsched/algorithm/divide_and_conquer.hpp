// divide_and_conquer: dynamic scheduling of recursive computations of any
// degree on workers of different speeds (Kazouris, chapter 3), over any
// transport, with the placement (where tasks go) chosen by name: Kazouris's
// scheme, APRIL's static binomial tree, random work stealing, or Karamcheti and Wah's
// D_LPT by cost estimates with its baselines.
// Over a Boost.MPI communicator: <loopsched/mpi/divide_and_conquer.hpp>.
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/outcome.hpp>
#include <loopsched/placement_spec.hpp>
#include <loopsched/runtime/tasks/dnc_driver.hpp>
#include <loopsched/runtime/core/statistics.hpp>
#include <loopsched/task_options.hpp>
#include <loopsched/transport/channel.hpp>

#include <concepts>
#include <ranges>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace loopsched {

/// What ops.solve(problem) returns: the result type.
template <class Ops, class Problem>
using dnc_result_t = std::remove_cvref_t<decltype(std::declval<Ops&>().solve(std::declval<Problem const&>()))>;

/// ops.is_leaf(p): whether p is solved directly.
template <class Ops, class Problem>
concept has_is_leaf = requires(Ops& ops, Problem const& p) {
    { ops.is_leaf(p) } -> std::convertible_to<bool>;
};
/// ops.solve(p): a leaf's result, a transferable.
template <class Ops, class Problem>
concept has_solve = requires(Ops& ops, Problem const& p) {
    ops.solve(p);
}
&&transferable<dnc_result_t<Ops, Problem>>;
/// ops.divide(p): the subproblems, a range of any length.
template <class Ops, class Problem>
concept has_divide = requires(Ops& ops, Problem const& p) {
    { ops.divide(p) } -> std::ranges::input_range;
}
&&std::convertible_to<
        std::ranges::range_reference_t<decltype(std::declval<Ops&>().divide(std::declval<Problem const&>()))>, Problem>;
/// ops.combine(p, results): p's result from its subproblems' results (in divide's order).
template <class Ops, class Problem>
concept has_combine = has_solve<Ops, Problem> &&
        requires(Ops& ops, Problem const& p, std::span<dnc_result_t<Ops, Problem>> results) {
    { ops.combine(p, results) } -> std::convertible_to<dnc_result_t<Ops, Problem>>;
};

/// The operations of a divide-and-conquer computation on problems of type
/// Problem; ops.cost(p), a number that grows with p's cost, is optional.
template <class Ops, class Problem>
concept DivideAndConquer = transferable<Problem> && has_is_leaf<Ops, Problem> && has_solve<Ops, Problem> &&
        has_divide<Ops, Problem> && has_combine<Ops, Problem>;

/// A run's outcome: the result in `value` (on the root; a default value elsewhere), one
/// row per worker (on the root), and the loop statistics on every rank.
template <class Result>
struct dnc_outcome : outcome<Result> {
    std::vector<dnc_worker_statistics> workers;
};

/// The same computation by plain recursion on one rank: the reference every
/// run must match.
template <class Problem, class Ops>
requires DivideAndConquer<Ops, Problem> dnc_result_t<Ops, Problem> sequential_divide_and_conquer(Problem const& p,
                                                                                                 Ops&& ops) {
    if (ops.is_leaf(p)) return ops.solve(p);
    std::vector<dnc_result_t<Ops, Problem>> results;
    for (auto&& c : ops.divide(p)) results.push_back(sequential_divide_and_conquer(static_cast<Problem>(c), ops));
    return ops.combine(p, std::span<dnc_result_t<Ops, Problem>>(results));
}

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
