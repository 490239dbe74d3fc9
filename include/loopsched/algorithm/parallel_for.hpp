// parallel_for: a DOALL loop over an iteration space, scheduled by a chunk
// policy on a master and workers that talk through a Transport (Boost.MPI),
// optionally gathering per-iteration results on the root rank.
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/runtime/load.hpp>
#include <loopsched/runtime/master.hpp>
#include <loopsched/runtime/worker.hpp>
#include <loopsched/schedule.hpp>
#include <loopsched/transport/mpi.hpp>
#include <loopsched/transport/transport.hpp>

#include <boost/mpi/communicator.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace loopsched {

struct parallel_for_options {
    int root = 0;                     ///< the master's rank
    bool master_computes = true;      ///< the master also runs chunks, between requests
    double poll_interval = 1e-4;      ///< seconds the computing master runs before serving requests
    std::size_t dimension = 0;        ///< the dimension the space is cut along
    std::vector<double> powers{};     ///< virtual power V of each rank (empty: all 1; see measure_powers)
    std::vector<double> run_queues{}; ///< run-queue length Q of each rank (empty: read from the OS)
    bool read_os_load = true;         ///< with run_queues empty: Q from /proc/stat, else Q = 1
    double request_ahead = 0.0;       ///< ask for the next chunk when this fraction of the current one remains (0: off)
    bool emulate_powers = false;      ///< rank k sleeps (V_max/V_k - 1) x its compute time after each chunk
    bool deterministic = false;       ///< same chunk-to-worker assignment on every run (see README)
    bool trace = false;               ///< record every chunk in loop_statistics::trace on the root
};

/// Asks parallel_for to gather `per_iteration` values of type R for each
/// iteration (each position along the cut dimension) on the root rank.
template <class R>
    requires std::is_trivially_copyable_v<R>
struct gather {
    std::size_t per_iteration = 1;
};

/// A loop's gathered results (filled on the root rank only, empty elsewhere;
/// values of iteration i at [i * per_iteration, (i + 1) * per_iteration)) and its statistics.
template <class R>
struct gathered {
    std::vector<R> values;
    loop_statistics statistics;
};

namespace detail {

inline void validate(parallel_for_options const& o, int ranks, std::size_t space_rank) {
    require(o.root >= 0 && o.root < ranks, "options.root", o.root, "must be a rank of the communicator");
    require(o.poll_interval > 0.0, "options.poll_interval", o.poll_interval, "must be > 0");
    require(o.dimension < space_rank, "options.dimension", o.dimension, "must be < the space's rank");
    require(o.request_ahead >= 0.0 && o.request_ahead < 1.0, "options.request_ahead", o.request_ahead,
            "must be in [0, 1)");
    // Names are built only for a failure: back-to-back short loops should not pay for strings.
    auto per_rank = [&](std::vector<double> const& v, char const* name, double least, char const* rule) {
        if (v.size() != static_cast<std::size_t>(ranks))
            require(false, "options." + std::string(name) + " count", v.size(), "must be 0 or the number of ranks");
        for (std::size_t r = 0; r < v.size(); ++r)
            if (!(v[r] >= least && (least > 0.0 || v[r] > 0.0)))
                require(false, "options." + std::string(name) + "[" + std::to_string(r) + "]", v[r], rule);
    };
    if (!o.powers.empty()) per_rank(o.powers, "powers", 0.0, "must be > 0");
    if (!o.run_queues.empty()) per_rank(o.run_queues, "run_queues", 1.0, "must be >= 1");
}

/// Who works and how each rank reports its load: the part of a loop's set-up
/// that DOALL and DOACROSS loops share.
struct rank_plan {
    runtime_settings settings;
    loop_info info;    ///< the policy's view: iterations, workers, their initial status
    rank_profile profile;
};

inline rank_plan plan_ranks(int ranks, int self, index_t iterations, parallel_for_options const& options) {
    rank_plan plan;
    auto& settings = plan.settings;
    // Who works: every rank, or every rank but the master; a lone rank works alone.
    bool const master_computes = options.master_computes || ranks == 1;
    settings.root = options.root;
    settings.poll_interval = options.poll_interval;
    settings.request_ahead = options.request_ahead;
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
    if (options.emulate_powers && !options.powers.empty())
        plan.profile.slowness = emulated_slowness(*std::ranges::max_element(options.powers) / plan.profile.power - 1.0);
    return plan;
}

/// Runs the loop on this rank; `execute(chunk, std::span<std::byte>)` runs
/// iterations and writes their results; `results` is the root's buffer.
template <Transport T, ChunkPolicy P, class Execute>
loop_statistics run_loop(T& transport, index_t iterations, P const& policy, Execute& execute,
                         std::size_t result_bytes, std::span<std::byte> results, parallel_for_options const& options) {
    auto plan = plan_ranks(transport.size(), transport.rank(), iterations, options);
    plan.settings.result_bytes = result_bytes;
    // Every rank checks the policy against the loop, so bad input fails everywhere
    // before any message is sent; the master's own sequencer does it there.
    if (transport.rank() != options.root) {
        validate(plan.info);
        (void)policy.start(plan.info);
    }

    if (transport.rank() == options.root) {
        master_engine<T, P, Execute> master(transport, policy, std::move(plan.info), plan.settings, plan.profile, execute,
                                            results);
        return master.run();
    }
    return run_worker(transport, plan.settings, plan.profile, execute);
}

} // namespace detail

/// Runs `body(part)` over every part of `space`, the parts sized by `policy`
/// and executed on the transport's ranks. Collective: every rank calls it with
/// the same arguments. Returns the loop's statistics on every rank (the trace
/// on the root only). If a body throws on any rank, every rank throws remote_error.
template <Transport T, IterationSpace S, ChunkPolicy P, class Body>
    requires std::invocable<Body&, S const&>
loop_statistics parallel_for(T& transport, S const& space, P const& policy, Body&& body,
                             parallel_for_options const& options = {}) {
    detail::validate(options, transport.size(), S::rank);
    auto execute = [&](chunk const& c, std::span<std::byte>) {
        body(space.slice(options.dimension, c.first, c.end()));
    };
    return detail::run_loop(transport, space.extent(options.dimension), policy, execute, 0, {}, options);
}

/// As above, and gathers results: `body(part, out)` writes `how.per_iteration`
/// values for each of part's positions along the cut dimension into `out`
/// (position-major). The values travel to the root with the worker's next request.
template <Transport T, IterationSpace S, ChunkPolicy P, class Body, class R>
    requires std::invocable<Body&, S const&, std::span<R>>
gathered<R> parallel_for(T& transport, S const& space, P const& policy, Body&& body, gather<R> how,
                         parallel_for_options const& options = {}) {
    detail::validate(options, transport.size(), S::rank);
    detail::require(how.per_iteration >= 1, "gather per_iteration", how.per_iteration, "must be >= 1");
    index_t const n = space.extent(options.dimension);
    detail::require(static_cast<double>(n) * static_cast<double>(how.per_iteration * sizeof(R)) <
                        static_cast<double>(std::numeric_limits<std::ptrdiff_t>::max()),
                    "gather per_iteration", how.per_iteration, "makes the result buffer too large");
    gathered<R> out;
    if (transport.rank() == options.root) out.values.resize(static_cast<std::size_t>(n) * how.per_iteration);
    auto execute = [&](chunk const& c, std::span<std::byte> bytes) {
        std::span<R> typed(reinterpret_cast<R*>(bytes.data()), static_cast<std::size_t>(c.size) * how.per_iteration);
        body(space.slice(options.dimension, c.first, c.end()), typed);
    };
    out.statistics = detail::run_loop(transport, n, policy, execute, how.per_iteration * sizeof(R),
                                      std::as_writable_bytes(std::span(out.values)), options);
    return out;
}

/// parallel_for over a Boost.MPI communicator (the world or any sub-communicator).
template <IterationSpace S, ChunkPolicy P, class Body>
    requires std::invocable<Body&, S const&>
loop_statistics parallel_for(boost::mpi::communicator const& comm, S const& space, P const& policy, Body&& body,
                             parallel_for_options const& options = {}) {
    mpi_transport transport(comm);
    return parallel_for(transport, space, policy, std::forward<Body>(body), options);
}

template <IterationSpace S, ChunkPolicy P, class Body, class R>
    requires std::invocable<Body&, S const&, std::span<R>>
gathered<R> parallel_for(boost::mpi::communicator const& comm, S const& space, P const& policy, Body&& body,
                         gather<R> how, parallel_for_options const& options = {}) {
    mpi_transport transport(comm);
    return parallel_for(transport, space, policy, std::forward<Body>(body), how, options);
}

/// measure_powers over a Boost.MPI communicator.
inline std::vector<double> measure_powers(boost::mpi::communicator const& comm, int root = 0) {
    mpi_transport transport(comm);
    return measure_powers(transport, root);
}

} // namespace loopsched
