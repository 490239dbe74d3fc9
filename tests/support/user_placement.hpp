// A placement written as a user would: an EstimatePlacement that sends each
// new task to the worker holding the least estimated work per unit of speed,
// turning ties in turn. The farm and divide-and-conquer tests both run it.
#pragma once

#include <loopsched/mapping/estimates.hpp>

#include <cstddef>
#include <string>

namespace loopsched::testing {

struct least_work_placement {
    struct state {
        std::size_t turn = 0;
        std::size_t choose(dlpt_board const& board, double, double now) {
            std::size_t const n = board.size();
            std::size_t best = turn++ % n;
            for (std::size_t j = 0; j < n; ++j)
                if (board.load(j, now) < board.load(best, now)) best = j;
            return best;
        }
    };
    state start(placement_info const&) const { return {}; }
    std::string spec() const { return "least-work"; }
    friend bool operator==(least_work_placement, least_work_placement) = default;
};

static_assert(EstimatePlacement<least_work_placement>);

} // namespace loopsched::testing
