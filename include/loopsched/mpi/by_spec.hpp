// parallel_for and parallel_for_doacross over a Boost.MPI communicator with the
// policy given as its spec string, parsed inside the loop on every rank; this
// header brings the spec parser and its catalogue (see algorithm/by_spec.hpp).
#pragma once

#include <loopsched/algorithm/by_spec.hpp>
#include <loopsched/mpi/parallel_for.hpp>
#include <loopsched/transport/mpi.hpp>

#include <boost/mpi/communicator.hpp>

#include <cstddef>
#include <span>
#include <string_view>
#include <utility>

namespace loopsched {

/// parallel_for with the policy's spec, parsed inside the loop on every rank (see algorithm/by_spec.hpp).
/// parallel_for over `comm` with the policy as a spec string ("dtss",
/// "w-fss", "fss/af" for a hierarchy), parsed on every rank inside the loop, so
/// a bad spec is the same spec_error on every rank; the rest as for a policy value.
///
///     auto [y, stats] = parallel_for(world, make_range(n), "gss:min=4", body, gather<double>{});
template <IterationSpace S, class... Args>
auto parallel_for(boost::mpi::communicator const& comm, S const& space, std::string_view spec, Args&&... args) {
    auto [policy, earlier] = detail::parse_on_this_rank(spec);
    detail::doall_arguments<S, any_policy, Args...> a(space, comm.rank(), earlier, std::forward<Args>(args)...);
    if constexpr (decltype(a)::pack::valid) {
#ifdef LOOPSCHED_COMPILED
        detail::take_run(detail::run_doall_over_mpi(comm, a.call(), policy, any_mapping(a.mapping()), a.body(),
                                                    a.options),
                         a.out);
#else
        detail::take_run(detail::run_doall_on(mpi_channel(comm), a.call(), policy, a.mapping(), a.body(), a.options),
                         a.out);
#endif
    }
    return std::move(a.out);
}

/// parallel_for_doacross over `comm` with the policy as a spec string
/// ("s-tss:h=auto", "sw-gss", "dmps-css:h=100"), parsed on every rank inside
/// the loop; the rest as for a policy value.
template <std::size_t N, DependenceSet D, class... Args>
requires(sizeof...(Args) >= 2) auto parallel_for_doacross(boost::mpi::communicator const& comm, box<N> const& space,
                                                          D const& deps, std::string_view spec, Args&&... args) {
    auto [policy, earlier] = detail::parse_on_this_rank(spec);
    detail::doacross_arguments<N, D, any_policy, Args...> a(deps, earlier, std::forward<Args>(args)...);
    if constexpr (decltype(a)::valid)
        detail::take_run(detail::run_doacross_on(mpi_channel(comm), space, a.deps(), policy, a.body(), a.options,
                                                 a.gathers, a.earlier()),
                         a.out);
    return std::move(a.out);
}

} // namespace loopsched
