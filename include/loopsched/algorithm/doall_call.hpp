// parallel_for's arguments taken apart: the trailing pack after the policy
// ([mapping,] body [, gather<R>{k}] [, options]) checked and parsed once for
// every transport (the facades over a channel, algorithm/parallel_for.hpp,
// and over MPI, mpi/parallel_for.hpp), without the engines.
#pragma once

#include <loopsched/any_policy.hpp>
#include <loopsched/concepts.hpp>
#include <loopsched/detail/pack.hpp>
#include <loopsched/hierarchical.hpp>
#include <loopsched/mapping/mapping.hpp>
#include <loopsched/options.hpp>
#include <loopsched/outcome.hpp>
#include <loopsched/runtime/loops/doall_body.hpp>
#include <loopsched/statistics.hpp>

#include <concepts>
#include <cstddef>
#include <exception>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace loopsched {
namespace detail {

template <class T>
inline constexpr bool is_hierarchical_v = false;
template <class B, class W>
inline constexpr bool is_hierarchical_v<hierarchical<B, W>> = true;

/// What a parallel_for's scheme may be: a chunk policy, or two of them as hierarchical{between, within}.
template <class P>
concept loop_scheme = ChunkPolicy<P> || is_hierarchical_v<P>;

template <class G>
struct gathered_value {
    static constexpr bool gathers = false;
    using type = void;
};
template <class R>
requires(!std::is_void_v<R>) struct gathered_value<gather<R>> {
    static constexpr bool gathers = true;
    using type = R;
};

/// Whether a parallel_for body fits: body(part), or body(part, std::span<R>) when gathering.
template <class Body, class S, class R>
inline constexpr bool doall_body_fits = std::invocable<Body&, S const&, std::span<R>>;
template <class Body, class S>
inline constexpr bool doall_body_fits<Body, S, void> = std::invocable<Body&, S const&>;

/// parallel_for's arguments after the scheme ([mapping,] body [, gather<R>{k}]
/// [, options]), checked at compile time, with readable failures, and taken
/// apart from the tuple of them (`all`, std::forward_as_tuple of the pack).
/// `valid` is false after a failed static_assert, so that the caller compiles
/// nothing more and only the assertion's message is shown.
template <IterationSpace S, loop_scheme Scheme, class... Args>
struct doall_pack {
    static constexpr std::size_t n = sizeof...(Args);
    static constexpr bool mapped = LoopMapping<nth_or_void_t<0, std::remove_cvref_t<Args>...>>;
    static constexpr std::size_t at_body = mapped ? 1 : 0;
    static constexpr bool has_options =
            std::same_as<nth_or_void_t<n - 1, std::remove_cvref_t<Args>...>, parallel_for_options>;
    static constexpr std::size_t before_options = n - (has_options ? 1 : 0);
    using maybe_gather = nth_or_void_t<before_options - 1, std::remove_cvref_t<Args>...>;
    static constexpr bool gathers = before_options > at_body + 1 && gathered_value<maybe_gather>::gathers;
    static constexpr bool in_order = n == at_body + 1 + (gathers ? 1 : 0) + (has_options ? 1 : 0);
    static_assert(in_order, "parallel_for: after the policy come the mapping (optional) and the body; after the body "
                            "come gather<R>{per_iteration} (to collect results on the root) and the options, in "
                            "that order");
    static_assert(!(mapped && is_hierarchical_v<Scheme>),
                  "parallel_for: a hierarchical loop takes no mapping (each level places its chunks itself)");

    /// The gathered values' type (void: nothing gathered).
    using value_type = std::conditional_t<gathers, typename gathered_value<maybe_gather>::type, void>;
    using body_type = std::remove_reference_t<nth_or_void_t<at_body, Args...>>;
    static constexpr bool callable = !in_order || doall_body_fits<body_type, S, value_type>; // else only the order's message
    static_assert(callable, "parallel_for: the body must be callable as body(part), part a piece of the space, or "
                            "with gather<R> after it as body(part, std::span<R> out)");
    static constexpr bool valid = in_order && callable && !(mapped && is_hierarchical_v<Scheme>);

    /// What the call returns: gathered<R> with gather<R>, else outcome<void>.
    using outcome_type = std::conditional_t<gathers, gathered<value_type>, outcome<void>>;

    template <class All>
    static auto& body(All& all) {
        return std::get<at_body>(all);
    }
    template <class All>
    static decltype(auto) mapping(All& all) {
        if constexpr (mapped)
            return std::get<0>(all);
        else
            return dynamic_mapping{};
    }
    template <class All>
    static parallel_for_options options(All& all) {
        if constexpr (has_options)
            return std::get<n - 1>(all);
        else
            return {};
    }
    template <class All>
    static std::size_t per_iteration(All& all) {
        if constexpr (gathers)
            return std::get<before_options - 1>(all).per_iteration;
        else
            return 0;
    }
    /// Where the root's values go (null: nothing gathered).
    static std::vector<value_type>* values(outcome_type& out) {
        if constexpr (gathers)
            return &out.value;
        else
            return nullptr;
    }
};

/// The scheme as the compiled engines take it: the policy erased, or both
/// levels' policies erased.
template <loop_scheme Scheme>
auto erase_scheme(Scheme const& scheme) {
    if constexpr (is_hierarchical_v<Scheme>)
        return scheme.with_levels(erase_policy(scheme.between), erase_policy(scheme.within));
    else
        return erase_policy(scheme);
}

/// A parallel_for call's arguments, taken apart and held for the engine: the
/// outcome it returns, its options, and (for a valid pack) the loop described
/// with the body behind chunk_body. Building it calls no engine; the facade
/// then passes call(), mapping() and body() to its engine.
template <IterationSpace S, loop_scheme Scheme, class... Args>
class doall_arguments {
public:
    using pack = doall_pack<S, Scheme, Args...>;

    typename pack::outcome_type out{};
    parallel_for_options options{};

    /// `rank`: this rank, to know the root; `earlier`: an error met making the
    /// scheme (a spec that did not parse), which fails the loop on every rank.
    doall_arguments(S const& space, int rank, std::exception_ptr earlier, Args&&... args)
        : options(options_of(args...)), all_(std::forward<Args>(args)...),
          loop_(loop_of(space, all_, out, options, rank, std::move(earlier))) {}
    doall_arguments(doall_arguments const&) = delete; // the loop points into `out`
    doall_arguments& operator=(doall_arguments const&) = delete;

    [[nodiscard]] doall_call const& call() const { return loop_.call(); }
    [[nodiscard]] chunk_body& body() { return loop_.body(); }
    [[nodiscard]] decltype(auto) mapping() { return pack::mapping(all_); }

private:
    using loop_type = std::conditional_t<pack::valid,
                                         described_doall<S, typename pack::body_type, typename pack::value_type>, int>;

    static parallel_for_options options_of(Args const&... args) {
        if constexpr (pack::valid && pack::has_options)
            return std::get<pack::n - 1>(std::forward_as_tuple(args...));
        else
            return {};
    }
    static loop_type loop_of(S const& space, std::tuple<Args&&...>& all, typename pack::outcome_type& out,
                             parallel_for_options const& o, int rank, std::exception_ptr earlier) {
        if constexpr (pack::valid)
            return {space, pack::body(all), pack::per_iteration(all), pack::values(out), o, rank == o.root,
                    std::move(earlier)};
        else
            return 0;
    }

    std::tuple<Args&&...> all_;
    loop_type loop_;
};

} // namespace detail
} // namespace loopsched
