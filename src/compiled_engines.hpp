// The engines a compiled library holds (engines_compiled_for,
// transport/transport.hpp): each instantiated once, over erased_transport, in
// src/compiled_engines.cpp; a transport's entry points (run_compiled_*,
// instantiated by src/compiled_<transport>.cpp) call them through its erased view.
#pragma once

// Only the types the entry points name: a transport's TU parses these (2.6 s
// at -O2), not the engines (6.3 s).
#include <loopsched/any_policy.hpp>
#include <loopsched/hierarchical.hpp>
#include <loopsched/mapping/doacross_mapping.hpp>
#include <loopsched/mapping/mapping.hpp>
#include <loopsched/mapping/placement_choice.hpp>
#include <loopsched/options.hpp>
#include <loopsched/runtime/core/statistics.hpp>
#include <loopsched/runtime/doacross/doacross_body.hpp>
#include <loopsched/runtime/loops/doall_body.hpp>
#include <loopsched/runtime/tasks/dnc_calls.hpp>
#include <loopsched/runtime/tasks/farm_calls.hpp>
#include <loopsched/task_options.hpp>
#include <loopsched/transport/erased.hpp>

#include <cstddef>
#include <exception>

namespace loopsched::detail {

loop_statistics run_erased_doall(channel<erased_transport>& ch, doall_call const& call, any_policy const& policy,
                                 any_mapping const& mapping, chunk_body& run, parallel_for_options const& o);
loop_statistics run_erased_hierarchical_doall(channel<erased_transport>& ch, doall_call const& call,
                                              hierarchical<any_policy, any_policy> const& levels, chunk_body& run,
                                              parallel_for_options const& o);
farm_run run_erased_farm(channel<erased_transport>& ch, farm_calls const& calls, result_sink to_root,
                         task_farm_options const& o, resolved_choice const& scheme);
dnc_run run_erased_dnc(channel<erased_transport>& ch, dnc_calls const& calls, dnc_options const& o,
                       resolved_choice const& placement_spec);
/// N = 2 and 3 (doacross_depth_compiled).
template <std::size_t N>
doacross_run run_erased_doacross(channel<erased_transport>& ch, box<N> const& space, dependence_set<N> const& deps,
                                 any_policy const& policy, doacross_body<N>& body, doacross_options const& o,
                                 bool gather, std::exception_ptr earlier);
template <std::size_t N>
doacross_run run_erased_tiled(channel<erased_transport>& ch, box<N> const& space, dependence_set<N> const& deps,
                              doacross_mapping const& mapping, doacross_body<N>& body, doacross_options const& o,
                              bool gather, std::exception_ptr earlier);

template <Transport T>
loop_statistics run_compiled_doall(channel<T>& ch, doall_call const& call, any_policy const& policy,
                                   any_mapping const& mapping, chunk_body& run, parallel_for_options const& o) {
    erased_channel<T> e(ch);
    return run_erased_doall(e.get(), call, policy, mapping, run, o);
}

template <Transport T>
loop_statistics run_compiled_hierarchical_doall(channel<T>& ch, doall_call const& call,
                                                hierarchical<any_policy, any_policy> const& levels, chunk_body& run,
                                                parallel_for_options const& o) {
    erased_channel<T> e(ch);
    return run_erased_hierarchical_doall(e.get(), call, levels, run, o);
}

template <Transport T>
farm_run run_compiled_farm(channel<T>& ch, farm_calls const& calls, result_sink to_root, task_farm_options const& o,
                           resolved_choice const& scheme) {
    erased_channel<T> e(ch);
    return run_erased_farm(e.get(), calls, to_root, o, scheme);
}

template <Transport T>
dnc_run run_compiled_dnc(channel<T>& ch, dnc_calls const& calls, dnc_options const& o,
                         resolved_choice const& placement_spec) {
    erased_channel<T> e(ch);
    return run_erased_dnc(e.get(), calls, o, placement_spec);
}

template <Transport T, std::size_t N>
doacross_run run_compiled_doacross(channel<T>& ch, box<N> const& space, dependence_set<N> const& deps,
                                   any_policy const& policy, doacross_body<N>& body, doacross_options const& o,
                                   bool gather, std::exception_ptr earlier) {
    erased_channel<T> e(ch);
    return run_erased_doacross(e.get(), space, deps, policy, body, o, gather, earlier);
}

template <Transport T, std::size_t N>
doacross_run run_compiled_tiled(channel<T>& ch, box<N> const& space, dependence_set<N> const& deps,
                                doacross_mapping const& mapping, doacross_body<N>& body, doacross_options const& o,
                                bool gather, std::exception_ptr earlier) {
    erased_channel<T> e(ch);
    return run_erased_tiled(e.get(), space, deps, mapping, body, o, gather, earlier);
}

} // namespace loopsched::detail
