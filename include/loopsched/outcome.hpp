// What every algorithm returns: outcome<Value>, the run's value (on the root)
// and its statistics (on every rank); an algorithm with more to say derives
// from it (farm_outcome, dnc_outcome, doacross_outcome).
#pragma once

#include <loopsched/runtime/core/statistics.hpp>

#include <vector>

namespace loopsched {

/// A run's value (filled on the root rank; default-constructed elsewhere) and
/// its statistics (on every rank, the trace on the root only).
template <class Value>
struct outcome {
    Value value{};
    loop_statistics statistics;
};

/// A gathering parallel_for's outcome: per_iteration values of iteration i at
/// [i * per_iteration, (i + 1) * per_iteration) of `value`.
template <class R>
using gathered = outcome<std::vector<R>>;

} // namespace loopsched
