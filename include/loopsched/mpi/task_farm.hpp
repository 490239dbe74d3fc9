// task_farm over a Boost.MPI communicator (see algorithm/task_farm.hpp).
#pragma once

#include <loopsched/algorithm/task_farm.hpp>
#include <loopsched/transport/mpi.hpp>

#include <boost/mpi/communicator.hpp>

#include <type_traits>
#include <utility>

namespace loopsched {

template <transferable Task, class Produce, class Body>
requires std::invocable<Body&, Task const&> && std::invocable < Produce&,
        task_farm_handle<Task, farm_result_t<Body, Task>>
& > farm_outcome<farm_result_t<Body, Task>> task_farm(boost::mpi::communicator const& comm, Produce&& produce,
                                                      Body&& body, task_farm_options const& options = {}) {
    return task_farm<Task>(mpi_channel(comm), std::forward<Produce>(produce), std::forward<Body>(body), options);
}

} // namespace loopsched
