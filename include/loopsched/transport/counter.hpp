// The shared counter and claims log a transport may offer, through which the
// ranks of a loop without a master claim its scheduling steps, and the helper
// that asks for them.
#pragma once

#include <concepts>
#include <cstdint>
#include <span>

namespace loopsched {

/// A transport with a counter that every rank can fetch-and-add atomically,
/// and a log of 32-bit entries that every rank can compare-and-swap and read,
/// both kept by rank 0 (MPI windows, std::atomic in-process, modelled remote
/// atomics in SimGrid). Loops with parallel_for_options::masterless claim
/// their scheduling steps through them: with the counter where a step's chunk
/// is fixed by the step, in the log where it depends on who claims it.
///   counter_opened()        whether the counter is ready on this rank;
///   counter_open()          makes it ready; collective over every rank where
///                           that takes one (MPI allocates a window);
///   counter_fetch_add(n)    adds n and returns the value before, atomically
///                           with respect to every other rank's calls;
///   claims_reserve(n)       at least n entries, those not yet held zero;
///                           every rank calls it with the same n after the
///                           counter is open (collective where growing takes
///                           one);
///   claims_clear()          on rank 0, while no rank uses the log: zeroes the
///                           entries written so far (they form a prefix);
///   claims_compare_and_swap(slot, who)
///                           writes `who` (> 0) into entry `slot` if it holds
///                           0, atomically; returns the entry's value before
///                           (0: written), or a negative value if rank 0 is
///                           unreachable (failed);
///   claims_read(slot, out)  reads entries slot, slot + 1, ... into `out`,
///                           each atomically (0 past the log's end, or where
///                           rank 0 is unreachable).
template <class T>
concept has_shared_counter = requires(T& t, T const& ct, std::int64_t n, std::int32_t who,
                                      std::span<std::int32_t> out) {
    { ct.counter_opened() } -> std::same_as<bool>;
    t.counter_open();
    { t.counter_fetch_add(n) } -> std::same_as<std::int64_t>;
    t.claims_reserve(n);
    t.claims_clear();
    { t.claims_compare_and_swap(n, who) } -> std::same_as<std::int32_t>;
    t.claims_read(n, out);
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
