// parallel_for_doacross: a loop nest with uniform dependences, self-scheduled
// along u_c by an S-adapted policy and pipelined through synchronization
// points along u_s (Ciorba, chapter 4), over any transport.
// Over a Boost.MPI communicator: <loopsched/mpi/parallel_for_doacross.hpp>.
#pragma once

#include <loopsched/algorithm/doacross_call.hpp>
#include <loopsched/runtime/doacross/compiled.hpp>
#include <loopsched/runtime/doacross/doacross.hpp>
#include <loopsched/runtime/doacross/tiled_doacross.hpp>
#include <loopsched/transport/channel.hpp>

#include <concepts>
#include <exception>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

namespace loopsched {
namespace detail {

/// Runs a DOACROSS loop on this rank over channel `ch`, its body and fields
/// erased: the engine loopsched::compiled holds for the loop's depth, through
/// the channel's erased view, or the one instantiated here. Self-scheduled by
/// an S-adapted policy.
template <class T, std::size_t N>
doacross_run run_doacross_on(channel<T>& ch, box<N> const& space, dependence_set<N> const& deps,
                             any_policy const& policy, doacross_body<N>& body, doacross_options const& o, bool gather,
                             std::exception_ptr earlier) {
    if constexpr (engines_compiled_for<T> && doacross_depth_compiled<N>) {
        erased_channel<T> erased(ch);
        return run_erased_doacross(erased.get(), space, deps, policy, body, o, gather, std::move(earlier));
    } else {
        return run_doacross_engine(ch, space, deps, policy, body, o, gather, std::move(earlier));
    }
}

/// The same with the tiles placed ahead of time by a doacross_mapping.
template <class T, std::size_t N>
doacross_run run_doacross_on(channel<T>& ch, box<N> const& space, dependence_set<N> const& deps,
                             doacross_mapping const& mapping, doacross_body<N>& body, doacross_options const& o,
                             bool gather, std::exception_ptr earlier) {
    if constexpr (engines_compiled_for<T> && doacross_depth_compiled<N>) {
        erased_channel<T> erased(ch);
        return run_erased_tiled(erased.get(), space, deps, mapping, body, o, gather, std::move(earlier));
    } else {
        return run_tiled_engine(ch, space, deps, mapping, body, o, gather, std::move(earlier));
    }
}

} // namespace detail

/// Runs a DOACROSS loop nest over `space` (N >= 2) on every rank of the
/// transport. Collective: every rank calls it with the same arguments (the
/// ranks check that they do before any body runs).
///
///   parallel_for_doacross(t, space, deps, policy, fields..., body [, gather<>{}] [, options])
///
/// - deps: the loop's uniform flow dependences (uniform<...> or dependence_set<N>);
/// - policy: a chunk policy with the S adaptor: synchronized(tss{}), dmps(css{}, h),
///   synchronized(weighted(gss{})), or parse_policy("sw-gss:h=auto");
/// - fields: field<T>(initial) for each array the loop writes; `initial(point)`
///   gives its value before the loop. Each rank evaluates it for the points it
///   holds: read-only inputs are replicated by the user's function instead of
///   travelling with the chunks, so the master never ships data and a worker's
///   memory stays its chunk plus halo. make_field<T>() is an output the body
///   writes before it reads: nothing fills it (the first write is the first
///   touch of its memory);
/// - body(part, arrays...): runs the points of `part` (a sub-box) in
///   lexicographic order, reading and writing the windows with global indices.
/// - gather<>{}: collect the fields, whole, on the root (`value`); without it
///   each rank sees its chunks only, in the body, as in parallel_for.
/// Returns the statistics on every rank and, with gather<>{}, the fields on the root.
template <channel_source C, std::size_t N, DependenceSet D, ChunkPolicy P, class... Args>
requires(sizeof...(Args) >= 2) auto parallel_for_doacross(C& transport, box<N> const& space, D const& deps,
                                                          P const& policy, Args&&... args) {
    detail::doacross_arguments<N, D, P, Args...> a(deps, nullptr, std::forward<Args>(args)...);
    if constexpr (decltype(a)::valid)
        detail::take_run(detail::run_doacross_on(detail::channel_of(transport), space, a.deps(),
                                                 detail::erase_policy(policy), a.body(), a.options, a.gathers,
                                                 a.earlier()),
                         a.out);
    return std::move(a.out);
}

/// The same loop without self-scheduling: tiles placed by a static mapping
/// (SDS along the optimal hyperplane, or chains mapped cyclic, CPS or ACS;
/// Ciorba), each rank running its tiles and exchanging them with the owners
/// of their neighbours directly.
///
///   parallel_for_doacross(t, space, deps, doacross_mapping{doacross_mapping::rule::sds}, fields..., body
///                         [, gather<>{}] [, options])
template <channel_source C, std::size_t N, DependenceSet D, class... Args>
requires(sizeof...(Args) >= 2) auto parallel_for_doacross(C& transport, box<N> const& space, D const& deps,
                                                          doacross_mapping const& mapping, Args&&... args) {
    detail::doacross_arguments<N, D, doacross_mapping, Args...> a(deps, nullptr, std::forward<Args>(args)...);
    if constexpr (decltype(a)::valid)
        detail::take_run(detail::run_doacross_on(detail::channel_of(transport), space, a.deps(), mapping, a.body(),
                                                 a.options, a.gathers, a.earlier()),
                         a.out);
    return std::move(a.out);
}

} // namespace loopsched
