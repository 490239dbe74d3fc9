// Placements written as a user would: an EstimatePlacement that sends each
// new task to the worker holding the least estimated work per unit of speed,
// turning ties in turn (the farm and divide-and-conquer tests both run it),
// and a TreePlacement, work-first stealing (divide-and-conquer's).
#pragma once

#include <loopsched/mapping/estimates.hpp>
#include <loopsched/mapping/placement.hpp>

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

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

/// Work-first stealing, as Cilk's runtime does it: a worker divides while it
/// has fewer than two queued tasks per worker, runs its newest task (depth
/// first, as a sequential run would), and a thief takes the victim's oldest
/// (the largest subtree); an idle worker steals at random.
struct work_first_placement {
    struct state {
        std::vector<placed_worker> first_list(std::span<placed_worker const> by_speed) const {
            return {by_speed.front()}; // the others start idle, and steal
        }
        std::vector<std::vector<placed_worker>> split(std::span<placed_worker const> list, std::size_t) const {
            return {{list.begin(), list.end()}}; // no lists to hand down: work moves by stealing
        }
        bool divides(std::size_t queued, std::size_t workers) const { return queued < 2 * workers; }
        std::size_t next(std::span<queued_task const> queue, bool) const {
            return static_cast<std::size_t>(std::ranges::max_element(queue, {}, &queued_task::order) -
                                            queue.begin()); // the newest
        }
        std::vector<std::size_t> give(std::span<queued_task const> queue, bool) const {
            if (queue.empty()) return {};
            return {static_cast<std::size_t>(std::ranges::min_element(queue, {}, &queued_task::order) -
                                             queue.begin())}; // the oldest
        }
        idle_action when_idle() const { return idle_action::steal; }
        bool balances() const { return false; }
        bool spills() const { return true; }
    };
    state start(placement_info const&) const { return {}; }
    std::string spec() const { return "work-first"; }
    friend bool operator==(work_first_placement, work_first_placement) = default;
};

static_assert(TreePlacement<work_first_placement>);

} // namespace loopsched::testing
