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
// The entry points over MPI loopsched::compiled holds (impl/compiled_mpi.ipp):
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

/// Runs a self-scheduled loop over `space` on every rank of `comm`. Collective:
/// every rank calls it with the same arguments (checked before any body runs).
///
///     parallel_for(comm, space, policy [, mapping], body [, gather<R>{k}] [, options])
///
/// - space: an IterationSpace, e.g. make_range(n) or a box<N>;
/// - policy: a ChunkPolicy value (`fss{}`, `weighted(tss{})`), or
///   hierarchical{between, within} for sub-masters between the root and the workers;
/// - mapping: dynamic_mapping{} (the default), static_block_mapping{},
///   static_cyclic_mapping{}, or any LoopMapping;
/// - body(part) or, with gather<R>{k}, body(part, std::span<R> out), writing k
///   values per iteration of `part`;
/// - options: parallel_for_options.
///
/// Returns outcome<std::vector<R>> with the gathered values on the root (in
/// iteration order) and the statistics on every rank; outcome<void> without
/// gather. A body that throws on one rank makes every rank throw remote_error.
///
///     auto [y, stats] = parallel_for(world, make_range(n), fss{},
///                                    [](index_range const& part, std::span<double> out) { ... },
///                                    gather<double>{});
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
