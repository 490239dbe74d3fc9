// parallel_for_doacross: a loop nest with uniform dependences, self-scheduled
// along u_c by an S-adapted policy and pipelined through synchronization
// points along u_s (seed 003, chapter 4), over a Transport or Boost.MPI.
#pragma once

#include <loopsched/adaptor/interval_model.hpp>
#include <loopsched/adaptor/synchronized.hpp>
#include <loopsched/algorithm/parallel_for.hpp>
#include <loopsched/any_policy.hpp>
#include <loopsched/dependence/layout.hpp>
#include <loopsched/runtime/doacross.hpp>
#include <loopsched/space/window.hpp>
#include <loopsched/transport/mpi.hpp>

#include <boost/mpi/communicator.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <concepts>
#include <map>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace loopsched {

struct doacross_options {
    int root = 0;                          ///< the master's rank
    bool master_computes = true;           ///< the master also holds chunks, serving requests between subchunks
    std::optional<std::size_t> chunk_dim;  ///< u_c; with sync_dim, or neither (then the library chooses)
    std::optional<std::size_t> sync_dim;   ///< u_s
    /// How far past the point it computes, along u_c and along u_s, the body
    /// reads values from before the loop (anti-dependences, e.g. Heat's
    /// A[i+1][j] and A[i][j+1]: 1). Other reads must follow the dependences.
    index_t input_halo = 0;
    bool gather = true;                    ///< collect every field on the root; false: each rank sees its chunks only in the body
    std::vector<double> powers{};          ///< virtual power V of each rank (empty: all 1)
    std::vector<double> run_queues{};      ///< run-queue length Q of each rank (empty: read from the OS)
    bool read_os_load = true;              ///< with run_queues empty: Q from /proc/stat, else Q = 1
    bool emulate_powers = false;           ///< rank k sleeps (V_max/V_k - 1) x its compute time after each subchunk
    bool trace = false;                    ///< record every subchunk in the statistics' trace on the root
    /// A rank stalled on a slower predecessor while it holds the newest chunk
    /// takes the next chunk too, joined to its own (work while waiting). The
    /// S mechanism alone hands chunks out in turn, so with two ranks the fast
    /// one gets no more work than the slow one; this lets it. False: the
    /// documents' protocol exactly (one chunk at a time).
    bool extend_when_waiting = true;
};

/// What a DOACROSS loop returns on every rank: the fields (on the root, each a
/// window over the whole space holding the final values, when gathered), the
/// statistics, and the layout and interval that ran.
template <std::size_t N, class... T>
struct doacross_result {
    std::tuple<window<T, N>...> arrays;
    loop_statistics statistics;
    doacross_layout layout;
    index_t interval = 0; ///< h

    template <std::size_t I = 0>
    [[nodiscard]] auto& array() noexcept { return std::get<I>(arrays); }
    template <std::size_t I = 0>
    [[nodiscard]] auto const& array() const noexcept { return std::get<I>(arrays); }
};

namespace detail {

template <class F>
inline constexpr bool is_field_v = false;
template <class T, class I>
inline constexpr bool is_field_v<field<T, I>> = true;

template <class P>
sync_interval interval_of(P const& policy) {
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
/// between the root and `partner`, halved round trips, best of several.
template <Transport Tr>
interval_costs measure_link(Tr& t, int root, int partner, std::size_t unit_bytes) {
    constexpr int rounds = 20;
    constexpr index_t units = 256;
    std::size_t const big = std::max<std::size_t>(1, unit_bytes * units);
    auto one_way = [&](std::size_t size) {
        double best = 1e300;
        for (int i = 0; i < rounds; ++i) {
            bytes payload(size);
            if (t.rank() == root) {
                double const begin = t.now();
                t.send(partner, dx_probe, std::move(payload));
                (void)t.receive(partner, dx_probe);
                best = std::min(best, (t.now() - begin) / 2.0);
            } else {
                (void)t.receive(root, dx_probe);
                t.send(root, dx_probe, std::move(payload));
            }
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
template <Transport Tr, std::size_t N, class Body, class... F>
double measure_cost(Tr& t, doacross_geometry<N> const& geo, Body& body, std::tuple<F...> const& fields) {
    index_t const wc = std::min<index_t>(geo.extent_c(), 16), ws = std::min<index_t>(geo.extent_s(), 256);
    if (wc == 0 || ws == 0) return 0.0;
    box<N> const region = geo.space.slice(geo.layout.chunk_dim, 0, std::min(geo.extent_c(), wc + geo.input_halo));
    box<N> const sample = geo.part(0, wc, 0, ws);
    std::tuple<window<typename F::value_type, N>...> scratch;
    double best = 1e300;
    for (int repeat = 0; repeat < 3; ++repeat) {
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            ((std::get<I>(scratch).reset(region),
              std::get<I>(scratch).fill(region, std::get<I>(fields).initial)),
             ...);
        }(std::index_sequence_for<F...>{});
        double const begin = t.now();
        std::apply([&](auto&... win) { body(sample, win...); }, scratch);
        best = std::min(best, t.now() - begin);
    }
    return best / static_cast<double>(wc * ws);
}

/// The model's h for this loop: the chunks the policy would hand out (a dry
/// run at the loop's initial statuses) give V and k; equal powers use 4.6/4.9,
/// mixed powers 4.11/4.14 with one class per power, slowest last.
template <ChunkPolicy P>
index_t model_interval(P const& policy, loop_info const& info, index_t extent_s, index_t reach, interval_costs costs,
                       double cost_at_power, double measured_power) {
    auto const schedule = round_robin_schedule(widened<P>{policy, std::max<index_t>(1, reach)}, info);
    if (schedule.empty()) return 1;
    std::map<double, std::pair<double, double>, std::greater<>> by_power; // power -> (workers, summed chunk widths)
    for (std::size_t k = 0; k < info.workers; ++k) by_power[info.of(k).power].first += 1.0;
    for (auto const& a : schedule) by_power[info.of(a.worker).power].second += static_cast<double>(a.range.size);
    double const rounds = std::max(1.0, static_cast<double>(schedule.size()) / static_cast<double>(info.workers));
    std::vector<worker_class> classes;
    for (auto const& [power, v] : by_power) {
        double const chunks_of_class = std::max(1.0, v.first * rounds);
        classes.push_back({v.first, cost_at_power * measured_power / power, std::max(1.0, v.second / chunks_of_class)});
    }
    double const h = optimal_interval(costs, extent_s, classes);
    return std::clamp<index_t>(static_cast<index_t>(std::llround(h)), 1, std::max<index_t>(1, extent_s));
}

template <class Tr, std::size_t N, class D, class P, class Body, class... F>
auto run_doacross(Tr& transport, box<N> const& space, D const& deps, P const& policy, Body& body,
                  doacross_options const& options, std::tuple<F...> const& fields) {
    static_assert(N >= 2, "parallel_for_doacross: the iteration space needs at least two dimensions (u_c and u_s)");
    static_assert(D::rank == N, "parallel_for_doacross: the dependence vectors must have as many components as the space has dimensions");
    static_assert(is_synchronized_v<P> || std::same_as<P, any_policy>,
                  "parallel_for_doacross: the policy needs the synchronization adaptor S; pass synchronized(policy) "
                  "or synchronized(policy, sync_interval::fixed(h)), or dmps(css/tss/dtss, h)");
    static_assert(sizeof...(F) >= 1, "parallel_for_doacross: pass at least one field<T>(initial) for the loop to write");
    static_assert(std::invocable<Body&, box<N> const&, window<typename F::value_type, N>&...>,
                  "parallel_for_doacross: the body must be callable as body(box<N> const& part, window<T, N>&... arrays), "
                  "one window per field, in order");
    using result_type = doacross_result<N, typename F::value_type...>;

    // Checks every rank makes before any message, so bad input fails everywhere.
    parallel_for_options common;
    common.root = options.root;
    common.master_computes = options.master_computes;
    common.powers = options.powers;
    common.run_queues = options.run_queues;
    common.read_os_load = options.read_os_load;
    common.emulate_powers = options.emulate_powers;
    common.trace = options.trace;
    validate(common, transport.size(), N);
    require(options.input_halo >= 0, "options.input_halo", options.input_halo, "must be >= 0");
    require(options.chunk_dim.has_value() == options.sync_dim.has_value(), "options.chunk_dim / sync_dim",
            options.chunk_dim ? "u_c only" : "u_s only", "give both dimensions or neither");
    std::array<index_t, N> extents{};
    for (std::size_t d = 0; d < N; ++d) extents[d] = space.extent(d);
    doacross_layout const layout =
        options.chunk_dim ? make_layout(deps, *options.chunk_dim, *options.sync_dim) : choose_layout(deps, extents);
    sync_interval const interval = interval_of(policy);

    result_type out;
    out.layout = layout;
    doacross_geometry<N> geo{space, layout, 1, options.input_halo};
    bool const is_root = transport.rank() == options.root;

    if (transport.size() == 1) { // one rank: the loop runs in sequential order
        auto& arrays = out.arrays;
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            ((std::get<I>(arrays).reset(space),
              std::get<I>(arrays).fill(space, std::get<I>(fields).initial)),
             ...);
        }(std::index_sequence_for<F...>{});
        double const begin = transport.now();
        if (!space.empty()) std::apply([&](auto&... win) { body(space, win...); }, arrays);
        double const took = transport.now() - begin;
        out.interval = geo.extent_s();
        out.statistics = loop_statistics{took, {worker_statistics{transport.rank(), took, 0.0, 0.0, geo.extent_c(), 1}}, {}};
        return out;
    }

    auto plan = plan_ranks(transport.size(), transport.rank(), geo.extent_c(), common);
    plan.settings.result_bytes = options.gather ? (sizeof(typename F::value_type) + ...) : 0;
    (void)chunk_sequencer<widened<P>>(widened<P>{policy, std::max<index_t>(1, layout.reach)}, plan.info);

    if (interval.how() == sync_interval::kind::automatic) {
        // The root and its first other rank measure the link; the root times the body.
        int partner = options.root == 0 ? 1 : 0;
        std::size_t const unit_bytes = static_cast<std::size_t>(std::max<index_t>(1, layout.reach)) *
                                       static_cast<std::size_t>(space.size() / std::max<index_t>(1, geo.extent_c() * geo.extent_s())) *
                                       (sizeof(typename F::value_type) + ...);
        interval_costs costs{};
        if (is_root || transport.rank() == partner) costs = measure_link(transport, options.root, partner, unit_bytes);
        if (is_root) {
            // Only the root knows h before the first chunk, so nothing here may
            // throw past it: with no optimum (one worker, or free messages) or a
            // body that throws on the sample, the default M = 3m stands, and the
            // loop itself reports a failing body on every rank.
            geo.h = sync_interval{}.resolve(geo.extent_s(), plan.info.workers);
            try {
                double const cost = measure_cost(transport, geo, body, fields);
                double const power = options.powers.empty() ? 1.0 : options.powers[static_cast<std::size_t>(options.root)];
                geo.h = model_interval(policy, plan.info, geo.extent_s(), layout.reach, costs, cost, power);
            } catch (std::exception const&) {
            }
        }
    } else {
        geo.h = interval.resolve(geo.extent_s(), plan.info.workers);
    }

    if (is_root && options.gather)
        [&]<std::size_t... I>(std::index_sequence<I...>) { (std::get<I>(out.arrays).reset(space), ...); }(
            std::index_sequence_for<F...>{});
    doacross_engine<Tr, P, N, Body, F...> engine(transport, geo, policy, plan.info, plan.settings, plan.profile, body,
                                                fields, is_root && options.gather ? &out.arrays : nullptr,
                                                options.extend_when_waiting);
    out.statistics = engine.run();
    out.interval = engine.interval();
    return out;
}

template <class... A, std::size_t... I>
auto take(std::tuple<A...>&& all, std::index_sequence<I...>) {
    return std::tuple<std::remove_cvref_t<std::tuple_element_t<I, std::tuple<A...>>>...>(std::get<I>(std::move(all))...);
}

} // namespace detail

/// Runs a DOACROSS loop nest over `space` (N >= 2) on every rank of the
/// transport. Collective: every rank calls it with the same arguments.
///
///   parallel_for_doacross(t, space, deps, policy, fields..., body [, options])
///
/// - deps: the loop's uniform flow dependences (uniform<...> or dependence_set<N>);
/// - policy: a chunk policy with the S adaptor: synchronized(tss{}), dmps(css{}, h),
///   synchronized(weighted(gss{})), or parse_policy("sw-gss:h=auto");
/// - fields: field<T>(initial) for each array the loop writes; `initial(point)`
///   gives its value before the loop. Each rank evaluates it for the points it
///   holds: read-only inputs are replicated by the user's function instead of
///   travelling with the chunks, so the master never ships data and a worker's
///   memory stays its chunk plus halo;
/// - body(part, arrays...): runs the points of `part` (a sub-box) in
///   lexicographic order, reading and writing the windows with global indices.
/// Returns the fields gathered on the root (if options.gather) and the statistics.
template <Transport Tr, std::size_t N, DependenceSet D, ChunkPolicy P, class... Args>
    requires(sizeof...(Args) >= 2)
auto parallel_for_doacross(Tr& transport, box<N> const& space, D const& deps, P const& policy, Args&&... args) {
    auto all = std::forward_as_tuple(std::forward<Args>(args)...);
    constexpr std::size_t n = sizeof...(Args);
    using last = std::remove_cvref_t<std::tuple_element_t<n - 1, std::tuple<Args...>>>;
    constexpr bool has_options = std::same_as<last, doacross_options>;
    constexpr std::size_t fields_count = n - 1 - (has_options ? 1 : 0);
    auto fields = detail::take(std::move(all), std::make_index_sequence<fields_count>{});
    static_assert([]<std::size_t... I>(std::index_sequence<I...>) {
        return (detail::is_field_v<std::remove_cvref_t<std::tuple_element_t<I, std::tuple<Args...>>>> && ...);
    }(std::make_index_sequence<fields_count>{}), "parallel_for_doacross: the arguments between the policy and the body must be field<T>(initial)");
    auto& body = std::get<fields_count>(all);
    doacross_options options;
    if constexpr (has_options) options = std::get<n - 1>(all);
    return detail::run_doacross(transport, space, deps, policy, body, options, fields);
}

/// parallel_for_doacross over a Boost.MPI communicator. The loop runs on a
/// duplicate of it, so that no message of a failed loop can reach a later one.
template <std::size_t N, DependenceSet D, ChunkPolicy P, class... Args>
    requires(sizeof...(Args) >= 2)
auto parallel_for_doacross(boost::mpi::communicator const& comm, box<N> const& space, D const& deps, P const& policy,
                           Args&&... args) {
    mpi_transport transport(boost::mpi::communicator(comm, boost::mpi::comm_duplicate));
    return parallel_for_doacross(transport, space, deps, policy, std::forward<Args>(args)...);
}

} // namespace loopsched
