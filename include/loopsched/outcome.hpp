// What every algorithm returns: outcome<Value>, the run's value (on the root)
// and its statistics (on every rank); an algorithm with more to say derives
// from it (farm_outcome, dnc_outcome, doacross_outcome).
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/runtime/core/statistics.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace loopsched {

/// A run's value (filled on the root rank; default-constructed elsewhere) and
/// its statistics (on every rank, the trace on the root only).
template <class Value>
struct outcome {
    Value value{};
    loop_statistics statistics;
};

/// The one way to ask a loop for its results on the root rank, an argument
/// after the body: parallel_for's `gather<R>{per_iteration}` collects the
/// values of type R the body writes for each iteration; parallel_for_doacross's
/// `gather<>{}` collects the fields the loop writes. Without it nothing is
/// gathered and each rank sees its own chunks only, in the body. (Farms and
/// divide-and-conquer always return their results: they are the run's value.)
template <class R = void>
requires std::is_void_v<R> || transferable<R>
struct gather {
    std::size_t per_iteration = 1;
};

/// parallel_for_doacross's: the loop's fields, whole, on the root.
template <>
struct gather<void> {};

/// A gathering parallel_for's outcome: per_iteration values of iteration i at
/// [i * per_iteration, (i + 1) * per_iteration) of `value`.
template <class R>
using gathered = outcome<std::vector<R>>;

/// A farm's outcome: on the root, every task's result by creation order in
/// `value` (unless a callback took them) and the ids of cancelled tasks; the
/// statistics on every rank.
template <class Result>
struct farm_outcome : outcome<std::vector<Result>> {
    std::vector<std::uint64_t> cancelled;
    std::size_t moved = 0; ///< on the root: tasks a busy worker passed to an idle one (redistribution)
};

} // namespace loopsched
