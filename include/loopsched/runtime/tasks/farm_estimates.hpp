// The estimates scheme at a farm's master (Karamcheti and Wah's D_LPT and its
// baselines): every new task is placed on a worker at once; it waits at the
// master, on that worker's list, until the worker holds fewer than
// estimates_ahead tasks. The load table is rebuilt from what the master knows
// before each decision.
#pragma once

#include <loopsched/mapping/estimates.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace loopsched::detail {

class farm_estimates {
public:
    /// `speeds`: each worker's, relative to the slowest.
    farm_estimates(any_estimate_placement const& placement, std::vector<double> const& speeds)
            : sched_(placement, speeds, migration_cost{}), // a task still at the master moves for nothing
              placed_(speeds.size()), held_(speeds.size()), since_(speeds.size(), 0.0), revisions_(speeds.size()) {}

    /// Task `id` went to worker k; `first`: k held nothing, so it starts now.
    void sent(std::size_t k, std::uint64_t id, bool first, double now) {
        if (first) since_[k] = now;
        held_[k].push_back(id);
    }
    /// Task `id`'s result came from worker k: its next task starts now.
    void finished(std::size_t k, std::uint64_t id, double now) {
        std::erase(held_[k], id);
        since_[k] = now;
    }

    /// Rule 1 (or a baseline's choice) for a new task: its worker. `rho(id)`
    /// is a task's estimate in speed-1 seconds.
    template <class Rho>
    std::size_t place(std::uint64_t id, Rho const& rho, double now) {
        refresh_all(rho);
        std::size_t const k = sched_.place(rho(id), now);
        placed_[k].push_back(id);
        return k;
    }
    /// The largest task placed on k and still here, off its list.
    template <class Rho>
    std::optional<std::uint64_t> take_next(std::size_t k, Rho const& rho) {
        if (placed_[k].empty()) return std::nullopt;
        auto const best = std::ranges::max_element(placed_[k], {}, rho);
        std::uint64_t const id = *best;
        placed_[k].erase(best);
        return id;
    }
    /// Worker k's running task `id` revised its estimate to `remaining` (rule
    /// 3): the tasks placed on k and still here are placed again; the moves.
    template <class Rho>
    std::vector<task_move> revised(std::size_t k, std::uint64_t id, double remaining, Rho const& rho, double now) {
        revisions_[k] = revision{id, remaining, now};
        refresh_all(rho);
        auto const here = [&](std::size_t from, estimated_task const& t) { return holds(from, t.id); };
        auto moves = sched_.revised(k, now, here);
        for (auto const& m : moves) relist(m);
        return moves;
    }
    /// Rule 4, under D_LPT's rules: idle worker k pulls the lowest-priority
    /// task placed on the most loaded worker and not yet sent.
    template <class Rho>
    std::optional<task_move> pull(std::size_t k, Rho const& rho, double now) {
        if (!sched_.dlpt_rules()) return std::nullopt;
        refresh_all(rho);
        auto const movable = [&](std::size_t from, estimated_task const& t) { return holds(from, t.id); };
        auto m = sched_.idle(k, now, movable);
        if (m) relist(*m);
        return m;
    }
    /// Every task placed and not yet sent, off the lists (the farm stops).
    std::vector<std::uint64_t> take_placed() {
        std::vector<std::uint64_t> all;
        for (auto& list : placed_) {
            all.insert(all.end(), list.begin(), list.end());
            list.clear();
        }
        return all;
    }

private:
    struct revision {
        std::uint64_t id = 0;
        double rho = 0.0, at = 0.0;
    };

    [[nodiscard]] bool holds(std::size_t k, std::uint64_t id) const {
        return std::ranges::find(placed_[k], id) != placed_[k].end();
    }
    void relist(task_move const& m) {
        std::erase(placed_[m.from], m.id);
        placed_[m.to].push_back(m.id);
    }
    /// Worker k's entry: its running task taken as the largest it holds
    /// (workers run largest first), started at its last reply (t_s), unless
    /// the task told its remaining work since (this_task::estimate).
    template <class Rho>
    void refresh(std::size_t k, Rho const& rho) {
        std::vector<estimated_task> ready;
        std::optional<double> running;
        std::uint64_t running_id = 0;
        double started = since_[k];
        for (auto const id : held_[k])
            if (!running || rho(id) > *running) {
                running = rho(id);
                running_id = id;
            }
        if (auto const& r = revisions_[k]; r && std::ranges::find(held_[k], r->id) != held_[k].end()) {
            running_id = r->id;
            running = r->rho;
            started = r->at;
        }
        for (auto const id : held_[k])
            if (id != running_id) ready.push_back({id, rho(id), 0.0});
        for (auto const id : placed_[k]) ready.push_back({id, rho(id), 0.0});
        sched_.board().report(k, running, std::move(ready), started);
    }
    template <class Rho>
    void refresh_all(Rho const& rho) {
        for (std::size_t k = 0; k < placed_.size(); ++k) refresh(k, rho);
    }

    estimate_scheduler sched_;
    std::vector<std::vector<std::uint64_t>> placed_; ///< placed on a worker, still at the master
    std::vector<std::vector<std::uint64_t>> held_;   ///< sent to a worker, no result yet
    std::vector<double> since_;                      ///< t_s: when a worker's running task started
    std::vector<std::optional<revision>> revisions_; ///< each worker's last this_task::estimate
};

} // namespace loopsched::detail
