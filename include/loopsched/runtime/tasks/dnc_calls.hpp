// What the divide-and-conquer engine needs of the user's types, erased at
// the seams the runtime has (dnc_calls), and how a run's value reaches the
// caller's outcome: all a program needs when the engine comes compiled.
#pragma once

#include <loopsched/detail/fingerprint.hpp>
#include <loopsched/divide_and_conquer_ops.hpp>
#include <loopsched/outcome.hpp>
#include <loopsched/payload.hpp>
#include <loopsched/statistics.hpp>
#include <loopsched/runtime/tasks/dnc_recursion.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace loopsched::detail {

/// What the engine needs of the user's types, erased at the seams the
/// runtime has (the recursion a worker calls once per queued task or message,
/// the problem's and the solution's bytes), so that run_dnc_engine is
/// compiled once per transport, whatever the transport. Plain function
/// pointers over the caller's problem and operations: a program instantiates
/// no std::function for them.
struct dnc_calls {
    void const* problem = nullptr; ///< the user's problem (the caller's, alive for the run)
    void* ops = nullptr;           ///< the user's operations (likewise)
    std::vector<std::byte> (*write_problem)(void const* problem) = nullptr;
    std::unique_ptr<dnc_recursion_base> (*recursion)(dnc_engine& engine, void* ops) = nullptr;
    std::uint64_t types = 0; ///< the problem and result types' fingerprint, agreed by the ranks

    /// The problem's bytes: asked on the root only.
    [[nodiscard]] std::vector<std::byte> problem_bytes() const { return write_problem(problem); }
    /// The recursion over the user's types, for one worker's engine.
    [[nodiscard]] std::unique_ptr<dnc_recursion_base> make_recursion(dnc_engine& engine) const {
        return recursion(engine, ops);
    }
};

/// The user's problem and operations at the engine's seams.
template <class Problem, class Result, class Ops>
dnc_calls dnc_calls_for(Problem const& problem, Ops& ops) {
    return {.problem = std::addressof(problem),
            .ops = const_cast<void*>(static_cast<void const*>(std::addressof(ops))), // cast back to Ops* below
            .write_problem = [](void const* p) { return to_bytes(*static_cast<Problem const*>(p)); },
            .recursion = [](dnc_engine& engine, void* o) -> std::unique_ptr<dnc_recursion_base> {
                return std::make_unique<dnc_recursion<Problem, Result, Ops>>(engine, *static_cast<Ops*>(o));
            },
            .types = types_fingerprint<Problem, Result>()};
}

/// A run's outcome with the user's result type: `out` is a dnc_outcome.
template <class Result, class Outcome>
void take_dnc_run(dnc_run&& run, bool root, Outcome& out) {
    if (root) out.value = from_bytes<Result>(run.value);
    take_run(std::move(run), out);
}

} // namespace loopsched::detail
