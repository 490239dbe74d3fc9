// The task engines loopsched::compiled holds (the farm, divide and conquer),
// over any transport's erased view (transport/erased.hpp): declared here,
// defined once in impl/compiled_engines.ipp. With LOOPSCHED_COMPILED the
// facades call these instead of instantiating the engines.
#pragma once

#include <loopsched/mapping/placement_choice.hpp>
#include <loopsched/runtime/tasks/dnc_calls.hpp>
#include <loopsched/runtime/tasks/farm_calls.hpp>
#include <loopsched/task_options.hpp>
#include <loopsched/transport/erased.hpp>

namespace loopsched::detail {

/// A farm: the user's body and producer in `calls`, results to `to_root`.
farm_run run_erased_farm(channel<erased_transport>& ch, farm_calls const& calls, result_sink to_root,
                         task_farm_options const& o, resolved_choice const& placement);
/// A divide-and-conquer computation: the recursion over the user's types in `calls`.
dnc_run run_erased_dnc(channel<erased_transport>& ch, dnc_calls const& calls, dnc_options const& o,
                       resolved_choice const& placement);

} // namespace loopsched::detail
