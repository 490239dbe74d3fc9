// parallel_for_doacross over a Boost.MPI communicator, self-scheduled or by a
// static tile mapping (see algorithm/parallel_for_doacross.hpp).
#pragma once

#include <loopsched/algorithm/parallel_for_doacross.hpp>
#include <loopsched/transport/mpi.hpp>

#include <boost/mpi/communicator.hpp>

#include <cstddef>
#include <utility>

namespace loopsched {

template <std::size_t N, DependenceSet D, ChunkPolicy P, class... Args>
requires(sizeof...(Args) >= 2) auto parallel_for_doacross(boost::mpi::communicator const& comm, box<N> const& space,
                                                          D const& deps, P const& policy, Args&&... args) {
    return parallel_for_doacross(mpi_channel(comm), space, deps, policy, std::forward<Args>(args)...);
}

template <std::size_t N, DependenceSet D, class... Args>
requires(sizeof...(Args) >= 2) auto parallel_for_doacross(boost::mpi::communicator const& comm, box<N> const& space,
                                                          D const& deps, doacross_mapping const& mapping,
                                                          Args&&... args) {
    return parallel_for_doacross(mpi_channel(comm), space, deps, mapping, std::forward<Args>(args)...);
}

} // namespace loopsched
