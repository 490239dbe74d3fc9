// parallel_for over a Boost.MPI communicator (see algorithm/parallel_for.hpp).
// Header-only it is parallel_for over the communicator's channel; with
// loopsched::compiled (config.hpp) this header takes the arguments apart and
// calls the engine the library holds, without parsing the engines.
#pragma once

#include <loopsched/algorithm/doall_call.hpp>
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

#include <utility>

namespace loopsched {

#ifdef LOOPSCHED_COMPILED
namespace detail {
// The entry points over MPI loopsched::compiled holds (src/compiled_mpi.cpp):
// each calls the engine through the communicator's erased channel. A
// hierarchical loop's chunks go to whoever asks (its mapping is dynamic).
doall_run run_doall_over_mpi(boost::mpi::communicator const& comm, doall_call const& call,
                             any_policy const& policy, any_mapping const& mapping, chunk_body& run,
                                   parallel_for_options const& options);
doall_run run_doall_over_mpi(boost::mpi::communicator const& comm, doall_call const& call,
                             hierarchical<any_policy, any_policy> const& levels, any_mapping const& mapping,
                                   chunk_body& run, parallel_for_options const& options);
} // namespace detail
#endif

/// parallel_for over `comm`'s ranks, with the arguments of
/// algorithm/parallel_for.hpp's: parallel_for(comm, space, policy, [mapping,]
/// body [, gather<R>{k}] [, options]), or hierarchical{between, within} for the policy.
template <IterationSpace S, detail::loop_scheme Scheme, class... Args>
auto parallel_for(boost::mpi::communicator const& comm, S const& space, Scheme const& scheme, Args&&... args) {
#ifdef LOOPSCHED_COMPILED
    detail::doall_arguments<S, Scheme, Args...> a(space, comm.rank(), nullptr, std::forward<Args>(args)...);
    if constexpr (decltype(a)::pack::valid)
        detail::take_run(detail::run_doall_over_mpi(comm, a.call(), detail::erase_scheme(scheme),
                                                    any_mapping(a.mapping()), a.body(), a.options),
                         a.out);
    return std::move(a.out);
#else
    return parallel_for(mpi_channel(comm), space, scheme, std::forward<Args>(args)...);
#endif
}

} // namespace loopsched
