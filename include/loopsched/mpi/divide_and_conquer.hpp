// divide_and_conquer over a Boost.MPI communicator (see algorithm/divide_and_conquer.hpp).
#pragma once

#include <loopsched/algorithm/divide_and_conquer.hpp>
#include <loopsched/transport/mpi.hpp>

#include <boost/mpi/communicator.hpp>

#include <type_traits>
#include <utility>

namespace loopsched {

template <class Problem, class Ops>
requires DivideAndConquer<std::remove_reference_t<Ops>, Problem> dnc_outcome<dnc_result_t<Ops, Problem>>
divide_and_conquer(boost::mpi::communicator const& comm, Problem const& problem, Ops&& ops,
                   dnc_options const& options = {}) {
    return divide_and_conquer(mpi_channel(comm), problem, std::forward<Ops>(ops), options);
}

} // namespace loopsched
