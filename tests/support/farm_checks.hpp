// Checks shared by the task farm tests: after a farm stopped early, every
// task either ran once and delivered its own value, or was cancelled.
#pragma once

#include <loopsched/algorithm/task_farm.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace loopsched::testing {

/// Task i returned i. `runs[i]` counts how often it ran. Returns how many
/// results were delivered; the statistics must count exactly those.
inline std::size_t check_ran_or_cancelled(std::vector<std::atomic<int>> const& runs, farm_outcome<int> const& out) {
    std::size_t delivered = 0;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        bool const cancelled = std::ranges::binary_search(out.cancelled, std::uint64_t(i));
        bool const ran = runs[i] == 1;
        CHECK(cancelled != ran); // each task either ran (and delivered) or was cancelled
        if (ran) {
            CHECK(out.value[i] == static_cast<int>(i));
            ++delivered;
        }
    }
    CHECK(out.statistics.iterations() == static_cast<index_t>(delivered));
    return delivered;
}

} // namespace loopsched::testing
