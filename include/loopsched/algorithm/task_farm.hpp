// task_farm: master-worker scheduling of independent tasks created on the root
// while the farm runs (seed 000, chapter 4), over any transport: tasks and
// results of any type, a cost model fitted on the replies, redistribution,
// and self-scheduling or any chunk policy as schemes to compare against.
// Over a Boost.MPI communicator: <loopsched/mpi.hpp>.
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/error.hpp>
#include <loopsched/options.hpp>
#include <loopsched/placement_spec.hpp>
#include <loopsched/policy/css.hpp>
#include <loopsched/runtime/farm.hpp>
#include <loopsched/runtime/farm_hierarchy.hpp>
#include <loopsched/runtime/payload.hpp>
#include <loopsched/runtime/plan.hpp>
#include <loopsched/runtime/statistics.hpp>
#include <loopsched/transport/channel.hpp>

#include <concepts>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <variant>
#include <vector>

namespace loopsched {

/// task_farm's options; the defaults are seed 000's.
struct task_farm_options : loop_options {
    /// Where tasks go, as a value or its spec (parse_placement): "kazouris"
    /// (seed 000's scheme), "ss" (self-scheduling: one task per idle worker),
    /// "dlpt" (seed 002: each new task placed where it finishes first by its
    /// estimate, idle workers pulling), its baselines "random", "round-robin",
    /// "objects", "messages", any EstimatePlacement value of your own, or a
    /// chunk policy's spec ("fss", "af", "w-gss", ...) applied to the tasks in
    /// creation order, which needs expected_tasks. Two specs "BETWEEN/WITHIN" (e.g. "ss/kazouris",
    /// "fss/af") make the farm hierarchical: the root farms tasks out to groups
    /// of workers with the first, each group's sub-master among its workers with
    /// the second (a chunk policy there takes each batch the root sends as a
    /// loop of its own; work moves between workers of a group, not between groups).
    placement_choice scheme = "kazouris";
    std::size_t initial_tasks = 3;        ///< f: tasks a worker may hold at the start
    std::size_t idle_below = 2;           ///< d: a worker holding fewer tasks is idle
    std::size_t replies_before_model = 4; ///< r: replies before estimates are used
    std::size_t model_window = 10;        ///< replies (the newest by creation order) the model is fitted on
    double transfer_gain = 0.10;          ///< (4.4): move work only if the busiest worker gains this fraction
    std::size_t expected_tasks = 0;       ///< the number of tasks, for a chunk-policy scheme (0: unknown)
    bool load_aware = false;              ///< worker speeds from V/Q reported with every reply, not V alone
    /// Stop once this many results arrived (0: never): tasks not started are
    /// cancelled (see farm_outcome::cancelled); running ones finish and deliver.
    std::size_t stop_after_results = 0;
    double time_limit = 0.0; ///< seconds from the farm's start; then as stop_after_results (0: none)
    // A hierarchical farm's (scheme "BETWEEN/WITHIN"):
    /// Workers per group, the sub-master included when it computes; 0: chosen
    /// from expected_task_seconds and the measured cost of a request.
    std::size_t group_size = 0;
    bool sub_masters_compute = false; ///< a sub-master also runs tasks, between serving its workers
    double expected_task_seconds = 0.0; ///< for the automatic group size (0: unknown, then about sqrt(workers))
};

/// What the producer may tell about a task.
struct task_hints {
    /// The task's estimated cost, in any unit (the cost measure then: give it
    /// for every task or for none).
    std::optional<double> cost{};
    double priority = 0.0; ///< higher runs first, whatever the cost order
};

/// What body(task) returns, with void carried as std::monostate.
template <class Body, class Task>
using farm_result_t = std::conditional_t<std::is_void_v<std::invoke_result_t<Body&, Task const&>>, std::monostate,
                                         std::invoke_result_t<Body&, Task const&>>;

/// A farm's outcome: on the root, every task's result by creation order
/// (unless a callback took them) and the ids of cancelled tasks; the statistics on every rank.
template <class Result>
struct farm_outcome {
    std::vector<Result> results;
    std::vector<std::uint64_t> cancelled;
    std::size_t moved = 0; ///< on the root: tasks a busy worker passed to an idle one (redistribution)
    loop_statistics statistics;
};

namespace detail {
/// What a farm handle asks of the running farm on the root.
struct farm_driver {
    virtual std::uint64_t submit(std::vector<std::byte> task, std::optional<double> cost, double priority) = 0;
    virtual void wait_all() = 0;
    [[nodiscard]] virtual bool stopping() const = 0;

protected:
    ~farm_driver() = default;
};
} // namespace detail

/// The producer's view of the farm, on the root: submit tasks, wait for them.
template <transferable Task, transferable Result>
class task_farm_handle {
public:
    /// A new task; returns its id (creation order, from 0). Sends it at once or
    /// queues it; results arriving meanwhile are taken in.
    std::uint64_t submit(Task const& task, task_hints const& hints = {}) {
        if (!driver_) throw error("loopsched: task_farm_handle::submit after the producer returned");
        std::uint64_t const id = driver_->submit(to_bytes(task), hints.cost, hints.priority);
        if (!callback_ && results_.size() <= id) {
            results_.resize(id + 1);
            arrived_.resize(id + 1, 0);
        }
        return id;
    }
    /// Blocks until every task submitted so far has its result (or was
    /// cancelled): a work cycle ends. The fitted model carries over to the next.
    void wait_all() {
        if (!driver_) throw error("loopsched: task_farm_handle::wait_all after the producer returned");
        driver_->wait_all();
    }
    /// Results go to `f(id, Result&&)` as they arrive, instead of being collected.
    template <std::invocable<std::uint64_t, Result&&> F>
    void on_result(F f) {
        callback_ = std::move(f);
    }
    /// The farm stopped (stop_after_results or time_limit): further tasks are cancelled at once.
    [[nodiscard]] bool stopping() const { return driver_ && driver_->stopping(); }
    /// The results collected so far, by creation order (only without a callback).
    [[nodiscard]] std::span<Result const> results() const noexcept { return results_; }
    /// Whether task `id`'s result arrived (only without a callback).
    [[nodiscard]] bool has_result(std::uint64_t id) const noexcept { return id < arrived_.size() && arrived_[id]; }

    // the farm's own
    void attach(detail::farm_driver* d) noexcept { driver_ = d; }
    void deliver(std::uint64_t id, std::span<std::byte const> b) {
        Result value = from_bytes<Result>(b);
        if (callback_) {
            callback_(id, std::move(value));
            return;
        }
        if (results_.size() <= id) {
            results_.resize(id + 1);
            arrived_.resize(id + 1, 0);
        }
        results_[id] = std::move(value);
        arrived_[id] = 1;
    }
    std::vector<Result> take_results() { return std::move(results_); }

private:
    detail::farm_driver* driver_ = nullptr;
    std::function<void(std::uint64_t, Result&&)> callback_;
    std::vector<Result> results_;
    std::vector<char> arrived_;
};

namespace detail {

/// The options' checks (every rank, before any message) and the engine's settings.
/// A hierarchical farm's two schemes, "BETWEEN/WITHIN"; nullopt for a flat farm.
inline std::optional<std::pair<std::string, std::string>> farm_levels(placement_choice const& choice) {
    std::string const* given = choice.given_spec();
    if (given == nullptr) return std::nullopt; // a value: one level
    std::string const& scheme = *given;
    auto const slash = scheme.find('/');
    if (slash == std::string::npos) return std::nullopt;
    auto levels = std::pair{scheme.substr(0, slash), scheme.substr(slash + 1)};
    require(!levels.first.empty() && !levels.second.empty() && levels.second.find('/') == std::string::npos,
            "options.scheme", scheme, "must be one scheme, or two as BETWEEN/WITHIN");
    return levels;
}

/// `scheme` is the level's (the whole for a flat farm); a group's (`batches`)
/// chunk policy needs no task count.
inline farm_settings check_farm(task_farm_options const& o, std::optional<any_policy>& policy,
                                placement_choice const& scheme, std::uint64_t& placement_fingerprint,
                                bool batches = false) {
    require(!o.deterministic, "options.deterministic", o.deterministic,
            "is not supported by task_farm (tasks finish in no fixed order)");
    farm_settings fs;
    any_placement const chosen = scheme.resolve("options.scheme");
    placement_fingerprint = chosen.fingerprint();
    fs.scheme = farm_scheme_of(chosen, "options.scheme");
    if (auto const* estimates = chosen.estimates()) fs.estimates = *estimates;
    if (auto const* chunks = chosen.policy()) {
        policy = *chunks;
        require(batches || o.expected_tasks > 0, "options.expected_tasks", o.expected_tasks,
                "must be the number of tasks for the chunk-policy scheme '" + chosen.spec() + "'");
    }
    require(o.initial_tasks >= 1, "options.initial_tasks", o.initial_tasks, "must be >= 1");
    require(o.idle_below >= 1, "options.idle_below", o.idle_below, "must be >= 1");
    require(o.replies_before_model >= 1, "options.replies_before_model", o.replies_before_model, "must be >= 1");
    require(o.model_window >= 1, "options.model_window", o.model_window, "must be >= 1");
    require(o.transfer_gain >= 0.0 && o.transfer_gain <= 1.0, "options.transfer_gain", o.transfer_gain,
            "must be in [0, 1]");
    require(std::isfinite(o.time_limit) && o.time_limit >= 0.0, "options.time_limit", o.time_limit,
            "must be >= 0 seconds (0: none)");
    fs.f = o.initial_tasks;
    fs.d = o.idle_below;
    fs.r = o.replies_before_model;
    fs.window = o.model_window;
    fs.gain = o.transfer_gain;
    fs.load_aware = o.load_aware;
    fs.stop_after_results = o.stop_after_results;
    fs.time_limit = o.time_limit;
    fs.expected_tasks = o.expected_tasks;
    if (batches) { // the root's to decide: the group runs what it is given
        fs.batches = true;
        fs.stop_after_results = 0;
        fs.time_limit = 0.0;
        fs.expected_tasks = 0;
    }
    require(std::isfinite(o.expected_task_seconds) && o.expected_task_seconds >= 0.0, "options.expected_task_seconds",
            o.expected_task_seconds, "must be >= 0 seconds (0: unknown)");
    return fs;
}

inline std::uint64_t farm_fingerprint(task_farm_options const& o) {
    fingerprint f;
    f.add(o.initial_tasks)
            .add(o.idle_below)
            .add(o.replies_before_model)
            .add(o.model_window)
            .add(o.transfer_gain)
            .add(o.expected_tasks)
            .add(o.load_aware)
            .add(o.stop_after_results)
            .add(o.time_limit)
            .add(o.group_size)
            .add(o.sub_masters_compute);
    return f.value();
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

/// Runs a farm on this rank: checks, agreement, then master and/or worker;
/// for two schemes, the root, a sub-master, or a group's worker.
template <transferable Task, channel_source C, class Produce, class Body>
auto run_task_farm(C& source, Produce& produce, Body& body, task_farm_options const& o) {
    using Result = farm_result_t<Body, Task>;
    static_assert(transferable<Result>, "task_farm: body(task) must return a transferable (or nothing)");
    auto& ch = channel_of(source);
    using T = std::remove_cvref_t<decltype(ch.transport())>;
    loop_link<T> link(ch);
    int const self = link.rank();
    farm_settings fs, within;
    std::optional<any_policy> policy, within_policy;
    bool levels = false;
    auto opened = open_loop(link, [&] {
        validate(o, link.size());
        auto const schemes = farm_levels(o.scheme);
        levels = schemes.has_value();
        std::uint64_t top = 0, inner = 0;
        fs = check_farm(o, policy, levels ? placement_choice(schemes->first) : o.scheme, top);
        if (levels) within = check_farm(o, within_policy, schemes->second, inner, true);
        std::uint64_t const policies = fingerprint().add(top).add(inner).value();
        return std::pair{plan_ranks(link.size(), self, 0, o),
                         shape_of(algorithm_id::task_farm, o, 0, farm_types_fingerprint<Task, Result>(), 0, 0,
                                  policies, "farm", 0.0, farm_fingerprint(o))};
    });
    auto& plan = opened.plan;
    std::span<worker_status const> const opening = opened.statuses();

    farm_outcome<Result> out;
    task_farm_handle<Task, Result> handle;
    auto deliver = [&handle](std::uint64_t id, std::span<std::byte const> b) {
        handle.deliver(id, b.subspan(sizeof(double))); // after the seconds it computed
    };
    auto run = [&body](std::span<std::byte const> task_bytes, std::vector<std::byte>& result) {
        Task const task = from_bytes<Task>(task_bytes);
        if constexpr (std::is_void_v<std::invoke_result_t<Body&, Task const&>>) {
            body(task);
            write_values(result, std::span<Result const>());
        } else {
            Result const r = body(task);
            write_values(result, std::span<Result const>(&r, 1));
        }
    };
    bool const hears_estimates = (levels ? within : fs).scheme == farm_scheme_kind::estimates;
    auto make_worker = [&](worker_port<T>& port) {
        return farm_worker<T, decltype(run)>(port, plan.profile, run, hears_estimates);
    };
    using master_type = farm_master<T, decltype(deliver)>;
    // The producer on the root, over whichever loop serves it.
    auto drive = [&](auto& loop, master_type& master) {
        master.start_clock();
        farm_driver_on<std::remove_reference_t<decltype(loop)>, master_type> driver(loop, master);
        handle.attach(&driver);
        produce(handle);
        handle.attach(nullptr);
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
    if (!levels || link.size() == 1) { // a lone rank farms to itself with the first scheme
        out.statistics = run_loop(
                link, plan.settings, opening,
                [&](master_port<T>& port) { return master_type(port, fs, opening, policy, deliver); }, make_worker,
                [&](auto& loop) { drive(loop, loop.master().client()); });
    } else if (self == o.root) {
        out.statistics = as_root(link, [&](bool& aborted) {
            auto const others = static_cast<std::size_t>(link.size() - 1);
            std::size_t const size = within_policy ? group_size_for(o.group_size, others, *within_policy, 1e-6,
                                                                    o.expected_task_seconds)
                                                   : group_size_for(o.group_size, others, ss{}, 1e-6,
                                                                    o.expected_task_seconds);
            group_opening groups = open_groups(link, plan.settings, size, o.sub_masters_compute, opening);
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
    if (self == o.root) out.results = handle.take_results();
    return out;
}

} // namespace detail

/// Runs a task farm on every rank of `transport`. On the root,
/// `produce(farm)` creates tasks with farm.submit(task[, hints]), may wait for
/// their results with farm.wait_all() (a work cycle) and submit more; on the
/// workers, `body(task)` computes each task's result. Collective: every rank
/// calls it with the same options (checked, as for loops). Every task runs
/// exactly once; its result reaches the root once. A task or the producer
/// that throws makes every rank throw (remote_error for a task).
template <transferable Task, channel_source C, class Produce, class Body>
requires std::invocable<Body&, Task const&> && std::invocable < Produce&,
        task_farm_handle<Task, farm_result_t<Body, Task>>
& > farm_outcome<farm_result_t<Body, Task>> task_farm(C& transport, Produce&& produce, Body&& body,
                                                      task_farm_options const& options = {}) {
    return detail::run_task_farm<Task>(transport, produce, body, options);
}

} // namespace loopsched
