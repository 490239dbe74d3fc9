// The algorithms with the policy given as a spec string ("w-fss:alpha=2"),
// parsed inside the loop on every rank: a spec that does not parse on one rank
// (read from a per-rank file, say) fails the loop on every rank with that
// rank's error, where parsing it before the call would leave the others waiting.
#pragma once

#include <loopsched/algorithm/parallel_for.hpp>
#include <loopsched/algorithm/parallel_for_doacross.hpp>
#include <loopsched/policy/static.hpp>
#include <loopsched/spec.hpp>

#include <exception>
#include <string_view>
#include <utility>

namespace loopsched {

namespace detail {

/// The spec's policy, or a stand-in and the reason it did not parse.
inline std::pair<any_policy, std::exception_ptr> parse_on_this_rank(std::string_view spec) {
    try {
        return {parse_policy(spec), nullptr};
    } catch (...) {
        return {any_policy(synchronized<static_schedule>()), std::current_exception()};
    }
}

} // namespace detail

template <channel_source C, IterationSpace S, LoopMapping M, class Body>
requires std::invocable<Body&, S const&> loop_statistics parallel_for(C& transport, S const& space,
                                                                      std::string_view spec, M const& mapping,
                                                                      Body&& body,
                                                                      parallel_for_options const& options = {}) {
    auto [policy, earlier] = detail::parse_on_this_rank(spec);
    return detail::run_doall<C, S, any_policy, M, std::remove_reference_t<Body>, void>(
            transport, space, policy, mapping, body, 0, nullptr, options, earlier);
}

template <channel_source C, IterationSpace S, class Body>
requires std::invocable<Body&, S const&> loop_statistics parallel_for(C& transport, S const& space,
                                                                      std::string_view spec, Body&& body,
                                                                      parallel_for_options const& options = {}) {
    return parallel_for(transport, space, spec, dynamic_mapping{}, std::forward<Body>(body), options);
}

template <channel_source C, IterationSpace S, LoopMapping M, class Body, transferable R>
requires std::invocable<Body&, S const&, std::span<R>> gathered<R>
parallel_for(C& transport, S const& space, std::string_view spec, M const& mapping, Body&& body, gather<R> how,
             parallel_for_options const& options = {}) {
    auto [policy, earlier] = detail::parse_on_this_rank(spec);
    gathered<R> out;
    out.statistics = detail::run_doall<C, S, any_policy, M, std::remove_reference_t<Body>, R>(
            transport, space, policy, mapping, body, how.per_iteration, &out.value, options, earlier);
    return out;
}

template <channel_source C, IterationSpace S, class Body, transferable R>
requires std::invocable<Body&, S const&, std::span<R>> gathered<R>
parallel_for(C& transport, S const& space, std::string_view spec, Body&& body, gather<R> how,
             parallel_for_options const& options = {}) {
    return parallel_for(transport, space, spec, dynamic_mapping{}, std::forward<Body>(body), how, options);
}

template <channel_source C, std::size_t N, DependenceSet D, class... Args>
requires(sizeof...(Args) >= 2) auto parallel_for_doacross(C& transport, box<N> const& space, D const& deps,
                                                          std::string_view spec, Args&&... args) {
    auto [policy, earlier] = detail::parse_on_this_rank(spec);
    return detail::doacross_with(detail::channel_doacross_engines<C>{transport}, space, deps, policy, earlier,
                                 std::forward<Args>(args)...);
}

} // namespace loopsched
