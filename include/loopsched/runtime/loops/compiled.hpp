// The DOALL engines loopsched::compiled holds, over any transport's erased
// view (transport/erased.hpp): declared here, defined once in
// impl/compiled_engines.ipp. With LOOPSCHED_COMPILED the facades call these
// instead of instantiating the engines.
#pragma once

#include <loopsched/any_policy.hpp>
#include <loopsched/hierarchical.hpp>
#include <loopsched/mapping/mapping.hpp>
#include <loopsched/options.hpp>
#include <loopsched/outcome.hpp>
#include <loopsched/runtime/loops/doall_body.hpp>
#include <loopsched/statistics.hpp>
#include <loopsched/transport/erased.hpp>

namespace loopsched::detail {

/// A flat loop: the checks every rank makes, then the engine for the mapping.
doall_run run_erased_doall(channel<erased_transport>& ch, doall_call const& call, any_policy const& policy,
                           any_mapping const& mapping, chunk_body& run, parallel_for_options const& o);
/// A loop of two levels, both levels' policies erased.
doall_run run_erased_hierarchical_doall(channel<erased_transport>& ch, doall_call const& call,
                                        hierarchical<any_policy, any_policy> const& levels, chunk_body& run,
                                        parallel_for_options const& o);

} // namespace loopsched::detail
