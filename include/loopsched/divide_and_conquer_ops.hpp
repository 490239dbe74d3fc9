// What divide_and_conquer asks of the user's operations (DivideAndConquer),
// and the plain recursion every run matches (what a run returns, dnc_outcome,
// is in outcome.hpp).
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/hooks.hpp>
#include <loopsched/outcome.hpp>

#include <concepts>
#include <cstdint>
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

/// Whether the ops give `cost(p)`, a number that grows with p's cost: declared
/// by name (hooks{.cost = true}), and refused at compile time when the
/// declaration and the member disagree (a misspelled or undeclared cost).
template <class Ops, class Problem>
consteval bool gives_cost() {
    constexpr bool present = requires(Ops& ops, Problem const& p) {
        { ops.cost(p) } -> std::convertible_to<double>;
    };
    constexpr bool declared = declared_hooks<std::remove_cvref_t<Ops>>.cost;
    static_assert(present || !declared, "loopsched: the divide-and-conquer ops declare hooks{.cost = true} but have "
                                        "no cost(Problem const&) returning a number (misspelled?)");
    static_assert(declared || !present, "loopsched: the divide-and-conquer ops have cost(problem) but do not declare "
                                        "it: add `static constexpr loopsched::hook_set hooks{.cost = true};`");
    return present;
}

/// The operations of a divide-and-conquer computation on problems of type
/// Problem; ops.cost(p), a number that grows with p's cost, is optional and
/// declared by name (loopsched::hook_set).
template <class Ops, class Problem>
concept DivideAndConquer = transferable<Problem> && has_is_leaf<Ops, Problem> && has_solve<Ops, Problem> &&
        has_divide<Ops, Problem> && has_combine<Ops, Problem>;

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

} // namespace loopsched
