// divide_and_conquer: dynamic scheduling of recursive computations of any
// degree on workers of different speeds (seed 000, chapter 3), over any
// transport, with the placement (where tasks go) chosen by name: seed 000's
// scheme, APRIL's static binomial tree, random work stealing, or seed 002's
// D_LPT by cost estimates with its baselines.
// Over a Boost.MPI communicator: <loopsched/mpi.hpp>.
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/error.hpp>
#include <loopsched/options.hpp>
#include <loopsched/placement_spec.hpp>
#include <loopsched/runtime/dnc.hpp>
#include <loopsched/runtime/payload.hpp>
#include <loopsched/runtime/plan.hpp>
#include <loopsched/runtime/statistics.hpp>
#include <loopsched/transport/channel.hpp>

#include <algorithm>
#include <cmath>
#include <concepts>
#include <functional>
#include <memory>
#include <optional>
#include <ranges>
#include <span>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

namespace loopsched {

/// divide_and_conquer's options.
struct dnc_options : loop_options {
    /// Where tasks go, as a value or its spec (parse_placement): "kazouris"
    /// (seed 000's scheme, the default), "april" (static keep-half-send-half
    /// over a binomial tree), "steal" (random work stealing, one task per
    /// steal), "steal-half" (half the victim's queue), "dlpt" (seed 002: the
    /// manager places each new task where it finishes first by the cost
    /// estimates, with migration and idle pull), one of D_LPT's baselines:
    /// "random", "round-robin", "objects", "messages", or any EstimatePlacement
    /// value of your own.
    placement_choice placement = "kazouris";
    /// A worker asked for work while it recurses with an empty queue queues
    /// its next division to answer (kazouris, steal); false: it refuses at
    /// once, as the document does.
    bool spill = true;
    /// Seconds between two reports of a worker's queue cost to the manager
    /// (kazouris), or of its running task's progress (dlpt and its baselines,
    /// which also report every division at once).
    double info_period = 1e-3;
    /// dlpt: the migration cost theta = c_d + bytes * c_c, in seconds; negative:
    /// measured on the run's moves (the manager's handshake with the donor).
    double migration_latency = -1.0;  ///< c_d
    double migration_per_byte = -1.0; ///< c_c
    /// dlpt: f(theta), the gain (seconds) a move must reach; empty: theta
    /// itself. Must not decrease. The root's is the one used.
    std::function<double(double)> migration_threshold{};
};

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

/// A run's outcome: the result (on the root; a default value elsewhere), one
/// row per worker (on the root), and the loop statistics on every rank.
template <class Result>
struct dnc_outcome {
    Result result{};
    std::vector<dnc_worker_statistics> workers;
    loop_statistics statistics;
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

namespace detail {

template <class Problem, class Result>
std::uint64_t dnc_types_fingerprint() {
    return fingerprint().add_types<Problem, Result>().value();
}

template <class Problem, channel_source C, class Ops>
auto run_divide_and_conquer(C& source, Problem const& problem, Ops& ops, dnc_options const& o) {
    using Result = dnc_result_t<Ops, Problem>;
    auto& ch = channel_of(source);
    using T = std::remove_cvref_t<decltype(ch.transport())>;
    loop_link<T> link(ch);
    int const self = link.rank();
    std::unique_ptr<task_decisions> placement;
    migration_cost cost;
    dnc_settings ds;
    auto opened = open_loop(link, [&] {
        validate(o, link.size());
        require(!o.deterministic, "options.deterministic", o.deterministic,
                "is not supported by divide_and_conquer (tasks finish in no fixed order)");
        require(std::isfinite(o.info_period) && o.info_period >= 0.0, "options.info_period", o.info_period,
                "must be >= 0 seconds");
        require(std::isfinite(o.migration_latency), "options.migration_latency", o.migration_latency,
                "must be finite (negative: measured)");
        require(std::isfinite(o.migration_per_byte), "options.migration_per_byte", o.migration_per_byte,
                "must be finite (negative: measured)");
        any_placement const chosen = o.placement.resolve("options.placement");
        placement = decisions_for(chosen, o.spill, "options.placement");
        cost = migration_cost{o.migration_latency, o.migration_per_byte, o.migration_threshold};
        ds.info_period = o.info_period;
        return std::pair{plan_ranks(link.size(), self, 0, o),
                         shape_of(algorithm_id::divide_and_conquer, o, 0, dnc_types_fingerprint<Problem, Result>(), 0,
                                  0, chosen.fingerprint(), "placement", 0.0, fingerprint()
                                                                         .add(o.spill)
                                                                         .add(o.info_period)
                                                                         .add(o.migration_latency)
                                                                         .add(o.migration_per_byte)
                                                                         .value())};
    });
    auto& plan = opened.plan;
    std::span<worker_status const> const opening = opened.statuses();

    dnc_outcome<Result> out;
    std::vector<std::byte> solution;
    out.statistics = run_loop(
            link, plan.settings, opening,
            [&](master_port<T>& port) { return dnc_manager<T>(port, *placement, opening, to_bytes(problem), cost); },
            [&](worker_port<T>& port) {
                return dnc_worker<T, Ops, Problem, Result>(port, plan.profile, *placement, ds, ops);
            },
            [&](auto& loop) {
                loop.run();
                auto& manager = loop.master().client();
                solution = manager.solution();
                out.workers = manager.take_statistics();
                std::ranges::sort(out.workers, {}, &dnc_worker_statistics::rank);
            });
    if (self == o.root) out.result = from_bytes<Result>(solution);
    return out;
}

} // namespace detail

/// Solves `problem` by dividing it, on every rank of `transport`: collective,
/// every rank calls it with the same options (checked, as for loops). The
/// root's problem is the one solved; the result is on the root, identical to
/// sequential_divide_and_conquer's. A throwing is_leaf, solve, divide or
/// combine makes every rank throw (remote_error).
template <class Problem, channel_source C, class Ops>
requires DivideAndConquer<std::remove_reference_t<Ops>, Problem> dnc_outcome<dnc_result_t<Ops, Problem>>
divide_and_conquer(C& transport, Problem const& problem, Ops&& ops, dnc_options const& options = {}) {
    return detail::run_divide_and_conquer<Problem>(transport, problem, ops, options);
}

} // namespace loopsched
