// parallel_for: a DOALL loop over an iteration space, scheduled by a chunk
// policy on a master and workers that talk through a Transport (Boost.MPI).
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/runtime/master.hpp>
#include <loopsched/runtime/worker.hpp>
#include <loopsched/schedule.hpp>
#include <loopsched/transport/mpi.hpp>
#include <loopsched/transport/transport.hpp>

#include <boost/mpi/communicator.hpp>

#include <concepts>
#include <string>
#include <vector>

namespace loopsched {

struct parallel_for_options {
    int root = 0;                 ///< the master's rank
    bool master_computes = true;  ///< the master also runs chunks, between requests
    double poll_interval = 1e-4;  ///< seconds the computing master runs before serving requests
    std::size_t dimension = 0;    ///< the dimension the space is cut along
    std::vector<double> powers{}; ///< virtual power V of each rank (empty: all 1)
};

namespace detail {

inline void validate(parallel_for_options const& o, int ranks, std::size_t space_rank) {
    require(o.root >= 0 && o.root < ranks, "options.root", o.root, "must be a rank of the communicator");
    require(o.poll_interval > 0.0, "options.poll_interval", o.poll_interval, "must be > 0");
    require(o.dimension < space_rank, "options.dimension", o.dimension, "must be < the space's rank");
    require(o.powers.empty() || o.powers.size() == static_cast<std::size_t>(ranks), "options.powers count",
            o.powers.size(), "must equal the number of ranks");
    for (std::size_t r = 0; r < o.powers.size(); ++r)
        require(o.powers[r] > 0.0, "options.powers[" + std::to_string(r) + "]", o.powers[r], "must be > 0");
}

} // namespace detail

/// Runs `body(sub_space)` over every part of `space`, the parts sized by
/// `policy` and executed on the transport's ranks. Collective: every rank calls
/// it with the same arguments. Returns the loop's statistics on every rank.
/// If a body throws on any rank, every rank throws remote_error.
template <Transport T, IterationSpace S, ChunkPolicy P, class Body>
    requires std::invocable<Body&, S const&>
loop_statistics parallel_for(T& transport, S const& space, P const& policy, Body&& body,
                             parallel_for_options const& options = {}) {
    int const ranks = transport.size(), self = transport.rank();
    detail::validate(options, ranks, S::rank);

    // Who works: every rank, or every rank but the master; a lone rank works alone.
    bool const master_computes = options.master_computes || ranks == 1;
    detail::master_settings settings;
    settings.poll_interval = options.poll_interval;
    loop_info info{space.extent(options.dimension), 0, {}};
    for (int r = 0; r < ranks; ++r) {
        if (r == options.root && !master_computes) continue;
        if (r == options.root) settings.own_index = static_cast<int>(settings.worker_ranks.size());
        settings.worker_ranks.push_back(r);
        info.status.push_back(worker_status{options.powers.empty() ? 1.0 : options.powers[static_cast<std::size_t>(r)], 1.0});
    }
    info.workers = settings.worker_ranks.size();
    // Every rank checks the policy against the loop, so bad input fails everywhere
    // before any message is sent.
    (void)chunk_sequencer<P>(policy, info);

    auto execute = [&](chunk const& c) { body(space.slice(options.dimension, c.first, c.end())); };
    if (self == options.root) {
        if (settings.own_index >= 0) settings.own_status = info.status[static_cast<std::size_t>(settings.own_index)];
        detail::master_engine<T, P, decltype(execute)> master(transport, policy, std::move(info), std::move(settings), execute);
        return master.run();
    }
    worker_status mine{options.powers.empty() ? 1.0 : options.powers[static_cast<std::size_t>(self)], 1.0};
    return detail::run_worker(transport, options.root, mine, execute);
}

/// parallel_for over a Boost.MPI communicator (the world or any sub-communicator).
template <IterationSpace S, ChunkPolicy P, class Body>
    requires std::invocable<Body&, S const&>
loop_statistics parallel_for(boost::mpi::communicator const& comm, S const& space, P const& policy, Body&& body,
                             parallel_for_options const& options = {}) {
    mpi_transport transport(comm);
    return parallel_for(transport, space, policy, std::forward<Body>(body), options);
}

} // namespace loopsched
