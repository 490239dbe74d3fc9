// loopsched::compiled, continued: the engines over MPI (loops, DOACROSS nests
// of depth 2 and 3, farms, divide and conquer), compiled once here for every
// program that links the target. Sanitized builds of our tests leave this file
// out: they run MPI programs header-only and nothing there calls these.
#include <loopsched/mpi/divide_and_conquer.hpp>
#include <loopsched/mpi/parallel_for.hpp>
#include <loopsched/mpi/parallel_for_doacross.hpp>
#include <loopsched/mpi/task_farm.hpp>

#include <loopsched/algorithm/parallel_for.hpp>
#include <loopsched/algorithm/parallel_for_doacross.hpp>
#include <loopsched/algorithm/task_farm.hpp>
#include <loopsched/placement_spec.hpp>
#include <loopsched/runtime/tasks/dnc_driver.hpp>
#include <loopsched/transport/mpi.hpp>

namespace loopsched::detail {

loop_statistics run_doall_over_mpi(boost::mpi::communicator const& comm, doall_call const& call,
                                   any_policy const& policy, any_mapping const& mapping, chunk_body& run,
                                   parallel_for_options const& options) {
    loop_link<mpi_transport> link(mpi_channel(comm));
    return run_doall_checked(link, call, policy, mapping, run, options);
}

loop_statistics run_hierarchical_doall_over_mpi(boost::mpi::communicator const& comm, doall_call const& call,
                                                hierarchical<any_policy, any_policy> const& levels, chunk_body& run,
                                                parallel_for_options const& options) {
    loop_link<mpi_transport> link(mpi_channel(comm));
    return run_hierarchical_checked(link, call, levels, run, options);
}

farm_run run_farm_over_mpi(boost::mpi::communicator const& comm, farm_calls const& calls, result_sink to_root,
                           task_farm_options const& options) {
    return run_farm_engine(mpi_channel(comm), calls, to_root, options,
                           resolve_choice(options.scheme, "options.scheme"));
}

dnc_run run_dnc_over_mpi(boost::mpi::communicator const& comm, dnc_calls const& calls,
                         dnc_options const& options) {
    loop_link<mpi_transport> link(mpi_channel(comm));
    return run_dnc_engine(link, calls, options, resolve_choice(options.placement, "options.placement"));
}

template <std::size_t N>
doacross_run run_doacross_over_mpi(boost::mpi::communicator const& comm, box<N> const& space,
                                   dependence_set<N> const& deps, any_policy const& policy, doacross_body<N>& body,
                                   doacross_options const& o, bool gather, std::exception_ptr earlier) {
    return run_doacross_engine(mpi_channel(comm), space, deps, policy, body, o, gather, earlier);
}
template <std::size_t N>
doacross_run run_tiled_over_mpi(boost::mpi::communicator const& comm, box<N> const& space,
                                dependence_set<N> const& deps, doacross_mapping const& mapping, doacross_body<N>& body,
                                doacross_options const& o, bool gather, std::exception_ptr earlier) {
    return run_tiled_engine(mpi_channel(comm), space, deps, mapping, body, o, gather, earlier);
}
template doacross_run run_doacross_over_mpi(boost::mpi::communicator const&, box<2> const&, dependence_set<2> const&,
                                            any_policy const&, doacross_body<2>&, doacross_options const&, bool,
                                            std::exception_ptr);
template doacross_run run_doacross_over_mpi(boost::mpi::communicator const&, box<3> const&, dependence_set<3> const&,
                                            any_policy const&, doacross_body<3>&, doacross_options const&, bool,
                                            std::exception_ptr);
template doacross_run run_tiled_over_mpi(boost::mpi::communicator const&, box<2> const&, dependence_set<2> const&,
                                         doacross_mapping const&, doacross_body<2>&, doacross_options const&, bool,
                                         std::exception_ptr);
template doacross_run run_tiled_over_mpi(boost::mpi::communicator const&, box<3> const&, dependence_set<3> const&,
                                         doacross_mapping const&, doacross_body<3>&, doacross_options const&, bool,
                                         std::exception_ptr);

} // namespace loopsched::detail
