// measure_powers over a Boost.MPI communicator: each rank's relative speed,
// timed on every rank alike, for options.powers.
#pragma once

#include <loopsched/runtime/core/calibration.hpp>
#include <loopsched/transport/mpi.hpp>

#include <boost/mpi/communicator.hpp>

#include <vector>

namespace loopsched {

/// Each rank's virtual power V_k, for parallel_for_options::powers: every rank
/// times the same short probe, and `root` gathers the times and sends every
/// rank V_k = (slowest probe time) / (rank k's), so the slowest rank has V = 1
/// (Chronopoulos et al.'s definition). Collective; the powers on every rank.
///
///     parallel_for_options o;
///     o.powers = measure_powers(world);
inline std::vector<double> measure_powers(boost::mpi::communicator const& comm, int root = 0) {
    return measure_powers(mpi_channel(comm), root);
}

} // namespace loopsched
