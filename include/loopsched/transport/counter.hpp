// The shared counter a transport may offer, through which the ranks of a loop
// without a master claim its scheduling steps, and the helper that asks for it.
#pragma once

#include <concepts>
#include <cstdint>

namespace loopsched {

/// A transport with a counter that every rank can fetch-and-add atomically,
/// kept by rank 0 (an MPI window, a std::atomic in-process, a modelled remote
/// atomic in SimGrid). Loops with parallel_for_options::masterless claim
/// their scheduling steps through it.
///   counter_opened()        whether it is ready on this rank;
///   counter_open()          makes it ready; collective over every rank where
///                           that takes one (MPI allocates a window);
///   counter_fetch_add(n)    adds n and returns the value before, atomically
///                           with respect to every other rank's calls.
template <class T>
concept has_shared_counter = requires(T& t, T const& ct, std::int64_t n) {
    { ct.counter_opened() } -> std::same_as<bool>;
    t.counter_open();
    { t.counter_fetch_add(n) } -> std::same_as<std::int64_t>;
};

namespace detail {

/// Whether `t` has a shared counter: its type says so, or, for an erased
/// transport, the transport behind it.
template <class T>
bool shares_a_counter(T const& t) {
    if constexpr (requires {
                      { t.has_counter() } -> std::same_as<bool>;
                  })
        return t.has_counter();
    else
        return has_shared_counter<T>;
}

} // namespace detail
} // namespace loopsched
