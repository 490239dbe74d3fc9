// The separately compiled library, part 2: every engine (loops, hierarchical loops,
// DOACROSS nests of depth 2 and 3, farms, divide and conquer) compiled once,
// over erased_transport: the one list of them is the declarations in
// runtime/{loops,doacross,tasks}/compiled.hpp, defined here. Every transport
// reaches them through its erased view (transport/erased.hpp), made where the
// facade is called, so a transport, the user's included, adds no engine code.
#pragma once

#include <loopsched/runtime/doacross/compiled.hpp>
#include <loopsched/runtime/loops/compiled.hpp>
#include <loopsched/runtime/tasks/compiled.hpp>

#include <loopsched/algorithm/divide_and_conquer.hpp>
#include <loopsched/algorithm/parallel_for.hpp>
#include <loopsched/algorithm/parallel_for_doacross.hpp>
#include <loopsched/algorithm/task_farm.hpp>
#include <loopsched/placement_spec.hpp>
#include <loopsched/runtime/tasks/dnc_driver.hpp>
#include <loopsched/runtime/tasks/dnc_frames.ipp> // the definitions dnc_frames.hpp leaves out with LOOPSCHED_COMPILED

namespace loopsched::detail {

doall_run run_erased_doall(channel<erased_transport>& ch, doall_call const& call, any_policy const& policy,
                           any_mapping const& mapping, chunk_body& run, parallel_for_options const& o) {
    loop_link<erased_transport> link(ch);
    return run_doall_checked(link, call, policy, mapping, run, o);
}

doall_run run_erased_hierarchical_doall(channel<erased_transport>& ch, doall_call const& call,
                                        hierarchical<any_policy, any_policy> const& levels, chunk_body& run,
                                        parallel_for_options const& o) {
    loop_link<erased_transport> link(ch);
    return run_hierarchical_checked(link, call, levels, run, o);
}

farm_run run_erased_farm(channel<erased_transport>& ch, farm_calls const& calls, result_sink to_root,
                         task_farm_options const& o, resolved_choice const& placement) {
    return run_farm_engine(ch, calls, to_root, o, placement);
}

dnc_run run_erased_dnc(channel<erased_transport>& ch, dnc_calls const& calls, dnc_options const& o,
                       resolved_choice const& placement) {
    loop_link<erased_transport> link(ch);
    return run_dnc_engine(link, calls, o, placement);
}

template <std::size_t N>
doacross_run run_erased_doacross(channel<erased_transport>& ch, box<N> const& space, dependence_set<N> const& deps,
                                 any_policy const& policy, doacross_body<N>& body, doacross_options const& o,
                                 bool gather, std::exception_ptr earlier) {
    return run_doacross_engine(ch, space, deps, policy, body, o, gather, earlier);
}

template <std::size_t N>
doacross_run run_erased_tiled(channel<erased_transport>& ch, box<N> const& space, dependence_set<N> const& deps,
                              doacross_mapping const& mapping, doacross_body<N>& body, doacross_options const& o,
                              bool gather, std::exception_ptr earlier) {
    return run_tiled_engine(ch, space, deps, mapping, body, o, gather, earlier);
}

template doacross_run run_erased_doacross(channel<erased_transport>&, box<2> const&, dependence_set<2> const&,
                                          any_policy const&, doacross_body<2>&, doacross_options const&, bool,
                                          std::exception_ptr);
template doacross_run run_erased_doacross(channel<erased_transport>&, box<3> const&, dependence_set<3> const&,
                                          any_policy const&, doacross_body<3>&, doacross_options const&, bool,
                                          std::exception_ptr);
template doacross_run run_erased_tiled(channel<erased_transport>&, box<2> const&, dependence_set<2> const&,
                                       doacross_mapping const&, doacross_body<2>&, doacross_options const&, bool,
                                       std::exception_ptr);
template doacross_run run_erased_tiled(channel<erased_transport>&, box<3> const&, dependence_set<3> const&,
                                       doacross_mapping const&, doacross_body<3>&, doacross_options const&, bool,
                                       std::exception_ptr);

} // namespace loopsched::detail
