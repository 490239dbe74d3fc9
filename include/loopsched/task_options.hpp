// The options of the task algorithms: task_farm_options and dnc_options, each
// a loop_options with where tasks go (a placement_choice) and its own parameters.
#pragma once

#include <loopsched/mapping/placement_choice.hpp>
#include <loopsched/options.hpp>

#include <cstddef>
#include <functional>
#include <limits>
#include <optional>
#include <utility>

namespace loopsched {

/// A farm's own numbers (the defaults are Kazouris's), each declared once with
/// its rule: the farm's checks, fingerprint and engine settings all read them.
struct farm_parameters {
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
    /// Two levels only: the producer runs on every sub-master instead of the
    /// root, and each group's farm runs the tasks its own producer makes
    /// (task_farm_handle::group() and groups() say which share is its). No
    /// task passes through the root, so the root's cost per task is gone;
    /// each group's results stay on its sub-master (its outcome's value; the
    /// root's and the workers' are empty). Work moves within a group, and
    /// between groups as lend_between_groups says. Not with
    /// stop_after_results, time_limit or expected_tasks (a group's chunk
    /// policy takes its queue in batches).
    bool producers_in_groups = false;
    /// With producers_in_groups: a group whose producer returned and whose
    /// queue ran dry asks another group's sub-master (at random, among those
    /// that have not refused) for queued tasks, and gets its share of them by
    /// the two groups' powers; their results go back to the group that made
    /// them. False: each group runs only its own tasks.
    bool lend_between_groups = true;

    /// Calls f(name, value, rule) for every option: the checks on every rank
    /// and the error messages name options through it.
    template <class F>
    friend void describe(farm_parameters const& p, F&& f) {
        f("initial_tasks", p.initial_tasks, detail::at_least_one);
        f("idle_below", p.idle_below, detail::at_least_one);
        f("replies_before_model", p.replies_before_model, detail::at_least_one);
        f("model_window", p.model_window, detail::at_least_one);
        f("transfer_gain", p.transfer_gain, detail::fraction);
        f("expected_tasks", p.expected_tasks, detail::any_value); // required by the scheme: see check_farm
        f("load_aware", p.load_aware, detail::any_value);
        f("stop_after_results", p.stop_after_results, detail::any_value);
        f("time_limit", p.time_limit, detail::seconds("must be >= 0 seconds (0: none)"));
        f("producers_in_groups", p.producers_in_groups, detail::any_value);
        f("lend_between_groups", p.lend_between_groups, detail::any_value);
    }
};

/// task_farm's options: the shared ones, what happens when workers leave or
/// are lost (reissue and departures: one level, not the estimates schemes,
/// `leaving` never on the root; a finite presumed_lost_after: one level),
/// where tasks go, and the farm's numbers. Tasks finish in no fixed order, so
/// there is no `deterministic`.
// The pragmas silence the deprecated member's uses in the members the compiler
// writes (copies, the destructor), which diagnose at the class; users' own
// uses of it still warn.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
struct task_farm_options : loop_options, resilience_options, farm_parameters {
    /// Where tasks go, as a value or its spec (parse_placement): "kazouris"
    /// (Kazouris's scheme), "ss" (self-scheduling: one task per idle worker),
    /// "dlpt" (Karamcheti and Wah: each new task placed where it finishes first by its
    /// estimate, idle workers pulling), its baselines "random", "round-robin",
    /// "objects", "messages", any EstimatePlacement value of your own, or a
    /// chunk policy's spec ("fss", "af", "w-gss", ...) applied to the tasks in
    /// creation order, which needs expected_tasks.
    /// Two levels make the farm hierarchical: hierarchical{between, within}
    /// (its group size and the rest as for loops), or the spec "BETWEEN/WITHIN"
    /// (e.g. "ss/kazouris", "fss/af", with the hierarchy's defaults): the root
    /// farms tasks out to groups of workers with the first, each group's
    /// sub-master among its workers with the second (a chunk policy there takes
    /// each batch the root sends as a loop of its own; work moves between
    /// workers of a group, not between groups).
    placement_choice placement = "kazouris";
    /// The former name of placement; when set, it is used instead (and errors
    /// name options.scheme). Removed in the next release.
    [[deprecated("task_farm_options::scheme is now task_farm_options::placement")]]
    std::optional<placement_choice> scheme{};

    /// Calls f(name, value, rule) for every option: the checks on every rank
    /// and the error messages name options through it.
    template <class F>
    friend void describe(task_farm_options const& o, F&& f) {
        describe(static_cast<resilience_options const&>(o), f);
        describe(static_cast<farm_parameters const&>(o), f);
    }
    /// The rules between options (see resilience_options).
    friend void check_rules(task_farm_options const& o) { check_rules(static_cast<resilience_options const&>(o)); }
};
#pragma GCC diagnostic pop

namespace detail {
/// The farm's placement as given, and the name its errors use (the deprecated
/// options.scheme while it is set).
inline std::pair<placement_choice const&, char const*> chosen_placement(task_farm_options const& o) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    if (o.scheme) return {*o.scheme, "options.scheme"};
#pragma GCC diagnostic pop
    return {o.placement, "options.placement"};
}
} // namespace detail

/// divide_and_conquer's options. Tasks finish in no fixed order, so there is no `deterministic`.
struct dnc_options : loop_options {
    /// Where tasks go, as a value or its spec (parse_placement): "kazouris"
    /// (Kazouris's scheme, the default), "april" (static keep-half-send-half
    /// over a binomial tree), "steal" (random work stealing, one task per
    /// steal), "steal-half" (half the victim's queue), "dlpt" (Karamcheti and Wah: the
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

    /// Calls f(name, value, rule) for every option: the checks on every rank
    /// and the error messages name options through it.
    template <class F>
    friend void describe(dnc_options const& o, F&& f) {
        f("spill", o.spill, detail::any_value);
        f("info_period", o.info_period, detail::seconds());
        f("migration_latency", o.migration_latency, detail::finite_number("must be finite (negative: measured)"));
        f("migration_per_byte", o.migration_per_byte, detail::finite_number("must be finite (negative: measured)"));
    }
};

} // namespace loopsched
