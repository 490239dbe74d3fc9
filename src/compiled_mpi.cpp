// loopsched::compiled, continued: the entry points over MPI (the mpi/ headers
// declare them by communicator) into the engines of src/compiled_engines.cpp.
#include "compiled_engines.hpp"

#include <loopsched/mpi/divide_and_conquer.hpp>
#include <loopsched/mpi/parallel_for.hpp>
#include <loopsched/mpi/parallel_for_doacross.hpp>
#include <loopsched/mpi/task_farm.hpp>
#include <loopsched/placement_spec.hpp>
#include <loopsched/transport/mpi.hpp>

namespace loopsched::detail {

loop_statistics run_doall_over_mpi(boost::mpi::communicator const& comm, doall_call const& call,
                                   any_policy const& policy, any_mapping const& mapping, chunk_body& run,
                                   parallel_for_options const& options) {
    return run_compiled_doall(mpi_channel(comm), call, policy, mapping, run, options);
}

loop_statistics run_hierarchical_doall_over_mpi(boost::mpi::communicator const& comm, doall_call const& call,
                                                hierarchical<any_policy, any_policy> const& levels, chunk_body& run,
                                                parallel_for_options const& options) {
    return run_compiled_hierarchical_doall(mpi_channel(comm), call, levels, run, options);
}

farm_run run_farm_over_mpi(boost::mpi::communicator const& comm, farm_calls const& calls, result_sink to_root,
                           task_farm_options const& options) {
    return run_compiled_farm(mpi_channel(comm), calls, to_root, options,
                             resolve_choice(options.scheme, "options.scheme"));
}

dnc_run run_dnc_over_mpi(boost::mpi::communicator const& comm, dnc_calls const& calls, dnc_options const& options) {
    return run_compiled_dnc(mpi_channel(comm), calls, options, resolve_choice(options.placement, "options.placement"));
}

template <std::size_t N>
doacross_run run_doacross_over_mpi(boost::mpi::communicator const& comm, box<N> const& space,
                                   dependence_set<N> const& deps, any_policy const& policy, doacross_body<N>& body,
                                   doacross_options const& o, bool gather, std::exception_ptr earlier) {
    return run_compiled_doacross(mpi_channel(comm), space, deps, policy, body, o, gather, earlier);
}
template <std::size_t N>
doacross_run run_tiled_over_mpi(boost::mpi::communicator const& comm, box<N> const& space,
                                dependence_set<N> const& deps, doacross_mapping const& mapping, doacross_body<N>& body,
                                doacross_options const& o, bool gather, std::exception_ptr earlier) {
    return run_compiled_tiled(mpi_channel(comm), space, deps, mapping, body, o, gather, earlier);
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
