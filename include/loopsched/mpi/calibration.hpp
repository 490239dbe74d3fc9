// measure_powers over a Boost.MPI communicator: each rank's relative speed,
// timed on every rank alike, for options.powers.
#pragma once

#include <loopsched/runtime/core/calibration.hpp>
#include <loopsched/transport/mpi.hpp>

#include <boost/mpi/communicator.hpp>

#include <vector>

namespace loopsched {

inline std::vector<double> measure_powers(boost::mpi::communicator const& comm, int root = 0) {
    return measure_powers(mpi_channel(comm), root);
}

} // namespace loopsched
