// task_farm over a Boost.MPI communicator (see algorithm/task_farm.hpp). With
// loopsched::compiled (config.hpp) the engine comes compiled and this header
// only erases the body, the producer and the results' delivery into it.
#pragma once

#include <loopsched/config.hpp>
#include <loopsched/outcome.hpp>

#ifdef LOOPSCHED_COMPILED
#include <loopsched/runtime/tasks/farm_calls.hpp>
#include <loopsched/task_options.hpp>
#else
#include <loopsched/algorithm/task_farm.hpp>
#include <loopsched/transport/mpi.hpp>
#endif

#include <boost/mpi/communicator.hpp>

#include <concepts>
#include <type_traits>
#include <utility>

namespace loopsched {

#ifdef LOOPSCHED_COMPILED
namespace detail {
/// The farm engine loopsched::compiled holds (src/compiled_mpi.cpp), with the
/// body, the producer and the delivery erased; options.scheme is parsed there.
farm_run run_farm_over_mpi(boost::mpi::communicator const& comm, farm_calls const& calls, result_sink to_root,
                           task_farm_options const& options);
} // namespace detail
#endif

/// task_farm over `comm`'s ranks (see algorithm/task_farm.hpp).
template <transferable Task, class Produce, class Body>
requires std::invocable<Body&, Task const&> &&
        std::invocable<Produce&, task_farm_handle<Task, farm_result_t<Body, Task>>&>
farm_outcome<farm_result_t<Body, Task>> task_farm(boost::mpi::communicator const& comm, Produce&& produce,
                                                  Body&& body, task_farm_options const& options = {}) {
#ifdef LOOPSCHED_COMPILED
    farm_outcome<farm_result_t<Body, Task>> out;
    detail::run_task_farm<Task>(
            produce, body,
            [&](detail::farm_calls const& calls, auto& handle) {
                return detail::run_farm_over_mpi(comm, calls, detail::result_sink::to(handle), options);
            },
            out);
    return out;
#else
    return task_farm<Task>(mpi_channel(comm), std::forward<Produce>(produce), std::forward<Body>(body), options);
#endif
}

} // namespace loopsched
