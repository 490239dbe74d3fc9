// The engines over the SimGrid transport, compiled once for our simulation
// programs and tests (the build tree's loopsched_simgrid_compiled), as
// src/compiled_in_process.cpp does for the in-process transport.
#include "compiled_engines.hpp"

#include <loopsched/transport/simgrid.hpp>

namespace loopsched::detail {
template loop_statistics run_compiled_doall(loop_link<sim::transport>&, doall_call const&, any_policy const&,
                                            any_mapping const&, chunk_body&, parallel_for_options const&);
template loop_statistics run_compiled_hierarchical_doall(loop_link<sim::transport>&, doall_call const&,
                                                         hierarchical<any_policy, any_policy> const&, chunk_body&,
                                                         parallel_for_options const&);
template farm_run run_compiled_farm(channel<sim::transport>&, farm_calls const&, result_sink,
                                    task_farm_options const&, resolved_choice const&);
template dnc_run run_compiled_dnc(loop_link<sim::transport>&, dnc_calls<sim::transport> const&, dnc_options const&,
                                  resolved_choice const&);
} // namespace loopsched::detail
