// parallel_for over a Boost.MPI communicator: DOALL loops with a policy, a
// mapping, gathered results or two levels (see algorithm/parallel_for.hpp).
// With loopsched::compiled (config.hpp) the engine comes compiled and this
// header only erases the arguments into it.
#pragma once

#include <loopsched/config.hpp>
#include <loopsched/outcome.hpp>
#include <loopsched/space/box.hpp>

#ifdef LOOPSCHED_COMPILED
#include <loopsched/any_policy.hpp>
#include <loopsched/hierarchical.hpp>
#include <loopsched/mapping/mapping.hpp>
#include <loopsched/options.hpp>
#include <loopsched/runtime/loops/doall_body.hpp>
#else
#include <loopsched/algorithm/parallel_for.hpp>
#include <loopsched/transport/mpi.hpp>
#endif

#include <boost/mpi/communicator.hpp>

#include <concepts>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace loopsched {
namespace detail {

#ifdef LOOPSCHED_COMPILED
// The engines loopsched::compiled holds (src/compiled_mpi.cpp), with the policy,
// the mapping and the body erased.
loop_statistics run_doall_over_mpi(boost::mpi::communicator const& comm, doall_call const& call,
                                   any_policy const& policy, any_mapping const& mapping, chunk_body& run,
                                   parallel_for_options const& options);
loop_statistics run_hierarchical_doall_over_mpi(boost::mpi::communicator const& comm, doall_call const& call,
                                                hierarchical<any_policy, any_policy> const& levels, chunk_body& run,
                                                parallel_for_options const& options);
#endif

/// A flat DOALL loop over MPI: the compiled engine with the policy and mapping
/// erased, or the engine instantiated for them here (header-only).
template <IterationSpace S, ChunkPolicy P, LoopMapping M, class Body, class R>
loop_statistics doall_over_mpi(boost::mpi::communicator const& comm, S const& space, P const& policy,
                               M const& mapping, Body& body, std::size_t per_iteration, std::vector<R>* values,
                               parallel_for_options const& o) {
#ifdef LOOPSCHED_COMPILED
    return detail::run_described<R>(space, body, per_iteration, values, o, comm.rank() == o.root,
                                    [&](doall_call const& call, chunk_body& run) {
                                        return run_doall_over_mpi(comm, call, erase_policy(policy),
                                                                  any_mapping(mapping), run, o);
                                    });
#else
    auto& ch = mpi_channel(comm);
    return detail::run_doall<channel<mpi_transport>, S, P, M, Body, R>(ch, space, policy, mapping, body,
                                                                        per_iteration, values, o);
#endif
}

/// A hierarchical DOALL loop over MPI, as doall_over_mpi.
template <IterationSpace S, ChunkPolicy B, ChunkPolicy W, class Body, class R>
loop_statistics hierarchical_doall_over_mpi(boost::mpi::communicator const& comm, S const& space,
                                            hierarchical<B, W> const& h, Body& body, std::size_t per_iteration,
                                            std::vector<R>* values, parallel_for_options const& o) {
#ifdef LOOPSCHED_COMPILED
    return detail::run_described<R>(space, body, per_iteration, values, o, comm.rank() == o.root,
                                    [&](doall_call const& call, chunk_body& run) {
                                        auto const levels =
                                                h.with_levels(erase_policy(h.between), erase_policy(h.within));
                                        return run_hierarchical_doall_over_mpi(comm, call, levels, run, o);
                                    });
#else
    auto& ch = mpi_channel(comm);
    return detail::run_hierarchical_doall<channel<mpi_transport>, S, B, W, Body, R>(ch, space, h, body,
                                                                                     per_iteration, values, o);
#endif
}

} // namespace detail

/// parallel_for over `comm`'s ranks (see algorithm/parallel_for.hpp).
template <IterationSpace S, ChunkPolicy P, LoopMapping M, class Body>
requires std::invocable<Body&, S const&> loop_statistics parallel_for(boost::mpi::communicator const& comm,
                                                                      S const& space, P const& policy, M const& mapping,
                                                                      Body&& body,
                                                                      parallel_for_options const& options = {}) {
    return detail::doall_over_mpi<S, P, M, std::remove_reference_t<Body>, void>(comm, space, policy, mapping, body, 0,
                                                                                nullptr, options);
}

template <IterationSpace S, ChunkPolicy P, class Body>
requires std::invocable<Body&, S const&> loop_statistics parallel_for(boost::mpi::communicator const& comm,
                                                                      S const& space, P const& policy, Body&& body,
                                                                      parallel_for_options const& options = {}) {
    return detail::doall_over_mpi<S, P, dynamic_mapping, std::remove_reference_t<Body>, void>(
            comm, space, policy, dynamic_mapping{}, body, 0, nullptr, options);
}

template <IterationSpace S, ChunkPolicy P, LoopMapping M, class Body, transferable R>
requires std::invocable<Body&, S const&, std::span<R>> gathered<R>
parallel_for(boost::mpi::communicator const& comm, S const& space, P const& policy, M const& mapping, Body&& body,
             gather<R> how, parallel_for_options const& options = {}) {
    gathered<R> out;
    out.statistics = detail::doall_over_mpi<S, P, M, std::remove_reference_t<Body>, R>(
            comm, space, policy, mapping, body, how.per_iteration, &out.value, options);
    return out;
}

template <IterationSpace S, ChunkPolicy P, class Body, transferable R>
requires std::invocable<Body&, S const&, std::span<R>> gathered<R>
parallel_for(boost::mpi::communicator const& comm, S const& space, P const& policy, Body&& body, gather<R> how,
             parallel_for_options const& options = {}) {
    return parallel_for(comm, space, policy, dynamic_mapping{}, std::forward<Body>(body), how, options);
}

template <IterationSpace S, ChunkPolicy B, ChunkPolicy W, class Body>
requires std::invocable<Body&, S const&> loop_statistics parallel_for(boost::mpi::communicator const& comm,
                                                                      S const& space, hierarchical<B, W> const& h,
                                                                      Body&& body,
                                                                      parallel_for_options const& options = {}) {
    return detail::hierarchical_doall_over_mpi<S, B, W, std::remove_reference_t<Body>, void>(comm, space, h, body, 0,
                                                                                             nullptr, options);
}

template <IterationSpace S, ChunkPolicy B, ChunkPolicy W, class Body, transferable R>
requires std::invocable<Body&, S const&, std::span<R>> gathered<R>
parallel_for(boost::mpi::communicator const& comm, S const& space, hierarchical<B, W> const& h, Body&& body,
             gather<R> how, parallel_for_options const& options = {}) {
    gathered<R> out;
    out.statistics = detail::hierarchical_doall_over_mpi<S, B, W, std::remove_reference_t<Body>, R>(
            comm, space, h, body, how.per_iteration, &out.value, options);
    return out;
}

} // namespace loopsched
