// The engines a compiled library holds for a transport (engines_compiled_for,
// transport/transport.hpp): each erased entry point the algorithms call,
// defined once here and instantiated by src/compiled_<transport>.cpp.
#pragma once

#include <loopsched/algorithm/divide_and_conquer.hpp>
#include <loopsched/algorithm/parallel_for.hpp>
#include <loopsched/algorithm/parallel_for_doacross.hpp>
#include <loopsched/algorithm/task_farm.hpp>

namespace loopsched::detail {

template <Transport T>
loop_statistics run_compiled_doall(loop_link<T>& link, doall_call const& call, any_policy const& policy,
                                   any_mapping const& mapping, chunk_body& run, parallel_for_options const& o) {
    return run_doall_checked(link, call, policy, mapping, run, o);
}

template <Transport T>
loop_statistics run_compiled_hierarchical_doall(loop_link<T>& link, doall_call const& call,
                                                hierarchical<any_policy, any_policy> const& levels, chunk_body& run,
                                                parallel_for_options const& o) {
    return run_hierarchical_checked(link, call, levels, run, o);
}

template <Transport T>
farm_run run_compiled_farm(channel<T>& ch, farm_calls const& calls, result_sink to_root, task_farm_options const& o,
                           resolved_choice const& scheme) {
    return run_farm_engine(ch, calls, to_root, o, scheme);
}

template <Transport T>
dnc_run run_compiled_dnc(loop_link<T>& link, dnc_calls const& calls, dnc_options const& o,
                         resolved_choice const& placement_spec) {
    return run_dnc_engine(link, calls, o, placement_spec);
}

template <Transport T, std::size_t N>
doacross_run run_compiled_doacross(channel<T>& ch, box<N> const& space, dependence_set<N> const& deps,
                                   any_policy const& policy, doacross_body<N>& body, doacross_options const& o,
                                   bool gather, std::exception_ptr earlier) {
    return run_doacross_engine(ch, space, deps, policy, body, o, gather, earlier);
}

template <Transport T, std::size_t N>
doacross_run run_compiled_tiled(channel<T>& ch, box<N> const& space, dependence_set<N> const& deps,
                                doacross_mapping const& mapping, doacross_body<N>& body, doacross_options const& o,
                                bool gather, std::exception_ptr earlier) {
    return run_tiled_engine(ch, space, deps, mapping, body, o, gather, earlier);
}

} // namespace loopsched::detail
