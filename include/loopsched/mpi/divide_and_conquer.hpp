// divide_and_conquer over a Boost.MPI communicator (see algorithm/divide_and_conquer.hpp).
// With loopsched::compiled (config.hpp) the engine (the manager, the workers,
// the protocol core) comes compiled and this header instantiates only the
// recursion over the user's operations (runtime/tasks/dnc_recursion.hpp).
#pragma once

#include <loopsched/config.hpp>
#include <loopsched/divide_and_conquer_ops.hpp>

#ifdef LOOPSCHED_COMPILED
#include <loopsched/runtime/tasks/dnc_calls.hpp>
#include <loopsched/task_options.hpp>
#else
#include <loopsched/algorithm/divide_and_conquer.hpp>
#include <loopsched/transport/mpi.hpp>
#endif

#include <boost/mpi/communicator.hpp>

#include <type_traits>
#include <utility>

namespace loopsched {

#ifdef LOOPSCHED_COMPILED
namespace detail {
/// The engine loopsched::compiled holds (impl/compiled_mpi.ipp), with the user's
/// types erased; options.placement is parsed there.
dnc_run run_dnc_over_mpi(boost::mpi::communicator const& comm, dnc_calls const& calls,
                         dnc_options const& options);
} // namespace detail
#endif

/// Solves `problem` by divide and conquer on every rank of `comm` (see
/// algorithm/divide_and_conquer.hpp): `ops` says when a problem is small
/// enough to solve directly, how to divide it and how to combine the
/// sub-results; options.placement chooses where subproblems go (Kazouris's
/// scheme by default, work stealing, APRIL, D_LPT, ...). Collective: every rank
/// calls it; the result is on the root, the statistics on every rank.
template <class Problem, class Ops>
requires DivideAndConquer<std::remove_reference_t<Ops>, Problem> dnc_outcome<dnc_result_t<Ops, Problem>>
divide_and_conquer(boost::mpi::communicator const& comm, Problem const& problem, Ops&& ops,
                   dnc_options const& options = {}) {
#ifdef LOOPSCHED_COMPILED
    using Result = dnc_result_t<Ops, Problem>;
    dnc_outcome<Result> out;
    detail::take_dnc_run<Result>(
            detail::run_dnc_over_mpi(comm, detail::dnc_calls_for<Problem, Result>(problem, ops),
                                     options),
            comm.rank() == options.root, out);
    return out;
#else
    return divide_and_conquer(mpi_channel(comm), problem, std::forward<Ops>(ops), options);
#endif
}

} // namespace loopsched
