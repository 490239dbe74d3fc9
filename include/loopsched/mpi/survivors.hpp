// survivors(comm): the ranks of a communicator that have not failed, as the
// communicator the next loop runs on after a loop lost a rank.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/transport/ulfm.hpp>

#include <boost/mpi/communicator.hpp>
#include <mpi.h>

#include <string>

namespace loopsched {

/// Whether this build survives a failed rank: the MPI library has User-Level
/// Failure Mitigation (Open MPI 5 run with `mpirun --with-ft ulfm`, MPICH 4).
/// Without it a rank's failure ends the job, as MPI's default.
inline constexpr bool survives_failures = LOOPSCHED_ULFM != 0;

/// The ranks of `comm` that have not failed, in their order, as a new
/// communicator. Collective over them: every survivor calls it, and all agree
/// on who is left even if a rank fails during the call. After a loop whose
/// statistics name a lost rank (loop_statistics::lost), or that threw
/// rank_lost, the next loop runs on the survivors:
///
///     auto stats = parallel_for(comm, space, fss{}, body, options);
///     if (!stats.statistics.lost.empty()) comm = loopsched::survivors(comm);
///
/// A loop on a communicator with a failed rank throws rank_lost on every
/// survivor before any body runs. Without ULFM no rank can fail and survive:
/// the result is `comm` itself.
inline boost::mpi::communicator survivors(boost::mpi::communicator const& comm) {
#if LOOPSCHED_ULFM
    MPI_Comm shrunk = MPI_COMM_NULL;
    if (int const code = MPIX_Comm_shrink(static_cast<MPI_Comm>(comm), &shrunk); code != MPI_SUCCESS)
        throw error("loopsched: survivors: MPIX_Comm_shrink failed (error code " + std::to_string(code) + ")");
    return boost::mpi::communicator(shrunk, boost::mpi::comm_take_ownership);
#else
    return comm;
#endif
}

} // namespace loopsched
