// parallel_for: a DOALL loop over an iteration space, its chunks sized by a
// policy and placed by a mapping (dynamic by default) on the ranks of any
// transport, optionally gathering per-iteration results on the root rank.
// Over a Boost.MPI communicator: <loopsched/mpi/parallel_for.hpp>.
#pragma once

#include <loopsched/algorithm/doall_call.hpp>
#include <loopsched/runtime/loops/compiled.hpp>
#include <loopsched/runtime/loops/doall.hpp>
#include <loopsched/runtime/loops/hierarchy.hpp>
#include <loopsched/transport/channel.hpp>

#include <cstddef>
#include <exception>
#include <utility>
#include <vector>

namespace loopsched {
namespace detail {

/// Runs a described DOALL loop on this rank over channel `ch`: the engine
/// loopsched::compiled holds, through the channel's erased view, or the one
/// instantiated here for the transport, the mapping and the scheme (the
/// policy erased either way: one engine per transport and mapping).
template <class T, loop_scheme Scheme, LoopMapping M>
doall_run run_doall_on(channel<T>& ch, doall_call const& call, Scheme const& scheme, M const& mapping,
                             chunk_body& body, parallel_for_options const& o) {
    if constexpr (is_hierarchical_v<Scheme>) {
        auto const levels = erase_scheme(scheme);
        if constexpr (engines_compiled_for<T>) {
            erased_channel<T> erased(ch);
            return run_erased_hierarchical_doall(erased.get(), call, levels, body, o);
        } else {
            loop_link<T> link(ch);
            return run_hierarchical_checked(link, call, levels, body, o);
        }
    } else if constexpr (engines_compiled_for<T>) {
        erased_channel<T> erased(ch);
        return run_erased_doall(erased.get(), call, erase_policy(scheme), any_mapping(mapping), body, o);
    } else {
        loop_link<T> link(ch);
        return run_doall_checked(link, call, erase_policy(scheme), mapping, body, o);
    }
}

} // namespace detail

/// Runs `body(part)` over every part of `space`, the parts sized by `scheme`
/// and placed on the ranks; collective: every rank calls it with the same
/// arguments (the ranks check that they do, and a difference fails the loop
/// on every rank with invalid_parameter before any body runs).
///
///     parallel_for(transport, space, policy, [mapping,] body [, gather<R>{k}] [, options])
///     parallel_for(transport, space, hierarchical{between, within}, body [, gather<R>{k}] [, options])
///     parallel_for(transport, space, "spec", ...)        (algorithm/by_spec.hpp)
///
/// - `policy` is a ChunkPolicy; `mapping` a LoopMapping (dynamic_mapping when
///   left out: each chunk goes to the rank that asks; static_block_mapping and
///   static_cyclic_mapping run every rank's chunks with no message until the
///   end, where results and statistics travel to the root).
/// - hierarchical{between, within}: the root grants `between`'s chunks to
///   groups of ranks, and each group's sub-master schedules them among the
///   group by `within`. The root does not compute (options.master_computes
///   unset or false); not deterministic.
/// - With gather<R>{k}, `body(part, out)` writes k values for each of part's
///   positions along the cut dimension into `out` (position-major); they
///   travel to the root with the worker's next request and the call returns
///   gathered<R> (values of iteration i at [i * k, (i + 1) * k) of `value`, on
///   the root). Without it the call returns outcome<void>: the statistics.
///
/// The statistics are on every rank (the trace on the root only). If a body
/// throws on any rank, every rank throws remote_error. Arguments out of this
/// order fail to compile with a static_assert naming the order.
template <channel_source C, IterationSpace S, detail::loop_scheme Scheme, class... Args>
auto parallel_for(C& transport, S const& space, Scheme const& scheme, Args&&... args) {
    auto& ch = detail::channel_of(transport);
    detail::doall_arguments<S, Scheme, Args...> a(space, ch.rank(), nullptr, std::forward<Args>(args)...);
    if constexpr (decltype(a)::pack::valid)
        detail::take_run(detail::run_doall_on(ch, a.call(), scheme, a.mapping(), a.body(), a.options), a.out);
    return std::move(a.out);
}

} // namespace loopsched
