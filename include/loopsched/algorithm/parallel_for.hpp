// parallel_for: a DOALL loop over an iteration space, its chunks sized by a
// policy and placed by a mapping (dynamic by default) on the ranks of any
// transport, optionally gathering per-iteration results on the root rank.
// Over a Boost.MPI communicator: <loopsched/mpi/parallel_for.hpp>.
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/mapping/mapping.hpp>
#include <loopsched/options.hpp>
#include <loopsched/outcome.hpp>
#include <loopsched/runtime/loops/doall.hpp>
#include <loopsched/runtime/loops/hierarchy.hpp>
#include <loopsched/runtime/core/statistics.hpp>
#include <loopsched/transport/channel.hpp>

#include <concepts>
#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace loopsched {

/// Runs `body(part)` over every part of `space`, the parts sized by `policy`
/// and placed by `mapping` on the ranks. Collective: every rank calls it with
/// the same arguments (the ranks check that they do, and a difference fails
/// the loop on every rank with invalid_parameter before any body runs).
/// Returns the loop's statistics on every rank (the trace on the root only).
/// If a body throws on any rank, every rank throws remote_error.
///
/// With a mapping known ahead of time (static_block_mapping,
/// static_cyclic_mapping), every rank runs its own chunks with no message
/// until the end, where results and statistics travel to the root.
template <channel_source C, IterationSpace S, ChunkPolicy P, LoopMapping M, class Body>
requires std::invocable<Body&, S const&> loop_statistics parallel_for(C& transport, S const& space, P const& policy,
                                                                      M const& mapping, Body&& body,
                                                                      parallel_for_options const& options = {}) {
    return detail::run_doall<C, S, P, M, std::remove_reference_t<Body>, void>(transport, space, policy, mapping, body,
                                                                              0, nullptr, options);
}

/// parallel_for with the dynamic mapping: each chunk goes to the rank that asks.
template <channel_source C, IterationSpace S, ChunkPolicy P, class Body>
requires std::invocable<Body&, S const&> loop_statistics parallel_for(C& transport, S const& space, P const& policy,
                                                                      Body&& body,
                                                                      parallel_for_options const& options = {}) {
    return parallel_for(transport, space, policy, dynamic_mapping{}, std::forward<Body>(body), options);
}

/// As above, and gathers results: `body(part, out)` writes `how.per_iteration`
/// values for each of part's positions along the cut dimension into `out`
/// (position-major). The values travel to the root with the worker's next request.
template <channel_source C, IterationSpace S, ChunkPolicy P, LoopMapping M, class Body, transferable R>
requires std::invocable<Body&, S const&, std::span<R>> gathered<R>
parallel_for(C& transport, S const& space, P const& policy, M const& mapping, Body&& body, gather<R> how,
             parallel_for_options const& options = {}) {
    gathered<R> out;
    out.statistics = detail::run_doall<C, S, P, M, std::remove_reference_t<Body>, R>(
            transport, space, policy, mapping, body, how.per_iteration, &out.value, options);
    return out;
}

template <channel_source C, IterationSpace S, ChunkPolicy P, class Body, transferable R>
requires std::invocable<Body&, S const&, std::span<R>> gathered<R>
parallel_for(C& transport, S const& space, P const& policy, Body&& body, gather<R> how,
             parallel_for_options const& options = {}) {
    return parallel_for(transport, space, policy, dynamic_mapping{}, std::forward<Body>(body), how, options);
}

/// A hierarchical loop: the root grants `h.between`'s chunks to groups of
/// ranks, and each group's first rank, its sub-master, schedules them among the
/// group by `h.within`. The root does not compute (options.master_computes
/// unset or false; true is refused); statistics() list every worker, and
/// `groups` one row per group. Not deterministic: options.deterministic must be false.
template <channel_source C, IterationSpace S, ChunkPolicy B, ChunkPolicy W, class Body>
requires std::invocable<Body&, S const&> loop_statistics parallel_for(C& transport, S const& space,
                                                                      hierarchical<B, W> const& h, Body&& body,
                                                                      parallel_for_options const& options = {}) {
    return detail::run_hierarchical_doall<C, S, B, W, std::remove_reference_t<Body>, void>(transport, space, h, body,
                                                                                         0, nullptr, options);
}

/// A hierarchical loop that gathers results on the root (they travel through the sub-masters).
template <channel_source C, IterationSpace S, ChunkPolicy B, ChunkPolicy W, class Body, transferable R>
requires std::invocable<Body&, S const&, std::span<R>> gathered<R>
parallel_for(C& transport, S const& space, hierarchical<B, W> const& h, Body&& body, gather<R> how,
             parallel_for_options const& options = {}) {
    gathered<R> out;
    out.statistics = detail::run_hierarchical_doall<C, S, B, W, std::remove_reference_t<Body>, R>(
            transport, space, h, body, how.per_iteration, &out.value, options);
    return out;
}

} // namespace loopsched
