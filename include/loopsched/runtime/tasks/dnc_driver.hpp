// How a rank runs divide and conquer: the options' checks, the agreement,
// then the manager and the workers (runtime/tasks/dnc_manager.hpp, runtime/tasks/dnc.hpp)
// on the protocol core, with the placement's decisions.
#pragma once

#include <loopsched/detail/fingerprint.hpp>
#include <loopsched/error.hpp>
#include <loopsched/mapping/any_placement.hpp>
#include <loopsched/mapping/placement_choice.hpp>
#include <loopsched/runtime/tasks/dnc.hpp>
#include <loopsched/runtime/tasks/dnc_manager.hpp>
#include <loopsched/runtime/core/payload.hpp>
#include <loopsched/runtime/core/plan.hpp>
#include <loopsched/task_options.hpp>
#include <loopsched/transport/channel.hpp>

#include <algorithm>
#include <memory>
#include <span>
#include <type_traits>
#include <vector>

namespace loopsched::detail {

template <class Problem, class Result>
std::uint64_t dnc_types_fingerprint() {
    return fingerprint().add_types<Problem, Result>().value();
}

/// Runs a divide-and-conquer computation on this rank: checks, agreement,
/// then the manager (on the root) and a worker. `placement` is
/// options.placement with its spec parsed by the caller; `out` (a dnc_outcome)
/// gets the result on the root, the workers' rows and the statistics.
template <class Problem, class Result, channel_source C, class Ops, class Outcome>
void run_divide_and_conquer(C& source, Problem const& problem, Ops& ops, dnc_options const& o,
                            resolved_choice const& placement_spec, Outcome& out) {
    auto& ch = channel_of(source);
    using T = std::remove_cvref_t<decltype(ch.transport())>;
    loop_link<T> link(ch);
    int const self = link.rank();
    std::unique_ptr<task_decisions> placement;
    migration_cost cost;
    dnc_settings ds;
    auto opened = open_loop(link, [&] {
        validate(o, link.size());
        placement_choice const& choice = placement_spec.get();
        require(choice.placement() != nullptr, "options.placement", choice.spec(),
                "must be one placement: divide and conquer has no levels");
        any_placement const& chosen = *choice.placement();
        placement = decisions_for(chosen, o.spill, "options.placement");
        cost = migration_cost{o.migration_latency, o.migration_per_byte, o.migration_threshold};
        ds.info_period = o.info_period;
        return std::pair{plan_ranks(link.size(), self, 0, o),
                         shape_of(o, {.algorithm = algorithm_id::divide_and_conquer,
                                      .space = dnc_types_fingerprint<Problem, Result>(),
                                      .policy = chosen.fingerprint(),
                                      .mapping = "placement",
                                      .extra = options_fingerprint(o)})};
    });
    auto& plan = opened.plan;
    std::span<worker_status const> const opening = opened.statuses();

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
    if (self == o.root) out.value = from_bytes<Result>(solution);
}

} // namespace loopsched::detail
