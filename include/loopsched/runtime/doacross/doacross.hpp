// A DOACROSS loop on this rank (Ciorba, chapter 4): the checks on every rank
// before any message, the agreement, the root's measurements for h=auto (the
// link's c_d and c_c by ping-pong, the body's c_p on scratch windows, the
// model's interval), then the master, a worker, or both, on the protocol core.
#pragma once

#include <loopsched/adaptor/interval_model.hpp>
#include <loopsched/adaptor/synchronized.hpp>
#include <loopsched/adaptor/widened.hpp>
#include <loopsched/any_policy.hpp>
#include <loopsched/dependence/layout.hpp>
#include <loopsched/mapping/mapping.hpp>
#include <loopsched/options.hpp>
#include <loopsched/runtime/core/core.hpp>
#include <loopsched/runtime/doacross/doacross_body.hpp>
#include <loopsched/runtime/doacross/doacross_master.hpp>
#include <loopsched/runtime/doacross/doacross_worker.hpp>
#include <loopsched/runtime/core/plan.hpp>
#include <loopsched/transport/channel.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <concepts>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

namespace loopsched {

namespace detail {

template <class P>
sync_interval interval_of(P const& policy) {
    require(!splits_with_partners(policy), "policy", spec_of(policy),
            "is TreeS, whose partner splits would cut a DOACROSS pipeline's chunks: it runs in DOALL loops");
    if constexpr (std::same_as<P, any_policy>) {
        auto h = policy.synchronization();
        require(h.has_value(), "policy", policy.spec(),
                "a DOACROSS loop needs the synchronization adaptor S: prefix the spec with 's-', 'sw-' or 'dmps-'");
        return *h;
    } else {
        return policy.interval();
    }
}

/// c_d and c_c (per u_s position of a communication set) from a ping-pong
/// between the root and `partner` (whose worker echoes probes), halved round
/// trips, best of several.
template <Transport T>
interval_costs measure_link(loop_link<T>& link, int partner, std::size_t unit_bytes) {
    constexpr int rounds = 20;
    constexpr index_t units = 256;
    std::size_t const big = std::max<std::size_t>(1, unit_bytes * units);
    auto one_way = [&](std::size_t size) {
        double best = 1e300;
        bytes const payload(size);
        for (int i = 0; i < rounds; ++i) {
            double const begin = link.now();
            link.send(partner, kind::probe, std::span<std::byte const>(payload.data(), payload.size()));
            message_view const m = link.receive();
            if (kind_of(m.tag) != kind::probe || m.source != partner)
                throw error("loopsched: protocol: a message other than the echo while measuring the link");
            best = std::min(best, (link.now() - begin) / 2.0);
        }
        return best;
    };
    double const small = one_way(sizeof(data_header));
    double const large = one_way(big);
    return {small, std::max(0.0, large - small) / static_cast<double>(units)};
}

/// c_p: seconds per (u_c, u_s) position, timing the body on scratch windows
/// over a corner of the space (the body's writes go nowhere else). Timed on
/// the transport's clock, so that a simulated body is timed in simulated time.
template <Transport T, std::size_t N>
double measure_cost(loop_link<T>& link, doacross_geometry<N> const& geo, doacross_body<N> const& body) {
    index_t const wc = std::min<index_t>(geo.extent_c(), 16), ws = std::min<index_t>(geo.extent_s(), 256);
    if (wc == 0 || ws == 0) return 0.0;
    box<N> const region = geo.space.slice(geo.layout.chunk_dim, 0, geo.rows_end(0, wc));
    box<N> const sample = geo.part(0, wc, 0, ws);
    auto const scratch = body.make();
    double best = 1e300;
    for (int repeat = 0; repeat < 3; ++repeat) {
        scratch->reset(region);
        scratch->fill(region);
        double const begin = link.now();
        scratch->run(sample);
        best = std::min(best, link.now() - begin);
    }
    return best / static_cast<double>(wc * ws);
}

/// The model for this loop: the chunks the policy would hand out (a dry run
/// at the loop's initial statuses) give V and k; equal powers make one class
/// (4.6/4.9), mixed powers one class per power, slowest last (4.11/4.14).
template <ChunkPolicy P>
std::optional<interval_model> model_of(P const& policy, loop_info const& info, index_t extent_s, index_t reach,
                                       interval_costs costs, double cost_at_power, double measured_power) {
    auto const schedule = round_robin_schedule(widened<P>{policy, std::max<index_t>(1, reach)}, info);
    if (schedule.empty()) return std::nullopt;
    std::map<double, std::pair<double, double>, std::greater<>> by_power; // power -> (workers, summed chunk widths)
    for (std::size_t k = 0; k < info.workers; ++k) by_power[info.of(k).power].first += 1.0;
    for (auto const& a : schedule) by_power[info.of(a.worker).power].second += static_cast<double>(a.range.size);
    double const rounds = std::max(1.0, static_cast<double>(schedule.size()) / static_cast<double>(info.workers));
    std::vector<worker_class> classes;
    for (auto const& [power, v] : by_power) {
        double const chunks_of_class = std::max(1.0, v.first * rounds);
        classes.push_back({v.first, cost_at_power * measured_power / power, std::max(1.0, v.second / chunks_of_class)});
    }
    return interval_model{costs, extent_s, std::move(classes), rounds}; // k = the rounds of chunks (4.12)
}

/// A fingerprint of what a DOACROSS loop adds to the shared options: the
/// dependences, the layout, the fields' types, the input halo and the modes.
template <std::size_t N>
std::uint64_t doacross_fingerprint(dependence_set<N> const& deps, doacross_layout const& layout,
                                   doacross_options const& o, std::uint64_t fields) {
    fingerprint f;
    for (auto const& v : deps.vectors()) f.add(v);
    return f.add(layout).add(options_fingerprint(o)).add(fields).value();
}

/// One rank: the loop runs in its sequential order, the body over the whole
/// space at once, on the outcome's windows.
template <Transport T, std::size_t N>
doacross_run run_doacross_alone(T& t, box<N> const& space, doacross_layout const& layout, doacross_body<N>& body) {
    doacross_run out;
    out.layout = layout;
    field_windows<N>& arrays = body.outcome();
    arrays.reset(space);
    arrays.fill(space);
    double const begin = t.now();
    try {
        if (!space.empty()) arrays.run(space);
    } catch (...) { // as on more ranks: the body's failure is a remote_error
        failure::current(t.rank(), true).raise(t.rank());
    }
    double const took = t.now() - begin;
    out.interval = space.extent(layout.sync_dim);
    out.statistics =
            loop_statistics{took, {worker_statistics{t.rank(), took, 0.0, 0.0, space.extent(layout.chunk_dim), 1}}, {}};
    return out;
}

/// A self-scheduled DOACROSS loop on this rank, below the body's seam.
/// `gather`: the fields travel to the root (the call passed gather<>{}).
/// `earlier`: an error this rank met making the arguments (see run_doall).
template <Transport T, std::size_t N>
doacross_run run_doacross_engine(channel<T>& ch, box<N> const& space, dependence_set<N> const& deps,
                                 any_policy const& policy, doacross_body<N>& body, doacross_options const& o,
                                 bool gather, std::exception_ptr earlier) {
    using P = any_policy;
    // Checks every rank makes before any message, so bad input fails everywhere.
    auto check = [&](int ranks) {
        if (earlier) std::rethrow_exception(earlier);
        validate(o, ranks);
        (void)interval_of(policy);
        require(o.dimension.has_value() == o.sync_dimension.has_value(), "options.dimension / sync_dimension",
                o.dimension ? "u_c only" : "u_s only", "give both dimensions or neither");
        std::array<index_t, N> extents{};
        for (std::size_t d = 0; d < N; ++d) extents[d] = space.extent(d);
        return o.dimension ? make_layout(deps, *o.dimension, *o.sync_dimension) : choose_layout(deps, extents);
    };
    if (ch.size() == 1) return run_doacross_alone(ch.transport(), space, check(1), body);

    loop_link<T> link(ch);
    int const ranks = link.size(), self = link.rank();
    bool const is_root = self == o.root;
    doacross_layout layout;
    sync_interval interval;
    auto opened = open_loop(link, [&] {
        layout = check(ranks);
        interval = interval_of(policy);
        rank_plan plan = plan_ranks(ranks, self, space.extent(layout.chunk_dim), o);
        plan.settings.result_bytes = gather ? body.point_bytes() : 0;
        (void)chunk_sequencer<widened<P>>(widened<P>{policy, std::max<index_t>(1, layout.reach)}, plan.info);
        loop_shape const shape = shape_of(o, {.algorithm = algorithm_id::parallel_for_doacross,
                                              .extent = space.extent(layout.chunk_dim),
                                              .space = space_fingerprint(space),
                                              .dimension = layout.chunk_dim,
                                              .result_bytes = plan.settings.result_bytes,
                                              .policy = policy_fingerprint(policy),
                                              .mapping = dynamic_mapping::name,
                                              .extra = doacross_fingerprint(deps, layout, o, body.fields_fingerprint())});
        return std::pair{std::move(plan), shape};
    });
    auto& plan = opened.plan;
    std::span<worker_status const> const opening = opened.statuses();

    doacross_run out;
    out.layout = layout;
    doacross_geometry<N> geo(space, layout, interval.resolve(space.extent(layout.sync_dim), plan.info.workers),
                             o.input_halo);
    out.interval = geo.h;
    field_windows<N>* const results = gather && is_root ? &body.outcome() : nullptr;
    auto make_master = [&](master_port<T>& port) {
        if (interval.how() == sync_interval::kind::automatic) {
            // The root and its first other rank measure the link; the root
            // times the body. With no optimum (one worker, or free messages)
            // or a body that throws on the sample, the default M = 3m stands,
            // and the loop itself reports a failing body on every rank.
            int const partner = o.root == 0 ? 1 : 0;
            std::size_t const unit_bytes =
                    static_cast<std::size_t>(std::max<index_t>(1, layout.reach)) *
                    static_cast<std::size_t>(space.size() / std::max<index_t>(1, geo.extent_c() * geo.extent_s())) *
                    body.point_bytes();
            interval_costs const costs = measure_link(link, partner, unit_bytes);
            try {
                double const cost = measure_cost(link, geo, body);
                double const power = o.powers.empty() ? 1.0 : o.powers[static_cast<std::size_t>(o.root)];
                if (auto model = model_of(policy, plan.info, geo.extent_s(), layout.reach, costs, cost, power)) {
                    geo.h = clamp_to_index(std::round(model->optimal()), 1, std::max<index_t>(1, geo.extent_s()));
                    out.model = std::move(model);
                }
            } catch (std::exception const&) {
                out.model.reset();
            }
            out.interval = geo.h;
        }
        if (results) results->reset(space);
        return doacross_master<T, P, N>(port, geo, policy, plan.info, results);
    };
    auto make_worker = [&](worker_port<T>& port) {
        return doacross_worker<T, N>(port, geo, plan.profile, body, port.is_local() ? results : nullptr, gather,
                                     o.extend_when_waiting, out.interval);
    };
    out.statistics = run_loop(link, plan.settings, opening, make_master, make_worker);
    return out;
}

} // namespace detail
} // namespace loopsched
