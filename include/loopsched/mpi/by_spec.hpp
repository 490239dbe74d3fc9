// parallel_for and parallel_for_doacross over a Boost.MPI communicator with the
// policy given as its spec string, parsed inside the loop on every rank; this
// header brings the spec parser and its catalogue (see algorithm/by_spec.hpp).
#pragma once

#include <loopsched/algorithm/by_spec.hpp>
#include <loopsched/transport/mpi.hpp>

#include <boost/mpi/communicator.hpp>

#include <cstddef>
#include <span>
#include <string_view>
#include <utility>

namespace loopsched {

/// parallel_for with the policy's spec, parsed inside the loop on every rank (see by_spec.hpp).
template <IterationSpace S, class Body>
requires std::invocable<Body&, S const&> loop_statistics parallel_for(boost::mpi::communicator const& comm,
                                                                      S const& space, std::string_view spec,
                                                                      Body&& body,
                                                                      parallel_for_options const& options = {}) {
    return parallel_for(mpi_channel(comm), space, spec, std::forward<Body>(body), options);
}

template <IterationSpace S, class Body, transferable R>
requires std::invocable<Body&, S const&, std::span<R>> gathered<R>
parallel_for(boost::mpi::communicator const& comm, S const& space, std::string_view spec, Body&& body, gather<R> how,
             parallel_for_options const& options = {}) {
    return parallel_for(mpi_channel(comm), space, spec, std::forward<Body>(body), how, options);
}

template <std::size_t N, DependenceSet D, class... Args>
requires(sizeof...(Args) >= 2) auto parallel_for_doacross(boost::mpi::communicator const& comm, box<N> const& space,
                                                          D const& deps, std::string_view spec, Args&&... args) {
    return parallel_for_doacross(mpi_channel(comm), space, deps, spec, std::forward<Args>(args)...);
}

} // namespace loopsched
