// How a rank runs divide and conquer: the options' checks, the agreement,
// then the manager and the workers (runtime/tasks/dnc_manager.hpp, runtime/tasks/dnc.hpp)
// on the protocol core, with the placement's decisions. The engine is typed on
// the transport only; the user's types reach it through dnc_calls.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/mapping/any_placement.hpp>
#include <loopsched/mapping/placement_choice.hpp>
#include <loopsched/payload.hpp>
#include <loopsched/runtime/core/plan.hpp>
#include <loopsched/runtime/tasks/dnc.hpp>
#include <loopsched/runtime/tasks/dnc_calls.hpp>
#include <loopsched/runtime/tasks/dnc_manager.hpp>
#include <loopsched/task_options.hpp>
#include <loopsched/transport/channel.hpp>

#include <algorithm>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace loopsched::detail {

/// The engine: checks, agreement, then the manager (on the root) and a
/// worker. `placement_spec` is options.placement with its spec parsed by the caller.
template <Transport T>
dnc_run run_dnc_engine(loop_link<T>& link, dnc_calls const& calls, dnc_options const& o,
                       resolved_choice const& placement_spec) {
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
                                      .space = calls.types,
                                      .policy = chosen.fingerprint(),
                                      .mapping = "placement",
                                      .extra = options_fingerprint(o)})};
    });
    auto& plan = opened.plan;
    std::span<worker_status const> const opening = opened.statuses();

    dnc_run out;
    out.statistics = run_loop(
            link, plan.settings, opening,
            [&](master_port<T>& port) {
                return dnc_manager<T>(port, *placement, opening, calls.problem_bytes(), cost);
            },
            [&](worker_port<T>& port) {
                return any_dnc_worker<T>(std::make_unique<dnc_worker<T>>(port, plan.profile, *placement, ds, calls));
            },
            [&](auto& loop) {
                loop.run();
                auto& manager = loop.master().client();
                out.value = manager.solution();
                out.workers = manager.take_statistics();
                std::ranges::sort(out.workers, {}, &dnc_worker_statistics::rank);
            });
    return out;
}

} // namespace loopsched::detail
