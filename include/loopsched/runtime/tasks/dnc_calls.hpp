// What the divide-and-conquer engine needs of the user's types, erased at
// the seams the runtime has (dnc_calls), and what a run leaves (dnc_run):
// all a program needs when the engine comes compiled (config.hpp).
#pragma once

#include <loopsched/detail/fingerprint.hpp>
#include <loopsched/divide_and_conquer_ops.hpp>
#include <loopsched/runtime/core/payload.hpp>
#include <loopsched/runtime/core/statistics.hpp>
#include <loopsched/runtime/tasks/dnc_recursion.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace loopsched::detail {

template <class Problem, class Result>
std::uint64_t dnc_types_fingerprint() {
    return fingerprint().add_types<Problem, Result>().value();
}

/// What the engine needs of the user's types, erased at the seams the
/// runtime has (the recursion a worker calls once per queued task or message,
/// the problem's and the solution's bytes), so that run_dnc_engine is
/// compiled once per transport, whatever the transport.
struct dnc_calls {
    std::function<std::vector<std::byte>()> problem; ///< the problem's bytes: asked on the root only
    std::function<std::unique_ptr<dnc_recursion_base>(dnc_engine&)> make_recursion;
    std::uint64_t types = 0; ///< the problem and result types' fingerprint, agreed by the ranks
};

/// What a run leaves: the statistics everywhere; the solution's bytes and the
/// workers' rows (by rank) on the root.
struct dnc_run {
    loop_statistics statistics;
    std::vector<std::byte> solution;
    std::vector<dnc_worker_statistics> workers;
};

/// The user's problem and operations at the engine's seams.
template <class Problem, class Result, class Ops>
dnc_calls dnc_calls_for(Problem const& problem, Ops& ops) {
    return {.problem = [&problem] { return to_bytes(problem); },
            .make_recursion = [&ops](dnc_engine& engine) -> std::unique_ptr<dnc_recursion_base> {
                return std::make_unique<dnc_recursion<Problem, Result, Ops>>(engine, ops);
            },
            .types = dnc_types_fingerprint<Problem, Result>()};
}

/// A run's outcome with the user's result type: `out` is a dnc_outcome.
template <class Result, class Outcome>
void take_dnc_run(dnc_run&& run, bool root, Outcome& out) {
    out.statistics = std::move(run.statistics);
    out.workers = std::move(run.workers);
    if (root) out.value = from_bytes<Result>(run.solution);
}

} // namespace loopsched::detail
