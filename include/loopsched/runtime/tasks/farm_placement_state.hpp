// The farm master's part that asks the placement: the placement's state
// (farm_decisions), what it says once at the start, and the farm as that
// state sees it (farm_view over the master's book, workers and cost model).
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/mapping/farm_placements.hpp>
#include <loopsched/runtime/tasks/farm_book.hpp>
#include <loopsched/runtime/tasks/farm_model.hpp>
#include <loopsched/runtime/tasks/farm_workers.hpp>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

namespace loopsched::detail {

/// The placement's state at a farm's master, asked as workers become idle
/// and as tasks are made.
class farm_placement_state {
public:
    farm_placement_state(farm_settings const& fs, farm_workers const& workers) {
        farm_info info;
        info.workers = workers.size();
        for (auto const& w : workers) info.status.push_back(w.status);
        info.units = fs.expected_tasks;
        info.initial_tasks = fs.initial_tasks;
        info.idle_below = fs.idle_below;
        info.replies_before_model = fs.replies_before_model;
        // A group's producer submits as it goes: a chunk policy takes the queue in batches, as a fed group's does.
        info.batches = fs.batches || fs.producers_in_groups;
        decisions_ = fs.placement.farm_decisions(info);
        if (!decisions_) throw error("loopsched: task farm: placement '" + fs.placement.spec() + "' is no farm's");
        idle_below_ = decisions_->idle_below();
        moves_work_ = decisions_->moves_work();
        largest_first_ = decisions_->largest_first();
    }

    /// What idle worker k gets from the queue now.
    [[nodiscard]] farm_grant grant(farm_view& farm, std::size_t k) { return decisions_->grant(farm, k); }
    /// Where a new task goes at once, or none: it is queued.
    [[nodiscard]] std::optional<std::size_t> place_new(farm_view& farm) { return decisions_->place_new(farm); }
    /// A worker holding fewer tasks is idle.
    [[nodiscard]] std::size_t idle_below() const noexcept { return idle_below_; }
    /// With nothing queued, an idle worker is answered by a busy worker's tasks.
    [[nodiscard]] bool moves_work() const noexcept { return moves_work_; }
    /// Once the cost model is ready, tasks go largest estimate first.
    [[nodiscard]] bool largest_first() const noexcept { return largest_first_; }
    /// The farm ended (on the root): the placement's state hears how it went.
    void finish(loop_statistics& table) { decisions_->finish(table); }

private:
    std::unique_ptr<farm_decisions> decisions_;
    std::size_t idle_below_ = 1;
    bool moves_work_ = false, largest_first_ = false;
};

/// The farm as its placement's state sees it. `producing` and `flushing` are
/// the master's: its producer runs, and waits for every result.
template <Transport T>
class farm_master_view final : public farm_view {
public:
    farm_master_view(farm_book const& book, farm_workers& workers, farm_cost_model const& model,
                     farm_redistribution<T> const& redistribution, bool const& producing, bool const& flushing) noexcept
            : book_(book), workers_(workers), model_(model), redistribution_(redistribution), producing_(producing),
              flushing_(flushing) {}
    [[nodiscard]] std::size_t workers() const override { return workers_.size(); }
    [[nodiscard]] worker_status status(std::size_t k) const override { return workers_[k].status; }
    [[nodiscard]] double share(std::size_t k) const override { return workers_[k].share; }
    [[nodiscard]] std::size_t held(std::size_t k) const override { return workers_[k].count; }
    [[nodiscard]] std::size_t limit(std::size_t k, std::size_t per_worker) const override {
        return workers_.limit(k, per_worker);
    }
    [[nodiscard]] std::size_t queued() const override { return book_.queued(); }
    [[nodiscard]] std::size_t held_total() const override { return workers_.held_count(); }
    [[nodiscard]] bool modelled() const override { return model_.ready(); }
    [[nodiscard]] double work_left() const override {
        return redistribution_.estimated_total(book_.queued_heur(), book_.queued());
    }
    [[nodiscard]] bool more_coming() const override { return producing_ && !flushing_; }
    [[nodiscard]] std::optional<std::size_t> next_below(std::size_t per_worker) override {
        return workers_.next_starter(per_worker);
    }

private:
    farm_book const& book_;
    farm_workers& workers_;
    farm_cost_model const& model_;
    farm_redistribution<T> const& redistribution_;
    bool const& producing_;
    bool const& flushing_;
};

} // namespace loopsched::detail
