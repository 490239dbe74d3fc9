// The algorithms over a Boost.MPI communicator (the world or any
// sub-communicator). Each runs over the library's own duplicate of the
// communicator, made at its first loop and kept with it, so no user message
// reaches a loop and nothing of one loop reaches another.
#pragma once

#include <loopsched/algorithm/by_spec.hpp>
#include <loopsched/algorithm/divide_and_conquer.hpp>
#include <loopsched/algorithm/parallel_for.hpp>
#include <loopsched/algorithm/parallel_for_doacross.hpp>
#include <loopsched/algorithm/task_farm.hpp>
#include <loopsched/runtime/core/calibration.hpp>
#include <loopsched/transport/mpi.hpp>

#include <boost/mpi/communicator.hpp>

#include <span>
#include <string_view>
#include <utility>
#include <vector>

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

template <transferable Task, class Produce, class Body>
requires std::invocable<Body&, Task const&> && std::invocable < Produce&,
        task_farm_handle<Task, farm_result_t<Body, Task>>
& > farm_outcome<farm_result_t<Body, Task>> task_farm(boost::mpi::communicator const& comm, Produce&& produce,
                                                      Body&& body, task_farm_options const& options = {}) {
    return task_farm<Task>(mpi_channel(comm), std::forward<Produce>(produce), std::forward<Body>(body), options);
}

template <class Problem, class Ops>
requires DivideAndConquer<std::remove_reference_t<Ops>, Problem> dnc_outcome<dnc_result_t<Ops, Problem>>
divide_and_conquer(boost::mpi::communicator const& comm, Problem const& problem, Ops&& ops,
                   dnc_options const& options = {}) {
    return divide_and_conquer(mpi_channel(comm), problem, std::forward<Ops>(ops), options);
}

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

inline std::vector<double> measure_powers(boost::mpi::communicator const& comm, int root = 0) {
    return measure_powers(mpi_channel(comm), root);
}

} // namespace loopsched
