// The separately compiled library, part 3: the entry points over MPI (the mpi/ headers
// declare them by communicator, so that a program's translation units parse
// neither the engines nor the MPI transport), each calling its engine
// (impl/compiled_engines.ipp) through the communicator's erased channel.
#pragma once

#include <loopsched/mpi/divide_and_conquer.hpp>
#include <loopsched/mpi/parallel_for.hpp>
#include <loopsched/mpi/parallel_for_doacross.hpp>
#include <loopsched/mpi/task_farm.hpp>
#include <loopsched/placement_spec.hpp>
#include <loopsched/runtime/doacross/compiled.hpp>
#include <loopsched/runtime/loops/compiled.hpp>
#include <loopsched/runtime/tasks/compiled.hpp>
#include <loopsched/transport/mpi.hpp>

#include <tuple>

namespace loopsched::detail {

doall_run run_doall_over_mpi(boost::mpi::communicator const& comm, doall_call const& call,
                             any_policy const& policy, any_mapping const& mapping, chunk_body& run,
                                   parallel_for_options const& options) {
    erased_channel<mpi_transport> erased(mpi_channel(comm));
    return run_erased_doall(erased.get(), call, policy, mapping, run, options);
}

doall_run run_doall_over_mpi(boost::mpi::communicator const& comm, doall_call const& call,
                             hierarchical<any_policy, any_policy> const& levels, any_mapping const&,
                                   chunk_body& run, parallel_for_options const& options) {
    erased_channel<mpi_transport> erased(mpi_channel(comm));
    return run_erased_hierarchical_doall(erased.get(), call, levels, run, options);
}

farm_run run_farm_over_mpi(boost::mpi::communicator const& comm, farm_calls const& calls, result_sink to_root,
                           task_farm_options const& options) {
    erased_channel<mpi_transport> erased(mpi_channel(comm));
    return run_erased_farm(erased.get(), calls, to_root, options,
                           std::apply(resolve_choice, chosen_placement(options)));
}

dnc_run run_dnc_over_mpi(boost::mpi::communicator const& comm, dnc_calls const& calls, dnc_options const& options) {
    erased_channel<mpi_transport> erased(mpi_channel(comm));
    return run_erased_dnc(erased.get(), calls, options, resolve_choice(options.placement, "options.placement"));
}

template <std::size_t N>
doacross_run run_doacross_over_mpi(boost::mpi::communicator const& comm, box<N> const& space,
                                   dependence_set<N> const& deps, any_policy const& policy, doacross_body<N>& body,
                                   doacross_options const& o, bool gather, std::exception_ptr earlier) {
    erased_channel<mpi_transport> erased(mpi_channel(comm));
    return run_erased_doacross(erased.get(), space, deps, policy, body, o, gather, earlier);
}
template <std::size_t N>
doacross_run run_doacross_over_mpi(boost::mpi::communicator const& comm, box<N> const& space,
                                dependence_set<N> const& deps, doacross_mapping const& mapping, doacross_body<N>& body,
                                doacross_options const& o, bool gather, std::exception_ptr earlier) {
    erased_channel<mpi_transport> erased(mpi_channel(comm));
    return run_erased_tiled(erased.get(), space, deps, mapping, body, o, gather, earlier);
}
template doacross_run run_doacross_over_mpi(boost::mpi::communicator const&, box<2> const&, dependence_set<2> const&,
                                            any_policy const&, doacross_body<2>&, doacross_options const&, bool,
                                            std::exception_ptr);
template doacross_run run_doacross_over_mpi(boost::mpi::communicator const&, box<3> const&, dependence_set<3> const&,
                                            any_policy const&, doacross_body<3>&, doacross_options const&, bool,
                                            std::exception_ptr);
template doacross_run run_doacross_over_mpi(boost::mpi::communicator const&, box<2> const&, dependence_set<2> const&,
                                         doacross_mapping const&, doacross_body<2>&, doacross_options const&, bool,
                                         std::exception_ptr);
template doacross_run run_doacross_over_mpi(boost::mpi::communicator const&, box<3> const&, dependence_set<3> const&,
                                         doacross_mapping const&, doacross_body<3>&, doacross_options const&, bool,
                                         std::exception_ptr);

} // namespace loopsched::detail
