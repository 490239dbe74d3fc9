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
#include <loopsched/runtime/tasks/farm_hierarchy.hpp>
#include <loopsched/runtime/core/payload.hpp>
#include <loopsched/runtime/core/plan.hpp>
#include <loopsched/runtime/core/statistics.hpp>
#include <loopsched/task_farm_handle.hpp>
#include <loopsched/task_options.hpp>
#include <loopsched/transport/channel.hpp>

#include <algorithm>
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
/// engine's settings; a group's (`batches`) chunk policy needs no task count.
inline farm_settings check_farm(task_farm_options const& o, any_placement const& chosen,
                                std::optional<any_policy>& policy, bool batches = false) {
    farm_settings fs;
    static_cast<farm_parameters&>(fs) = o;
    fs.scheme = farm_scheme_of(chosen, "options.scheme");
    if (auto const* estimates = chosen.estimates()) fs.estimates = *estimates;
    if (auto const* chunks = chosen.policy()) {
        policy = *chunks;
        require(batches || o.expected_tasks > 0, "options.expected_tasks", o.expected_tasks,
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

/// The root's side of a handle: the farm's master and the root's loop.
template <class Loop, class Master>
class farm_driver_on : public farm_driver {
public:
    farm_driver_on(Loop& loop, Master& master) : loop_(loop), master_(master) {}

    std::uint64_t submit(std::vector<std::byte> task, std::optional<double> cost, double priority) override {
        std::uint64_t id = 0;
        try {
            id = master_.submit(std::move(task), cost, priority);
        } catch (invalid_parameter const&) { // a misuse, not the producer's own failure: named as such everywhere
            loop_.master().fail(failure::current(loop_.master().settings().root, false));
        }
        master_.check_limits();
        loop_.master().settle();
        loop_.poll(); // replies that arrived meanwhile free workers for the next tasks
        return id;
    }
    void wait_all() override {
        master_.set_flushing(true);
        loop_.master().settle();
        loop_.run_until([&] { return master_.all_resolved(); });
        master_.set_flushing(false);
    }
    [[nodiscard]] bool stopping() const override { return master_.stopping(); }

private:
    Loop& loop_;
    Master& master_;
};

template <class Task, class Result>
std::uint64_t farm_types_fingerprint() {
    return fingerprint().add_types<Task, Result>().value();
}

/// What the farm engine needs of the user's functions, erased, so that the
/// engine is compiled once per transport and result handling rather than once
/// per body and producer (one indirect call per task, on the worker; the
/// root's delivery of results stays direct, since the root serves everyone).
struct farm_calls {
    /// The body on one task: the task's bytes in, the result's bytes appended to `result`.
    std::function<void(std::span<std::byte const> task, std::vector<std::byte>& result)> run;
    /// The producer, on the root, submitting through the farm's driver.
    std::function<void(farm_driver& driver)> produce;
    std::uint64_t types = 0; ///< the task and result types' fingerprint, agreed by the ranks
};

/// What a farm's run leaves besides its results.
struct farm_run {
    loop_statistics statistics;
    std::vector<std::uint64_t> cancelled; ///< on the root, sorted
    std::size_t moved = 0;                ///< on the root
};

/// Where a result reaching the root goes: the producer's handle, which
/// decodes it (one type per task and result type, not per body).
template <class Handle>
struct deliver_to {
    Handle* handle;
    void operator()(std::uint64_t id, std::span<std::byte const> result) const { handle->deliver(id, result); }
};

/// Runs a farm on this rank: checks, agreement, then master and/or worker;
/// for two levels, the root, a sub-master, or a group's worker. `scheme` is
/// options.scheme with its spec parsed by the caller; `to_root(id, bytes)`
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
        if (auto const* h = chosen.hierarchy()) {
            check_hierarchy(*h);
            check_root_serves(o);
            levels = *h;
            fs = check_farm(o, h->between, policy);
            within = check_farm(o, h->within, within_policy, true);
            placements = hierarchy_fingerprint(*h, h->between.fingerprint(), h->within.fingerprint());
        } else {
            fs = check_farm(o, *chosen.placement(), policy);
            placements = chosen.placement()->fingerprint();
        }
        return std::pair{plan_ranks(link.size(), self, 0, o),
                         shape_of(o, {.algorithm = algorithm_id::task_farm,
                                      .space = calls.types,
                                      .policy = placements,
                                      .mapping = "farm",
                                      .extra = options_fingerprint(o)})};
    });
    auto& plan = opened.plan;
    std::span<worker_status const> const opening = opened.statuses();

    farm_run out;
    auto deliver = [to_root](std::uint64_t id, std::span<std::byte const> b) {
        to_root(id, b.subspan(sizeof(double))); // after the seconds it computed
    };
    auto run = [&calls](std::span<std::byte const> task, std::vector<std::byte>& result) { calls.run(task, result); };
    bool const hears_estimates = (levels ? within : fs).scheme == farm_scheme_kind::estimates;
    auto make_worker = [&](worker_port<T>& port) {
        return farm_worker<T, decltype(run)>(port, plan.profile, run, hears_estimates);
    };
    using master_type = farm_master<T, decltype(deliver)>;
    // The producer on the root, over whichever loop serves it.
    auto drive = [&](auto& loop, master_type& master) {
        master.start_clock();
        farm_driver_on<std::remove_reference_t<decltype(loop)>, master_type> driver(loop, master);
        calls.produce(driver);
        try {
            master.finish_production();
        } catch (invalid_parameter const&) {
            loop.master().fail(failure::current(self, false));
        }
        loop.master().settle();
        loop.run(); // to the last result and the table
        out.cancelled = master.cancelled();
        out.moved = master.moved();
        std::ranges::sort(out.cancelled);
    };
    if (!levels || link.size() == 1) { // a lone rank farms to itself with the first level
        out.statistics = run_loop(
                link, plan.settings, opening,
                [&](master_port<T>& port) { return master_type(port, fs, opening, policy, deliver); }, make_worker,
                [&](auto& loop) { drive(loop, loop.master().client()); });
    } else if (self == o.root) {
        out.statistics = as_root(link, [&](bool& aborted) {
            auto const others = static_cast<std::size_t>(link.size() - 1);
            auto const group_size = [&](auto const& inner) {
                return group_size_for(levels->group_size, others, inner, levels->message_seconds,
                                      levels->expected_chunk_seconds);
            };
            std::size_t const size = within_policy ? group_size(*within_policy) : group_size(ss{});
            group_opening groups = open_groups(link, plan.settings, size, levels->sub_masters_compute, opening);
            fs.capacity = groups.sizes;
            fs.redistribute = false;
            std::span<worker_status const> const statuses(groups.opening.data(), groups.opening.size());
            using client_type = with_groups<master_type>;
            bool no_verdict = false; // it has no worker of its own
            master_node<T, client_type, decltype(make_worker(std::declval<worker_port<T>&>()))> node(
                    link, groups.settings, aborted, no_verdict,
                    [&](master_port<T>& port) {
                        return client_type(groups.sizes.size(), port, fs, statuses, policy, deliver);
                    },
                    no_own_worker{});
            return node.run(statuses, [&](auto& loop) { drive(loop, node.client().inner()); });
        });
    } else {
        out.statistics = as_worker(link, o.root, [&](bool& verdict) -> loop_statistics {
            message_view const first = link.receive();
            if (kind_of(first.tag) == kind::group && !first.payload.empty())
                return run_farm_sub_master(link, first, plan, within, within_policy, make_worker, verdict);
            return run_farm_group_worker(link, first, plan, make_worker, verdict);
        });
    }
    return out;
}

/// A task farm with the user's types: encodes tasks and results at the
/// seams of farm_calls and runs the engine; `out` (a farm_outcome) gets the
/// results, the cancelled ids, the moves and the statistics.
template <transferable Task, channel_source C, class Produce, class Body, class Outcome>
void run_task_farm(C& source, Produce& produce, Body& body, task_farm_options const& o, resolved_choice const& scheme,
                   Outcome& out) {
    using Result = farm_result_t<Body, Task>;
    static_assert(transferable<Result>, "task_farm: body(task) must return a transferable (or nothing)");
    task_farm_handle<Task, Result> handle;
    farm_calls const calls{
            .run =
                    [&body](std::span<std::byte const> task_bytes, std::vector<std::byte>& result) {
                        Task const task = from_bytes<Task>(task_bytes);
                        if constexpr (std::is_void_v<std::invoke_result_t<Body&, Task const&>>) {
                            body(task);
                            write_values(result, std::span<Result const>());
                        } else {
                            Result const r = body(task);
                            write_values(result, std::span<Result const>(&r, 1));
                        }
                    },
            .produce =
                    [&](farm_driver& driver) {
                        handle.attach(&driver);
                        produce(handle);
                        handle.attach(nullptr);
                    },
            .types = farm_types_fingerprint<Task, Result>()};
    auto& ch = channel_of(source);
    farm_run run = run_farm_engine(ch, calls, deliver_to<decltype(handle)>{&handle}, o, scheme);
    out.statistics = std::move(run.statistics);
    out.cancelled = std::move(run.cancelled);
    out.moved = run.moved;
    if (ch.rank() == o.root) out.value = handle.take_results();
}

} // namespace loopsched::detail
