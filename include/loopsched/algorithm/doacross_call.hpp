// parallel_for_doacross's outcome and its arguments taken apart, with the
// body and fields erased for the engines: what the facade over a channel and
// the compiled one over MPI share, without the engines themselves.
#pragma once

#include <loopsched/adaptor/interval_model.hpp>
#include <loopsched/adaptor/synchronized.hpp>
#include <loopsched/any_policy.hpp>
#include <loopsched/concepts.hpp>
#include <loopsched/dependence/layout.hpp>
#include <loopsched/mapping/doacross_mapping.hpp>
#include <loopsched/options.hpp>
#include <loopsched/outcome.hpp>
#include <loopsched/runtime/doacross/doacross_body.hpp>
#include <loopsched/space/window.hpp>

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

/// parallel_for_doacross's arguments taken apart (fields, body, options),
/// the body and fields erased, and the loop run by `engines`, whose
/// self_scheduled(...) and tiled(...) return a doacross_run: the engines over
/// a channel (parallel_for_doacross.hpp) or compiled over MPI (mpi/parallel_for_doacross.hpp).
/// P is a chunk policy with S, or a doacross_mapping (no self-scheduling).
template <std::size_t N, DependenceSet D, class P, class Engines, class... Args>
auto doacross_with(Engines const& engines, box<N> const& space, D const& deps, P const& policy,
                   std::exception_ptr earlier, Args&&... args) {
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
    outcome_type out;
    auto erased = erase_doacross_body<N>(body, fields, out.value);
    auto const set = as_dependence_set(deps, earlier);
    doacross_run run;
    if constexpr (mapped)
        run = engines.tiled(space, set, policy, erased, options, gathers, earlier);
    else
        run = engines.self_scheduled(space, set, erase_policy(policy), erased, options, gathers, earlier);
    out.statistics = std::move(run.statistics);
    out.layout = run.layout;
    out.interval = run.interval;
    out.model = std::move(run.model);
    return out;
}

} // namespace detail
} // namespace loopsched
