// A loop's set-up on every rank: the checks of the shared options, who works
// and how each rank reports its load (the plan), and the loop's shape for the
// agreement. Every algorithm starts here.
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/detail/spec_of.hpp>
#include <loopsched/error.hpp>
#include <loopsched/mapping/mapping.hpp>
#include <loopsched/options.hpp>
#include <loopsched/runtime/agreement.hpp>
#include <loopsched/runtime/profile.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <typeinfo>

namespace loopsched::detail {

inline constexpr double least_power = 1e-9, most_power = 1e9, most_run_queue = 1e9;

/// Checks the options every algorithm shares, on `ranks` ranks.
inline void validate(loop_options const& o, int ranks) {
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
}

/// Who works and how each rank reports its load.
struct rank_plan {
    runtime_settings settings;
    loop_info info; ///< the policy's view: iterations, workers, their initial status
    rank_profile profile;
};

inline rank_plan plan_ranks(int ranks, int self, index_t iterations, loop_options const& options) {
    rank_plan plan;
    auto& settings = plan.settings;
    // Who works: every rank, or every rank but the master; a lone rank works alone.
    bool const master_computes = options.master_computes || ranks == 1;
    settings.root = options.root;
    settings.poll_interval = options.poll_interval;
    settings.deterministic = options.deterministic;
    settings.trace = options.trace;

    auto power = [&](int r) { return options.powers.empty() ? 1.0 : options.powers[static_cast<std::size_t>(r)]; };
    auto given_queue = [&](int r) -> std::optional<double> {
        if (!options.run_queues.empty()) return options.run_queues[static_cast<std::size_t>(r)];
        if (options.deterministic || !options.read_os_load) return 1.0;
        return std::nullopt;
    };
    // Initial statuses only when some differ from V = 1, Q = 1 (loop_info's
    // empty default): back-to-back short loops should not allocate for them.
    bool const uneven = !options.powers.empty() || !options.run_queues.empty();
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

/// The shape of a loop with these shared options.
inline loop_shape shape_of(algorithm_id algorithm, loop_options const& o, index_t extent, std::uint64_t space,
                           std::size_t dimension, std::size_t result_bytes, std::uint64_t policy,
                           std::string_view mapping, double request_ahead, std::uint64_t extra) {
    loop_shape s;
    s.algorithm = static_cast<std::uint32_t>(algorithm);
    s.root = o.root;
    s.extent = extent;
    s.space = space;
    s.dimension = static_cast<std::uint32_t>(dimension);
    s.result_bytes = result_bytes;
    s.policy = policy;
    s.mapping = fingerprint().add(mapping).value();
    s.flags = (o.master_computes ? loop_shape::master_computes : 0u) |
              (o.read_os_load ? loop_shape::read_os_load : 0u) | (o.emulate_powers ? loop_shape::emulate_powers : 0u) |
              (o.deterministic ? loop_shape::deterministic : 0u) | (o.trace ? loop_shape::trace : 0u);
    if (!o.powers.empty()) s.powers = fingerprint().add_all(std::span<double const>(o.powers)).value();
    if (!o.run_queues.empty()) s.run_queues = fingerprint().add_all(std::span<double const>(o.run_queues)).value();
    s.poll_interval = o.poll_interval;
    s.request_ahead = request_ahead;
    s.extra = extra;
    return s;
}

/// A space's fingerprint: its bounds in every dimension.
template <IterationSpace S>
std::uint64_t space_fingerprint(S const& space) {
    fingerprint f;
    for (std::size_t d = 0; d < S::rank; ++d) f.add(space.extent(d));
    if constexpr (requires { space.lower(); }) f.add(space.lower());
    return f.value();
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
    out.agreed = agree(link, checked.shape, checked.failed, checked.plan.profile.status());
    out.plan = std::move(checked.plan);
    return out;
}

} // namespace loopsched::detail
