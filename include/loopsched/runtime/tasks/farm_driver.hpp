// How a rank runs a task farm: the options' checks, the agreement, then the
// root's master and producer, a sub-master, or a worker, for one scheme or
// two levels (runtime/tasks/farm.hpp's clients on the protocol core).
#pragma once

#include <loopsched/detail/fingerprint.hpp>
#include <loopsched/error.hpp>
#include <loopsched/hierarchical.hpp>
#include <loopsched/mapping/placement_choice.hpp>
#include <loopsched/policy/css.hpp>
#include <loopsched/runtime/tasks/farm.hpp>
#include <loopsched/runtime/tasks/farm_calls.hpp>
#include <loopsched/runtime/tasks/farm_hierarchy.hpp>
#include <loopsched/runtime/tasks/farm_producer.hpp>
#include <loopsched/payload.hpp>
#include <loopsched/runtime/core/plan.hpp>
#include <loopsched/statistics.hpp>
#include <loopsched/task_farm_handle.hpp>
#include <loopsched/task_options.hpp>
#include <loopsched/transport/channel.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace loopsched::detail {

/// The checks of one level's placement (every rank, before any message; the
/// farm's numbers are checked by their description in validate) and the
/// engine's settings; a group's (`batches`, or with producers in groups)
/// chunk policy needs no task count.
inline farm_settings check_farm(task_farm_options const& o, any_placement const& chosen,
                                std::optional<any_policy>& policy, bool batches = false) {
    farm_settings fs;
    static_cast<farm_parameters&>(fs) = o;
    static_cast<resilience_options&>(fs) = o;
    check_farm_placement(chosen, chosen_placement(o).second);
    fs.placement = chosen;
    if (auto const* chunks = chosen.policy()) {
        policy = *chunks;
        require(batches || o.producers_in_groups || o.expected_tasks > 0, "options.expected_tasks", o.expected_tasks,
                "must be the number of tasks for the chunk-policy scheme '" + chosen.spec() + "'");
    }
    if (batches) { // the root's to decide: the group runs what it is given
        fs.batches = true;
        fs.stop_after_results = 0;
        fs.time_limit = 0.0;
        fs.expected_tasks = 0;
    }
    return fs;
}

/// Runs a farm on this rank: checks, agreement, then master and/or worker;
/// for two levels, the root, a sub-master, or a group's worker. `scheme` is
/// options.placement with its spec parsed by the caller; `to_root(id, bytes)`
/// takes each result on the root.
template <class Channel, class Deliver>
farm_run run_farm_engine(Channel& ch, farm_calls const& calls, Deliver to_root, task_farm_options const& o,
                         resolved_choice const& scheme) {
    using T = std::remove_cvref_t<decltype(ch.transport())>;
    loop_link<T> link(ch);
    int const self = link.rank();
    farm_settings fs, within;
    std::optional<any_policy> policy, within_policy;
    std::optional<placement_choice::levels> levels;
    auto opened = open_loop(link, [&] {
        validate(o, link.size());
        placement_choice const& chosen = scheme.get();
        std::uint64_t placements = 0;
        require(!o.leaving || self != o.root, "options.leaving", "set on the root",
                "must be null on the root: it produces the tasks and serves the farm");
        if (auto const* h = chosen.hierarchy()) {
            require(!o.departures, "options.departures", o.departures,
                    "is for one-level farms (a hierarchy's groups do not take tasks back)");
            require(!o.reissue, "options.reissue", o.reissue, "is for one-level farms (a hierarchy's groups are not copied)");
            require(std::isinf(o.presumed_lost_after), "options.presumed_lost_after",
                    o.presumed_lost_after, "must be infinity in a hierarchical farm (its failure detector is for one level)");
            check_hierarchy(*h);
            check_root_serves(o);
            if (o.producers_in_groups) {
                for (auto const& [name, value] : {std::pair{"options.stop_after_results", o.stop_after_results},
                                                  std::pair{"options.expected_tasks", o.expected_tasks}})
                    require(value == 0, name, value,
                            "must be 0 with producers_in_groups (each group's producer makes its own tasks)");
                require(o.time_limit == 0.0, "options.time_limit", o.time_limit,
                        "must be 0 with producers_in_groups (each group's producer makes its own tasks)");
            }
            levels = *h;
            // With producers in groups, the root hands out nothing and each group is a farm of its own.
            fs = check_farm(o, h->between, policy, o.producers_in_groups);
            within = check_farm(o, h->within, within_policy, !o.producers_in_groups);
            placements = hierarchy_fingerprint(*h, h->between.fingerprint(), h->within.fingerprint());
        } else {
            fs = check_farm(o, *chosen.placement(), policy);
            // Both take tasks back from a worker: the estimates schemes place each one ahead of time.
            require(!(o.departures || o.reissue) || fs.placement.estimates() == nullptr,
                    o.departures ? "options.departures" : "options.reissue", true,
                    "needs a scheme that hands out work as workers ask (kazouris, ss or a chunk policy), not the "
                    "estimates scheme '" + chosen.placement()->spec() + "'");
            placements = chosen.placement()->fingerprint();
            require(!o.producers_in_groups, "options.producers_in_groups", true,
                    "needs a hierarchical scheme (\"BETWEEN/WITHIN\", e.g. \"ss/kazouris\"): a one-level farm "
                    "has no groups, and its producer runs on the root");
        }
        auto plan = plan_ranks(link.size(), self, 0, o);
        plan.settings.silence = o.presumed_lost_after; // the agreement waits no longer for a hello
        return std::pair{std::move(plan),
                         shape_of(o, {.algorithm = algorithm_id::task_farm,
                                      .space = calls.types,
                                      .policy = placements,
                                      .mapping = "farm",
                                      .extra = options_fingerprint(o)})};
    });
    auto& plan = opened.plan;
    plan.settings.departures = o.departures;
    plan.settings.leaving = o.leaving;
    std::span<worker_status const> const opening = opened.statuses();

    farm_run out;
    auto deliver = [to_root](std::uint64_t id, std::span<std::byte const> b) {
        to_root(id, b.subspan(sizeof(double))); // after the seconds it computed
    };
    auto run = [&calls](std::span<std::byte const> task, std::vector<std::byte>& result) { calls.run(task, result); };
    bool const hears_estimates = (levels ? within : fs).placement.estimates() != nullptr;
    auto make_worker = [&](worker_port<T>& port) {
        return farm_worker<T, decltype(run)>(port, plan.profile, run, hears_estimates);
    };
    using master_type = farm_master<T, decltype(deliver)>;
    // The producer on the root, over whichever loop serves it (none on a root
    // over groups that make their own tasks).
    auto drive = [&](auto& loop, master_type& master, bool produces) {
        produce_and_run(loop, master, produces ? &calls : nullptr, self);
        out.cancelled = master.cancelled();
        out.moved = master.moved();
        std::ranges::sort(out.cancelled);
    };
    if (!levels || link.size() == 1) { // a lone rank farms to itself with the first level
        out.statistics = run_loop(
                link, plan.settings, opening,
                [&](master_port<T>& port) { return master_type(port, fs, opening, deliver); }, make_worker,
                [&](auto& loop) { drive(loop, loop.master().client(), true); });
    } else if (self == o.root) {
        out.statistics = as_root(link, [&](bool& aborted) {
            auto const others = static_cast<std::size_t>(link.size() - 1);
            auto const group_size = [&](auto const& inner) {
                return group_size_for(levels->group_size, others, inner, levels->message_seconds,
                                      levels->expected_chunk_seconds);
            };
            std::size_t const size = within_policy ? group_size(*within_policy) : group_size(ss{});
            group_opening groups = open_groups(link, plan.settings, size, levels->sub_masters_compute, opening,
                                               o.producers_in_groups && o.lend_between_groups);
            fs.capacity = groups.sizes;
            std::span<worker_status const> const statuses(groups.opening.data(), groups.opening.size());
            using client_type = with_groups<master_type>;
            bool no_verdict = false; // it has no worker of its own
            master_node<T, client_type, decltype(make_worker(std::declval<worker_port<T>&>()))> node(
                    link, groups.settings, aborted, no_verdict,
                    [&](master_port<T>& port) {
                        return client_type(groups.sizes.size(), port, fs, statuses, deliver);
                    },
                    no_own_worker{});
            if (o.producers_in_groups) node.client().groups_make_work();
            return node.run(statuses,
                            [&](auto& loop) { drive(loop, node.client().inner(), !o.producers_in_groups); });
        });
    } else {
        out.statistics = as_worker(link, o.root, [&](bool& verdict) -> loop_statistics {
            message_view const first = link.receive();
            if (kind_of(first.tag) == kind::group && !first.payload.empty())
                return run_farm_sub_master(link, first, plan, within, make_worker, verdict,
                                           o.producers_in_groups ? group_production{&calls, deliver, o.lend_between_groups}
                                                                 : group_production{});
            return run_farm_group_worker(link, first, plan, make_worker, verdict);
        });
    }
    return out;
}

} // namespace loopsched::detail
