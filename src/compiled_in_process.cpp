// loopsched::compiled, continued: the entry points over the in-process
// transport (ranks as threads) into the engines of src/compiled_engines.cpp.
#include "compiled_engines.hpp"

#include <loopsched/transport/in_process.hpp>

namespace loopsched::detail {
template loop_statistics run_compiled_doall(channel<in_process::endpoint>&, doall_call const&, any_policy const&,
                                            any_mapping const&, chunk_body&, parallel_for_options const&);
template loop_statistics run_compiled_hierarchical_doall(channel<in_process::endpoint>&, doall_call const&,
                                                         hierarchical<any_policy, any_policy> const&, chunk_body&,
                                                         parallel_for_options const&);
template farm_run run_compiled_farm(channel<in_process::endpoint>&, farm_calls const&, result_sink,
                                    task_farm_options const&, resolved_choice const&);
template dnc_run run_compiled_dnc(channel<in_process::endpoint>&, dnc_calls const&, dnc_options const&,
                                  resolved_choice const&);
template doacross_run run_compiled_doacross(channel<in_process::endpoint>&, box<2> const&, dependence_set<2> const&,
                                            any_policy const&, doacross_body<2>&, doacross_options const&, bool,
                                            std::exception_ptr);
template doacross_run run_compiled_doacross(channel<in_process::endpoint>&, box<3> const&, dependence_set<3> const&,
                                            any_policy const&, doacross_body<3>&, doacross_options const&, bool,
                                            std::exception_ptr);
template doacross_run run_compiled_tiled(channel<in_process::endpoint>&, box<2> const&, dependence_set<2> const&,
                                         doacross_mapping const&, doacross_body<2>&, doacross_options const&, bool,
                                         std::exception_ptr);
template doacross_run run_compiled_tiled(channel<in_process::endpoint>&, box<3> const&, dependence_set<3> const&,
                                         doacross_mapping const&, doacross_body<3>&, doacross_options const&, bool,
                                         std::exception_ptr);
} // namespace loopsched::detail
