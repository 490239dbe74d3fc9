// Placements written as a user would: an EstimatePlacement that sends each
// new task to the worker holding the least estimated work per unit of speed,
// turning ties in turn (the farm and divide-and-conquer tests both run it), a
// TreePlacement, work-first stealing (divide-and-conquer's), a FarmPlacement
// (the farm's), and one type that is both a farm's and a tree's.
#pragma once

#include <loopsched/mapping/concepts.hpp>
#include <loopsched/mapping/estimates.hpp>
#include <loopsched/mapping/placement.hpp>

#include <algorithm>
#include <cstddef>
#include <optional>
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

/// A farm placement as a user would write it (FarmPlacement): an idle worker
/// takes its share of the queue by speed, halved (guided self-scheduling by
/// hand), at least one task; no task is placed before it is queued and no
/// work moves between workers.
struct half_share_placement {
    struct state {
        farm_grant grant(farm_view& farm, std::size_t k) const {
            auto const share = static_cast<double>(farm.queued()) * farm.share(k) / 2.0;
            return {std::max<std::size_t>(1, static_cast<std::size_t>(share))};
        }
        std::optional<std::size_t> place_new(farm_view&) const { return std::nullopt; }
        std::size_t idle_below() const { return 1; }
        bool moves_work() const { return false; }
        bool largest_first() const { return false; }
    };
    state start(farm_info const&) const { return {}; }
    std::string spec() const { return "half-share"; }
    friend bool operator==(half_share_placement, half_share_placement) = default;
};

static_assert(FarmPlacement<half_share_placement> && !TreePlacement<half_share_placement>);

/// One type for both engines, as a user would write it: its state makes a
/// tree's decisions (work-first stealing, above) and a farm's (the fastest
/// idle worker first, two tasks at a time, a worker idle below two). One
/// start(placement_info) serves both: a farm's farm_info is a placement_info.
struct steal_or_pairs_placement {
    struct state : work_first_placement::state {
        farm_grant grant(farm_view& farm, std::size_t k) const {
            std::size_t const limit = farm.limit(k, 2), held = farm.held(k);
            return {limit > held ? limit - held : 1};
        }
        std::optional<std::size_t> place_new(farm_view&) const { return std::nullopt; }
        std::size_t idle_below() const { return 2; }
        bool moves_work() const { return false; }
        bool largest_first() const { return false; }
    };
    state start(placement_info const&) const { return {}; }
    std::string spec() const { return "steal-or-pairs"; }
    friend bool operator==(steal_or_pairs_placement, steal_or_pairs_placement) = default;
};

static_assert(FarmPlacement<steal_or_pairs_placement> && TreePlacement<steal_or_pairs_placement>);

} // namespace loopsched::testing
