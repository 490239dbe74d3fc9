// parallel_for_doacross's arguments taken apart, with the body and fields
// erased for the engines (its outcome is in outcome.hpp): what the facade over
// a channel and the compiled one over MPI share, without the engines themselves.
#pragma once

#include <loopsched/adaptor/interval_model.hpp>
#include <loopsched/adaptor/synchronized.hpp>
#include <loopsched/any_policy.hpp>
#include <loopsched/concepts.hpp>
#include <loopsched/detail/pack.hpp>
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

/// The first fields of a forwarded pack, moved from where they were passed as rvalues.
template <class All, std::size_t... I>
auto take_fields(All&& all, std::index_sequence<I...>) {
    return std::tuple<std::remove_cvref_t<std::tuple_element_t<I, std::remove_cvref_t<All>>>...>(
            std::get<I>(std::move(all))...);
}

/// The first types of a tuple, as a tuple (void past the end: the checks fail first).
template <class Tuple, class Indices>
struct leading_types {
    using type = std::tuple<>;
};
template <class Tuple, std::size_t... I>
requires(sizeof...(I) <= std::tuple_size_v<Tuple>) struct leading_types<Tuple, std::index_sequence<I...>> {
    using type = std::tuple<std::tuple_element_t<I, Tuple>...>;
};

/// Whether every type of a tuple is a field<T>.
template <class Tuple>
inline constexpr bool all_fields_v = false;
template <class... F>
inline constexpr bool all_fields_v<std::tuple<F...>> = (is_field_v<F> && ...);

/// Whether a DOACROSS body takes a part and one window per field, in order.
template <class Body, std::size_t N, class Fields>
inline constexpr bool doacross_body_fits = false;
template <class Body, std::size_t N, class... F>
inline constexpr bool doacross_body_fits<Body, N, std::tuple<F...>> =
        std::invocable<Body&, box<N> const&, window<typename F::value_type, N>&...>;

/// The erased body over a tuple of fields.
template <std::size_t N, class Body, class Fields>
struct typed_doacross_body_of;
template <std::size_t N, class Body, class... F>
struct typed_doacross_body_of<N, Body, std::tuple<F...>> {
    using type = typed_doacross_body<N, Body, F...>;
};

/// parallel_for_doacross's arguments after the policy (fields..., body [,
/// gather<>{}] [, options]), checked at compile time with readable failures,
/// taken apart and held for the engine: the fields, the outcome it returns,
/// the options, the dependences as a dependence_set, and (for a valid pack)
/// the body and fields erased behind doacross_body<N>. Building it runs no
/// engine. P is a chunk policy with S, or a doacross_mapping (no self-scheduling).
template <std::size_t N, DependenceSet D, class P, class... Args>
class doacross_arguments {
    static constexpr bool mapped = std::same_as<P, doacross_mapping>;
    static_assert(N >= 2, "parallel_for_doacross: the iteration space needs at least two dimensions (u_c and u_s)");
    static_assert(
            D::rank == N,
            "parallel_for_doacross: the dependence vectors must have as many components as the space has dimensions");
    static_assert(mapped || is_synchronized_v<P> || std::same_as<P, any_policy>,
                  "parallel_for_doacross: the policy needs the synchronization adaptor S; pass synchronized(policy) "
                  "or synchronized(policy, sync_interval::fixed(h)), or dmps(css/tss/dtss, h)");
    using arguments = std::tuple<std::remove_cvref_t<Args>...>;
    static constexpr std::size_t n = sizeof...(Args);
    static constexpr bool has_options =
            std::same_as<nth_or_void_t<n - 1, std::remove_cvref_t<Args>...>, doacross_options>;
    static constexpr std::size_t before_options = n - (has_options ? 1 : 0);

public:
    /// Whether the fields go to the root (gather<>{} after the body).
    static constexpr bool gathers =
            std::same_as<nth_or_void_t<before_options - 1, std::remove_cvref_t<Args>...>, gather<>>;

private:
    static constexpr std::size_t tail = (has_options ? 1 : 0) + (gathers ? 1 : 0);
    static_assert(n >= tail + 2, "parallel_for_doacross: pass at least one field<T>(initial) for the loop to write, "
                                 "then the body, then optionally gather<>{} and the options");
    // (1 when the assertion above fails, so that only its message is shown.)
    static constexpr std::size_t fields_count = n >= tail + 2 ? n - 1 - tail : 1;
    using leading = typename leading_types<arguments, std::make_index_sequence<fields_count>>::type;
    static constexpr bool fields_first = n < 2 || all_fields_v<leading>;
    static_assert(fields_first,
                  "parallel_for_doacross: the arguments between the policy and the body must be field<T>(initial); "
                  "after the body come gather<>{} (to collect the fields on the root) and the options, in that order");
    static constexpr bool shaped = N >= 2 && D::rank == N && n >= tail + 2 && fields_first;
    using fields_type = std::conditional_t<shaped, leading, std::tuple<>>;
    using body_type = std::remove_reference_t<nth_or_void_t<fields_count, Args...>>;
    static constexpr bool callable = !shaped || doacross_body_fits<body_type, N, fields_type>;
    static_assert(callable,
                  "parallel_for_doacross: the body must be callable as body(box<N> const& part, window<T, N>&... "
                  "arrays), one window per field, in order");

public:
    /// Whether the pack passed every check (else only the failed assertion's message is shown).
    static constexpr bool valid = shaped && callable && (mapped || is_synchronized_v<P> || std::same_as<P, any_policy>);
    using outcome_type =
            std::conditional_t<shaped, typename doacross_outcome_of<N, fields_type>::type, outcome<std::tuple<>>>;

    outcome_type out{};
    doacross_options options{};

    /// `earlier`: an error met making the policy (a spec that did not parse),
    /// which fails the loop on every rank; converting the dependences may add one.
    doacross_arguments(D const& deps, std::exception_ptr earlier, Args&&... args)
        : options(options_of(args...)), earlier_(std::move(earlier)), all_(std::forward<Args>(args)...),
          fields_(fields_of(std::move(all_))), set_(set_of(deps, earlier_)), body_(body_of(all_, fields_, out)) {}
    doacross_arguments(doacross_arguments const&) = delete; // the erased body points into `out`
    doacross_arguments& operator=(doacross_arguments const&) = delete;

    [[nodiscard]] dependence_set<N> const& deps() const { return set_; }
    [[nodiscard]] doacross_body<N>& body() { return body_; }
    [[nodiscard]] std::exception_ptr earlier() const { return earlier_; }

private:
    using set_type = std::conditional_t<valid, dependence_set<N>, int>;
    using body_holder = std::conditional_t<valid, typename typed_doacross_body_of<N, body_type, fields_type>::type, int>;

    static doacross_options options_of(Args const&... args) {
        if constexpr (valid && has_options)
            return std::get<n - 1>(std::forward_as_tuple(args...));
        else
            return {};
    }
    static fields_type fields_of(std::tuple<Args&&...>&& all) {
        if constexpr (valid)
            return take_fields(std::move(all), std::make_index_sequence<fields_count>{});
        else
            return {};
    }
    static set_type set_of(D const& deps, std::exception_ptr& earlier) {
        if constexpr (valid)
            return as_dependence_set(deps, earlier);
        else
            return 0;
    }
    static body_holder body_of(std::tuple<Args&&...>& all, fields_type const& fields, outcome_type& out) {
        if constexpr (valid)
            return {std::get<fields_count>(all), fields, out.value};
        else
            return 0;
    }

    std::exception_ptr earlier_;
    std::tuple<Args&&...> all_;
    fields_type fields_;
    set_type set_;
    body_holder body_;
};

} // namespace detail
} // namespace loopsched
