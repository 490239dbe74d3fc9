// A loop's set-up on every rank: the checks of the shared options, who works
// and how each rank reports its load (the plan), and the loop's shape for the
// agreement. Every algorithm starts here.
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/detail/spec_of.hpp>
#include <loopsched/error.hpp>
#include <loopsched/options.hpp>
#include <loopsched/runtime/core/agreement.hpp>
#include <loopsched/runtime/core/profile.hpp>

#include <algorithm>
#include <cmath>
#include <concepts>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <typeinfo>

namespace loopsched::detail {

inline constexpr double least_power = 1e-9, most_power = 1e9, most_run_queue = 1e9;

/// An algorithm's options that list their own in a `describe` (detail/described.hpp).
template <class O>
concept described_options = requires(O const& o) {
    describe(o, [](char const*, auto const&, option_rule const&) {});
};

/// Checks the options every algorithm shares, on `ranks` ranks, then the
/// algorithm's own by their description.
template <std::derived_from<loop_options> O>
void validate(O const& o, int ranks) {
    require(o.root >= 0 && o.root < ranks, "options.root", o.root, "must be a rank of the communicator");
    require(std::isfinite(o.poll_interval) && o.poll_interval > 0.0 && o.poll_interval <= 3600.0,
            "options.poll_interval", o.poll_interval, "must be in (0, 3600] seconds");
    // Names are built only for a failure: back-to-back short loops should not pay for strings.
    auto per_rank = [&](std::vector<double> const& v, char const* name, double least, double most) {
        if (v.size() != static_cast<std::size_t>(ranks))
            require(false, "options." + std::string(name) + " count", v.size(), "must be 0 or the number of ranks");
        for (std::size_t r = 0; r < v.size(); ++r)
            if (!(v[r] >= least && v[r] <= most)) // also false for NaN
                require(false, "options." + std::string(name) + "[" + std::to_string(r) + "]", v[r],
                        "must be in [" + to_text(least) + ", " + to_text(most) + "]");
    };
    if (!o.powers.empty()) per_rank(o.powers, "powers", least_power, most_power);
    if (!o.run_queues.empty()) per_rank(o.run_queues, "run_queues", 1.0, most_run_queue);
    if constexpr (described_options<O>) check_described(o);
}

/// Two levels: the root only serves its groups, so options.master_computes may
/// be unset or false, not true.
inline void check_root_serves(loop_options const& o) {
    require(!o.master_computes.value_or(false), "options.master_computes", true,
            "must be unset or false with two levels: the root serves its groups only "
            "(hierarchical::sub_masters_compute says whether sub-masters compute)");
}

/// The fingerprint of an algorithm's own options, for the agreement (0: none).
template <std::derived_from<loop_options> O>
std::uint64_t options_fingerprint(O const& o) {
    if constexpr (described_options<O>)
        return described_fingerprint(o);
    else
        return 0;
}

/// Who works and how each rank reports its load.
struct rank_plan {
    runtime_settings settings;
    loop_info info; ///< the policy's view: iterations, workers, their initial status
    rank_profile profile;
};

/// options.deterministic where the algorithm's options have it (loops), else false (tasks).
template <std::derived_from<loop_options> O>
constexpr bool deterministic_of(O const& options) noexcept {
    if constexpr (requires { options.deterministic; })
        return options.deterministic;
    else
        return false;
}

template <std::derived_from<loop_options> O>
rank_plan plan_ranks(int ranks, int self, index_t iterations, O const& options) {
    rank_plan plan;
    auto& settings = plan.settings;
    bool const deterministic = deterministic_of(options);
    // Who works: every rank, or every rank but the master; a lone rank works alone.
    bool const master_computes = options.master_computes.value_or(true) || ranks == 1;
    settings.root = options.root;
    settings.poll_interval = options.poll_interval;
    settings.deterministic = deterministic;
    settings.trace = options.trace;

    auto power = [&](int r) { return options.powers.empty() ? 1.0 : options.powers[static_cast<std::size_t>(r)]; };
    auto given_queue = [&](int r) -> std::optional<double> {
        if (!options.run_queues.empty()) return options.run_queues[static_cast<std::size_t>(r)];
        if (deterministic || !options.read_os_load) return 1.0;
        return std::nullopt;
    };
    // Initial statuses only when some differ from V = 1, Q = 1 (loop_info's
    // empty default): back-to-back short loops should not allocate for them,
    // nor each of 16,384 simulated ranks hold all 16,384 equal ones.
    auto const not_one = [](double x) { return x != 1.0; };
    bool const uneven = std::ranges::any_of(options.powers, not_one) || std::ranges::any_of(options.run_queues, not_one);
    plan.info = loop_info{iterations, 0, {}};
    if (uneven) plan.info.status.reserve(static_cast<std::size_t>(ranks));
    // One pass, no fill: for a few ranks, filling index_of_rank first cost more than the rest of the plan.
    for (int r = 0; r < ranks; ++r) {
        bool const works = r != options.root || master_computes;
        settings.index_of_rank.push_back(works ? static_cast<int>(settings.worker_ranks.size()) : -1);
        if (!works) continue;
        if (r == options.root) settings.own_index = static_cast<int>(settings.worker_ranks.size());
        settings.worker_ranks.push_back(r);
        if (uneven) plan.info.status.push_back(worker_status{power(r), given_queue(r).value_or(1.0)});
    }
    plan.info.workers = settings.worker_ranks.size();

    plan.profile.power = power(self);
    plan.profile.run_queue = given_queue(self);
    plan.profile.read_os_load = options.read_os_load;
    if (options.emulate_powers && !options.powers.empty())
        plan.profile.slowness = emulated_slowness(*std::ranges::max_element(options.powers) / plan.profile.power - 1.0);
    return plan;
}

/// A policy's fingerprint for the agreement: its spec where it has one, and its type.
template <class P>
std::uint64_t policy_fingerprint(P const& policy) {
    if constexpr (requires {
                      { policy.fingerprint() } -> std::convertible_to<std::uint64_t>;
                  }) {
        return policy.fingerprint();
    } else {
        // A policy without a spec() is known by its type alone ("custom" adds nothing to tell it apart).
        return fingerprint().add(std::string_view(typeid(P).name())).add(std::string_view(spec_of(policy))).value();
    }
}

/// What a loop's shape holds besides the shared options (fields left out: 0).
struct loop_facts {
    algorithm_id algorithm{};
    index_t extent = 0;           ///< iterations along the cut dimension
    std::uint64_t space = 0;      ///< the space's fingerprint, or the task types'
    std::size_t dimension = 0;    ///< the cut dimension
    std::size_t result_bytes = 0; ///< gathered bytes per iteration
    std::uint64_t policy = 0;     ///< the policy's or the placement's fingerprint
    std::string_view mapping{};   ///< the mapping's name
    double request_ahead = 0.0;
    std::uint64_t extra = 0; ///< the algorithm's own options (described_fingerprint)
};

/// The shape of a loop with these options and facts.
template <std::derived_from<loop_options> O>
loop_shape shape_of(O const& o, loop_facts const& facts) {
    loop_shape s;
    s.algorithm = static_cast<std::uint32_t>(facts.algorithm);
    s.root = o.root;
    s.extent = facts.extent;
    s.space = facts.space;
    s.dimension = static_cast<std::uint32_t>(facts.dimension);
    s.result_bytes = facts.result_bytes;
    s.policy = facts.policy;
    s.mapping = fingerprint().add(facts.mapping).value();
    s.flags = (o.master_computes.value_or(true) ? loop_shape::master_computes : 0u) |
              (o.read_os_load ? loop_shape::read_os_load : 0u) | (o.emulate_powers ? loop_shape::emulate_powers : 0u) |
              (deterministic_of(o) ? loop_shape::deterministic : 0u) | (o.trace ? loop_shape::trace : 0u);
    if (!o.powers.empty()) s.powers = fingerprint().add_all(std::span<double const>(o.powers)).value();
    if (!o.run_queues.empty()) s.run_queues = fingerprint().add_all(std::span<double const>(o.run_queues)).value();
    s.poll_interval = o.poll_interval;
    s.request_ahead = facts.request_ahead;
    s.extra = facts.extra;
    return s;
}

/// A loop's opening on this rank once every rank agreed: its plan and every
/// rank's status (on the root; empty elsewhere).
struct loop_opening {
    rank_plan plan;
    status_by_rank agreed;
    [[nodiscard]] std::span<worker_status const> statuses() const noexcept { return {agreed.data(), agreed.size()}; }
};

/// A loop on this rank after its checks, before the agreement: its plan and
/// shape, or the failure its checks met (this rank's word in the agreement).
struct checked_loop {
    rank_plan plan;
    loop_shape shape;
    std::optional<failure> failed;
};

/// `check()`: this rank's checks and set-up, returning its plan and shape.
template <Transport T, class Check>
checked_loop check_loop(loop_link<T>& link, Check&& check) {
    checked_loop out;
    try {
        std::tie(out.plan, out.shape) = check();
    } catch (...) {
        out.failed = failure::current(link.rank(), false);
    }
    return out;
}

/// Opens a loop: check_loop, then the agreement, so that a failure on any
/// rank's checks is thrown on every rank before any work (agree()).
template <Transport T, class Check>
loop_opening open_loop(loop_link<T>& link, Check&& check) {
    checked_loop checked = check_loop(link, check);
    loop_opening out;
    out.agreed = agree(link, checked.shape, checked.failed, checked.plan.profile.status(), checked.plan.settings.silence);
    out.plan = std::move(checked.plan);
    return out;
}

} // namespace loopsched::detail
