// parallel_for_doacross over a Boost.MPI communicator, self-scheduled or by a
// static tile mapping (see algorithm/parallel_for_doacross.hpp). With
// loopsched::compiled (config.hpp) the engines come compiled for nests of
// depth 2 and 3 and this header only erases the arguments into them.
#pragma once

#include <loopsched/config.hpp>

#ifdef LOOPSCHED_COMPILED
#include <loopsched/algorithm/doacross_call.hpp>
#else
#include <loopsched/algorithm/parallel_for_doacross.hpp>
#include <loopsched/transport/mpi.hpp>
#endif

#include <boost/mpi/communicator.hpp>

#include <cstddef>
#include <exception>
#include <utility>

namespace loopsched {
namespace detail {

#ifdef LOOPSCHED_COMPILED
// The entry points over MPI loopsched::compiled holds (impl/compiled_mpi.ipp),
// for nests of depth 2 and 3: self-scheduled, or tiled by a doacross_mapping.
template <std::size_t N>
doacross_run run_doacross_over_mpi(boost::mpi::communicator const& comm, box<N> const& space,
                                   dependence_set<N> const& deps, any_policy const& policy, doacross_body<N>& body,
                                   doacross_options const& o, bool gather, std::exception_ptr earlier);
template <std::size_t N>
doacross_run run_doacross_over_mpi(boost::mpi::communicator const& comm, box<N> const& space,
                                   dependence_set<N> const& deps, doacross_mapping const& mapping,
                                   doacross_body<N>& body, doacross_options const& o, bool gather,
                                   std::exception_ptr earlier);

template <std::size_t N>
inline constexpr bool compiled_over_mpi = N == 2 || N == 3;
#else
/// Header-only, the same over the communicator's channel. P: the policy erased, or a doacross_mapping.
template <std::size_t N, class P>
doacross_run run_doacross_over_mpi(boost::mpi::communicator const& comm, box<N> const& space,
                                   dependence_set<N> const& deps, P const& scheme, doacross_body<N>& body,
                                   doacross_options const& o, bool gather, std::exception_ptr earlier) {
    return run_doacross_on(mpi_channel(comm), space, deps, scheme, body, o, gather, std::move(earlier));
}

template <std::size_t N>
inline constexpr bool compiled_over_mpi = true;
#endif

} // namespace detail

/// Runs a DOACROSS loop nest over `space` on every rank of `comm`, pipelined
/// by an S-adapted policy (see algorithm/parallel_for_doacross.hpp for the
/// arguments):
///
///     parallel_for_doacross(comm, space, deps, policy, fields..., body [, gather<>{}] [, options])
///
///     auto r = parallel_for_doacross(world, box<2>::from_extents({rows, cols}), uniform<vec{1, 0}, vec{0, 1}>{},
///                                    synchronized(tss{}, sync_interval::automatic()),
///                                    make_field<double>(initial), body, gather<>{});
///
/// With loopsched::compiled, nests of depth 2 and 3 (deeper ones: build header-only).
template <std::size_t N, DependenceSet D, ChunkPolicy P, class... Args>
requires(sizeof...(Args) >= 2) auto parallel_for_doacross(boost::mpi::communicator const& comm, box<N> const& space,
                                                          D const& deps, P const& policy, Args&&... args) {
    static_assert(N < 2 || detail::compiled_over_mpi<N>,
                  "parallel_for_doacross with loopsched::compiled: the library holds the engines for loop nests of "
                  "depth 2 and 3; for a deeper nest, build header-only (link loopsched::loopsched)");
    detail::doacross_arguments<N, D, P, Args...> a(deps, nullptr, std::forward<Args>(args)...);
    if constexpr (decltype(a)::valid && detail::compiled_over_mpi<N>)
        detail::take_run(detail::run_doacross_over_mpi(comm, space, a.deps(), detail::erase_policy(policy),
                                                       a.body(), a.options, a.gathers, a.earlier()),
                         a.out);
    return std::move(a.out);
}

/// The same loop without a master: tiles placed ahead of time by a
/// doacross_mapping (SDS, or chains mapped cyclic, CPS or ACS; Ciorba), each
/// rank exchanging halos with the owners of its tiles' neighbours.
template <std::size_t N, DependenceSet D, class... Args>
requires(sizeof...(Args) >= 2) auto parallel_for_doacross(boost::mpi::communicator const& comm, box<N> const& space,
                                                          D const& deps, doacross_mapping const& mapping,
                                                          Args&&... args) {
    static_assert(N < 2 || detail::compiled_over_mpi<N>,
                  "parallel_for_doacross with loopsched::compiled: the library holds the engines for loop nests of "
                  "depth 2 and 3; for a deeper nest, build header-only (link loopsched::loopsched)");
    detail::doacross_arguments<N, D, doacross_mapping, Args...> a(deps, nullptr, std::forward<Args>(args)...);
    if constexpr (decltype(a)::valid && detail::compiled_over_mpi<N>)
        detail::take_run(detail::run_doacross_over_mpi(comm, space, a.deps(), mapping, a.body(), a.options,
                                                       a.gathers, a.earlier()),
                         a.out);
    return std::move(a.out);
}

} // namespace loopsched
