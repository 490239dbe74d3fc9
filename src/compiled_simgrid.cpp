// The entry points over the SimGrid transport into the engines of
// src/compiled_engines.cpp, for our simulation programs and tests (the build
// tree's loopsched_simgrid_compiled; not installed).
#include "compiled_engines.hpp"

#include <loopsched/transport/simgrid.hpp>

namespace loopsched::detail {
template loop_statistics run_compiled_doall(channel<sim::transport>&, doall_call const&, any_policy const&,
                                            any_mapping const&, chunk_body&, parallel_for_options const&);
template loop_statistics run_compiled_hierarchical_doall(channel<sim::transport>&, doall_call const&,
                                                         hierarchical<any_policy, any_policy> const&, chunk_body&,
                                                         parallel_for_options const&);
template farm_run run_compiled_farm(channel<sim::transport>&, farm_calls const&, result_sink, task_farm_options const&,
                                    resolved_choice const&);
template dnc_run run_compiled_dnc(channel<sim::transport>&, dnc_calls const&, dnc_options const&,
                                  resolved_choice const&);
template doacross_run run_compiled_doacross(channel<sim::transport>&, box<2> const&, dependence_set<2> const&,
                                            any_policy const&, doacross_body<2>&, doacross_options const&, bool,
                                            std::exception_ptr);
template doacross_run run_compiled_doacross(channel<sim::transport>&, box<3> const&, dependence_set<3> const&,
                                            any_policy const&, doacross_body<3>&, doacross_options const&, bool,
                                            std::exception_ptr);
template doacross_run run_compiled_tiled(channel<sim::transport>&, box<2> const&, dependence_set<2> const&,
                                         doacross_mapping const&, doacross_body<2>&, doacross_options const&, bool,
                                         std::exception_ptr);
template doacross_run run_compiled_tiled(channel<sim::transport>&, box<3> const&, dependence_set<3> const&,
                                         doacross_mapping const&, doacross_body<3>&, doacross_options const&, bool,
                                         std::exception_ptr);
} // namespace loopsched::detail
