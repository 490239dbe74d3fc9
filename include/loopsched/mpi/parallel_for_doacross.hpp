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
// The engines loopsched::compiled holds (src/compiled_mpi.cpp), N = 2 and 3.
template <std::size_t N>
doacross_run run_doacross_over_mpi(boost::mpi::communicator const& comm, box<N> const& space,
                                   dependence_set<N> const& deps, any_policy const& policy, doacross_body<N>& body,
                                   doacross_options const& o, bool gather, std::exception_ptr earlier);
template <std::size_t N>
doacross_run run_tiled_over_mpi(boost::mpi::communicator const& comm, box<N> const& space,
                                dependence_set<N> const& deps, doacross_mapping const& mapping, doacross_body<N>& body,
                                doacross_options const& o, bool gather, std::exception_ptr earlier);

/// The compiled DOACROSS engines over a communicator.
struct mpi_doacross_engines {
    boost::mpi::communicator const& comm;

    template <std::size_t N>
    doacross_run self_scheduled(box<N> const& space, dependence_set<N> const& deps, any_policy const& policy,
                                doacross_body<N>& body, doacross_options const& o, bool gather,
                                std::exception_ptr earlier) const {
        return run_doacross_over_mpi(comm, space, deps, policy, body, o, gather, earlier);
    }
    template <std::size_t N>
    doacross_run tiled(box<N> const& space, dependence_set<N> const& deps, doacross_mapping const& mapping,
                       doacross_body<N>& body, doacross_options const& o, bool gather,
                       std::exception_ptr earlier) const {
        return run_tiled_over_mpi(comm, space, deps, mapping, body, o, gather, earlier);
    }
};

template <std::size_t N>
inline constexpr bool compiled_over_mpi = N == 2 || N == 3;
#endif

/// The engines parallel_for_doacross over `comm` runs on.
template <std::size_t N>
auto doacross_engines_over(boost::mpi::communicator const& comm) {
#ifdef LOOPSCHED_COMPILED
    static_assert(N < 2 || compiled_over_mpi<N>,
                  "parallel_for_doacross with loopsched::compiled: the library holds the engines for loop nests of "
                  "depth 2 and 3; for a deeper nest, build header-only (link loopsched::loopsched)");
    return mpi_doacross_engines{comm};
#else
    return channel_doacross_engines<channel<mpi_transport>>{mpi_channel(comm)};
#endif
}

} // namespace detail

template <std::size_t N, DependenceSet D, ChunkPolicy P, class... Args>
requires(sizeof...(Args) >= 2) auto parallel_for_doacross(boost::mpi::communicator const& comm, box<N> const& space,
                                                          D const& deps, P const& policy, Args&&... args) {
    return detail::doacross_with(detail::doacross_engines_over<N>(comm), space, deps, policy, nullptr,
                                 std::forward<Args>(args)...);
}

template <std::size_t N, DependenceSet D, class... Args>
requires(sizeof...(Args) >= 2) auto parallel_for_doacross(boost::mpi::communicator const& comm, box<N> const& space,
                                                          D const& deps, doacross_mapping const& mapping,
                                                          Args&&... args) {
    return detail::doacross_with(detail::doacross_engines_over<N>(comm), space, deps, mapping, nullptr,
                                 std::forward<Args>(args)...);
}

} // namespace loopsched
