// parallel_for_doacross: a loop nest with uniform dependences, self-scheduled
// along u_c by an S-adapted policy and pipelined through synchronization
// points along u_s (Ciorba, chapter 4), over any transport.
// Over a Boost.MPI communicator: <loopsched/mpi/parallel_for_doacross.hpp>.
#pragma once

#include <loopsched/algorithm/doacross_call.hpp>
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

/// The DOACROSS engines over a channel source: compiled in a library that
/// holds them for its transport and the loop's depth, else instantiated here.
template <channel_source C>
struct channel_doacross_engines {
    C& source;

    template <std::size_t N>
    doacross_run self_scheduled(box<N> const& space, dependence_set<N> const& deps, any_policy const& policy,
                                doacross_body<N>& body, doacross_options const& o, bool gather,
                                std::exception_ptr earlier) const {
        auto& ch = channel_of(source);
        using T = std::remove_cvref_t<decltype(ch.transport())>;
        if constexpr (engines_compiled_for<T> && doacross_depth_compiled<N>)
            return run_compiled_doacross(ch, space, deps, policy, body, o, gather, earlier);
        else
            return run_doacross_engine(ch, space, deps, policy, body, o, gather, earlier);
    }
    template <std::size_t N>
    doacross_run tiled(box<N> const& space, dependence_set<N> const& deps, doacross_mapping const& mapping,
                       doacross_body<N>& body, doacross_options const& o, bool gather,
                       std::exception_ptr earlier) const {
        auto& ch = channel_of(source);
        using T = std::remove_cvref_t<decltype(ch.transport())>;
        if constexpr (engines_compiled_for<T> && doacross_depth_compiled<N>)
            return run_compiled_tiled(ch, space, deps, mapping, body, o, gather, earlier);
        else
            return run_tiled_engine(ch, space, deps, mapping, body, o, gather, earlier);
    }
};

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
    return detail::doacross_with(detail::channel_doacross_engines<C>{transport}, space, deps, policy, nullptr,
                                 std::forward<Args>(args)...);
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
    return detail::doacross_with(detail::channel_doacross_engines<C>{transport}, space, deps, mapping, nullptr,
                                 std::forward<Args>(args)...);
}

} // namespace loopsched
