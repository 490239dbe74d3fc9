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

/// parallel_for with the policy given as its spec string, parsed inside the
/// loop on every rank; the rest as for a policy value (algorithm/parallel_for.hpp).
template <channel_source C, IterationSpace S, class... Args>
auto parallel_for(C& transport, S const& space, std::string_view spec, Args&&... args) {
    auto& ch = detail::channel_of(transport);
    auto [policy, earlier] = detail::parse_on_this_rank(spec);
    detail::doall_arguments<S, any_policy, Args...> a(space, ch.rank(), earlier, std::forward<Args>(args)...);
    if constexpr (decltype(a)::pack::valid)
        detail::take_run(detail::run_doall_on(ch, a.call(), policy, a.mapping(), a.body(), a.options), a.out);
    return std::move(a.out);
}

/// parallel_for_doacross with the policy given as its spec string, parsed
/// inside the loop on every rank; the rest as for a policy value
/// (algorithm/parallel_for_doacross.hpp).
template <channel_source C, std::size_t N, DependenceSet D, class... Args>
requires(sizeof...(Args) >= 2) auto parallel_for_doacross(C& transport, box<N> const& space, D const& deps,
                                                          std::string_view spec, Args&&... args) {
    auto [policy, earlier] = detail::parse_on_this_rank(spec);
    detail::doacross_arguments<N, D, any_policy, Args...> a(deps, earlier, std::forward<Args>(args)...);
    if constexpr (decltype(a)::valid)
        detail::take_run(detail::run_doacross_on(detail::channel_of(transport), space, a.deps(), policy, a.body(),
                                                 a.options, a.gathers, a.earlier()),
                         a.out);
    return std::move(a.out);
}

} // namespace loopsched
