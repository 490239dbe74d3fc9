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
/// The farm entry point over MPI loopsched::compiled holds
/// (impl/compiled_mpi.ipp): the engine through the communicator's erased
/// channel, with options.placement parsed there.
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
    detail::farm_seams<Task, std::remove_reference_t<Produce>, std::remove_reference_t<Body>> seams(produce, body);
    return seams.outcome(detail::run_farm_over_mpi(comm, seams.calls(), seams.sink(), options));
#else
    return task_farm<Task>(mpi_channel(comm), std::forward<Produce>(produce), std::forward<Body>(body), options);
#endif
}

} // namespace loopsched
