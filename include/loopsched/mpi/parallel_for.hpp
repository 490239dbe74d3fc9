// parallel_for over a Boost.MPI communicator: DOALL loops with a policy, a
// mapping, gathered results or two levels (see algorithm/parallel_for.hpp).
#pragma once

#include <loopsched/algorithm/parallel_for.hpp>
#include <loopsched/space/box.hpp>
#include <loopsched/transport/mpi.hpp>

#include <boost/mpi/communicator.hpp>

#include <span>
#include <utility>

namespace loopsched {

template <IterationSpace S, ChunkPolicy P, Mapping M, class Body>
requires std::invocable<Body&, S const&> loop_statistics parallel_for(boost::mpi::communicator const& comm,
                                                                      S const& space, P const& policy, M const& mapping,
                                                                      Body&& body,
                                                                      parallel_for_options const& options = {}) {
    return parallel_for(mpi_channel(comm), space, policy, mapping, std::forward<Body>(body), options);
}

template <IterationSpace S, ChunkPolicy P, class Body>
requires std::invocable<Body&, S const&> loop_statistics parallel_for(boost::mpi::communicator const& comm,
                                                                      S const& space, P const& policy, Body&& body,
                                                                      parallel_for_options const& options = {}) {
    return parallel_for(mpi_channel(comm), space, policy, std::forward<Body>(body), options);
}

template <IterationSpace S, ChunkPolicy P, Mapping M, class Body, transferable R>
requires std::invocable<Body&, S const&, std::span<R>> gathered<R>
parallel_for(boost::mpi::communicator const& comm, S const& space, P const& policy, M const& mapping, Body&& body,
             gather<R> how, parallel_for_options const& options = {}) {
    return parallel_for(mpi_channel(comm), space, policy, mapping, std::forward<Body>(body), how, options);
}

template <IterationSpace S, ChunkPolicy P, class Body, transferable R>
requires std::invocable<Body&, S const&, std::span<R>> gathered<R>
parallel_for(boost::mpi::communicator const& comm, S const& space, P const& policy, Body&& body, gather<R> how,
             parallel_for_options const& options = {}) {
    return parallel_for(mpi_channel(comm), space, policy, std::forward<Body>(body), how, options);
}

template <IterationSpace S, ChunkPolicy B, ChunkPolicy W, class Body>
requires std::invocable<Body&, S const&> loop_statistics parallel_for(boost::mpi::communicator const& comm,
                                                                      S const& space, hierarchical<B, W> const& h,
                                                                      Body&& body,
                                                                      parallel_for_options const& options = {}) {
    return parallel_for(mpi_channel(comm), space, h, std::forward<Body>(body), options);
}

template <IterationSpace S, ChunkPolicy B, ChunkPolicy W, class Body, transferable R>
requires std::invocable<Body&, S const&, std::span<R>> gathered<R>
parallel_for(boost::mpi::communicator const& comm, S const& space, hierarchical<B, W> const& h, Body&& body,
             gather<R> how, parallel_for_options const& options = {}) {
    return parallel_for(mpi_channel(comm), space, h, std::forward<Body>(body), how, options);
}

} // namespace loopsched
