// parallel_for_doacross: a loop nest with uniform dependences, self-scheduled
// along u_c by an S-adapted policy and pipelined through synchronization
// points along u_s (Ciorba, chapter 4), over any transport.
// Over a Boost.MPI communicator: <loopsched/mpi/parallel_for_doacross.hpp>.
#pragma once

#include <loopsched/adaptor/interval_model.hpp>
#include <loopsched/adaptor/synchronized.hpp>
#include <loopsched/any_policy.hpp>
#include <loopsched/concepts.hpp>
#include <loopsched/dependence/layout.hpp>
#include <loopsched/mapping/doacross_mapping.hpp>
#include <loopsched/options.hpp>
#include <loopsched/outcome.hpp>
#include <loopsched/runtime/doacross/doacross.hpp>
#include <loopsched/runtime/doacross/tiled_doacross.hpp>
#include <loopsched/space/window.hpp>
#include <loopsched/transport/channel.hpp>

#include <concepts>
#include <exception>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

namespace loopsched {

/// What a DOACROSS loop returns on every rank: the fields as windows over the
/// whole space (`value`, on the root, holding the final values when the
/// call passed gather<>{}; empty otherwise), the statistics, and the layout and interval that ran.
template <std::size_t N, class... T>
struct doacross_outcome : outcome<std::tuple<window<T, N>...>> {
    doacross_layout layout;
    index_t interval = 0; ///< h
    /// With h=auto, on the root: the model's measured inputs, from which h
    /// came; model->predicted_seconds(interval) is the time it predicts.
    std::optional<interval_model> model{};

    /// Field I's window.
    template <std::size_t I = 0>
    [[nodiscard]] auto& array() noexcept {
        return std::get<I>(this->value);
    }
    template <std::size_t I = 0>
    [[nodiscard]] auto const& array() const noexcept {
        return std::get<I>(this->value);
    }
};

namespace detail {

/// The outcome of a loop over a tuple of fields.
template <std::size_t N, class Fields>
struct doacross_outcome_of;
template <std::size_t N, class... F>
struct doacross_outcome_of<N, std::tuple<F...>> {
    using type = doacross_outcome<N, typename F::value_type...>;
};

template <class F>
inline constexpr bool is_field_v = false;
template <class T, class I>
inline constexpr bool is_field_v<field<T, I>> = true;

template <class... A, std::size_t... I>
auto take(std::tuple<A...>&& all, std::index_sequence<I...>) {
    return std::tuple<std::remove_cvref_t<std::tuple_element_t<I, std::tuple<A...>>>...>(
            std::get<I>(std::move(all))...);
}

} // namespace detail

namespace detail {

/// parallel_for_doacross's arguments taken apart: fields, body, options.
/// P is a chunk policy with S, or a doacross_mapping (no self-scheduling).
template <channel_source C, std::size_t N, DependenceSet D, class P, class... Args>
auto doacross_with(C& transport, box<N> const& space, D const& deps, P const& policy, std::exception_ptr earlier,
                   Args&&... args) {
    constexpr bool mapped = std::same_as<P, doacross_mapping>;
    static_assert(N >= 2, "parallel_for_doacross: the iteration space needs at least two dimensions (u_c and u_s)");
    static_assert(
            D::rank == N,
            "parallel_for_doacross: the dependence vectors must have as many components as the space has dimensions");
    static_assert(mapped || is_synchronized_v<P> || std::same_as<P, any_policy>,
                  "parallel_for_doacross: the policy needs the synchronization adaptor S; pass synchronized(policy) "
                  "or synchronized(policy, sync_interval::fixed(h)), or dmps(css/tss/dtss, h)");
    auto all = std::forward_as_tuple(std::forward<Args>(args)...);
    constexpr std::size_t n = sizeof...(Args);
    using arguments = std::tuple<std::remove_cvref_t<Args>...>;
    constexpr bool has_options = std::same_as<std::tuple_element_t<n - 1, arguments>, doacross_options>;
    constexpr std::size_t before_options = n - (has_options ? 1 : 0);
    constexpr bool gathers = std::same_as<std::tuple_element_t<before_options - 1, arguments>, gather<>>;
    constexpr std::size_t tail = (has_options ? 1 : 0) + (gathers ? 1 : 0);
    static_assert(n >= tail + 2, "parallel_for_doacross: pass at least one field<T>(initial) for the loop to write, "
                                 "then the body, then optionally gather<>{} and the options");
    // (1 when the assertion above fails, so that only its message is shown.)
    constexpr std::size_t fields_count = n >= tail + 2 ? n - 1 - tail : 1;
    static_assert(
            []<std::size_t... I>(std::index_sequence<I...>) {
                return (is_field_v<std::tuple_element_t<I, arguments>> && ...);
            }(std::make_index_sequence<fields_count>{}),
            "parallel_for_doacross: the arguments between the policy and the body must be field<T>(initial); "
            "after the body come gather<>{} (to collect the fields on the root) and the options, in that order");
    auto fields = take(std::move(all), std::make_index_sequence<fields_count>{});
    auto& body = std::get<fields_count>(all);
    using body_type = std::remove_reference_t<decltype(body)>;
    static_assert(
            []<class... F>(std::tuple<F...>*) {
                return std::invocable<body_type&, box<N> const&, window<typename F::value_type, N>&...>;
            }(static_cast<decltype(fields)*>(nullptr)),
            "parallel_for_doacross: the body must be callable as body(box<N> const& part, window<T, N>&... arrays), "
            "one window per field, in order");
    doacross_options options;
    if constexpr (has_options) options = std::get<n - 1>(all);
    using outcome_type = typename doacross_outcome_of<N, decltype(fields)>::type;
    if constexpr (mapped)
        return run_tiled_doacross<outcome_type>(transport, space, deps, policy, body, options, gathers, fields, earlier);
    else
        return run_doacross<outcome_type>(transport, space, deps, erase_policy(policy), body, options, gathers, fields,
                                          earlier);
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
    return detail::doacross_with(transport, space, deps, policy, nullptr, std::forward<Args>(args)...);
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
    return detail::doacross_with(transport, space, deps, mapping, nullptr, std::forward<Args>(args)...);
}

} // namespace loopsched
