// Reading a parameter pack by position at compile time, for the algorithms'
// trailing arguments.
#pragma once

#include <cstddef>

namespace loopsched::detail {

/// The `I`th type of `Ts`, or void past the end (so that a short pack fails
/// only the static_assert that names what is missing).
template <std::size_t I, class... Ts>
struct nth_or_void {
    using type = void;
};
template <std::size_t I, class T, class... Ts>
struct nth_or_void<I, T, Ts...> : nth_or_void<I - 1, Ts...> {};
template <class T, class... Ts>
struct nth_or_void<0, T, Ts...> {
    using type = T;
};
template <std::size_t I, class... Ts>
using nth_or_void_t = typename nth_or_void<I, Ts...>::type;

} // namespace loopsched::detail
