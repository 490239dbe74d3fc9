// The task farm's placements as states its master asks (FarmPlacement):
// Kazouris's scheme (kazouris_placement's farm state), SS and a chunk policy
// over the task stream, and farm_decisions, any farm placement's state behind
// one interface, which the farm's master holds.
#pragma once

#include <loopsched/any_policy.hpp>
#include <loopsched/hooks.hpp>
#include <loopsched/mapping/concepts.hpp>
#include <loopsched/schedule.hpp>
#include <loopsched/statistics.hpp>

#include <cmath>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace loopsched {

/// Kazouris's scheme for a task farm (chapter 4), as kazouris_placement
/// starts it for a farm: before the cost model, each new task goes round
/// robin from the fastest worker to one holding fewer than f, and an idle
/// worker is filled up to f; after it, an idle worker gets its share w(W) of
/// the estimated work left (at most twice its share of the tasks left, by
/// count), the largest first, and with nothing queued a busy worker moves
/// work to it.
class kazouris_farm_state {
public:
    explicit kazouris_farm_state(farm_info const& info) noexcept
            : initial_(info.initial_tasks), idle_below_(info.idle_below) {}

    [[nodiscard]] farm_grant grant(farm_view& farm, std::size_t k) const {
        if (!farm.modelled()) { // no estimates yet: fill up to f, oldest first
            std::size_t const limit = farm.limit(k, initial_), held = farm.held(k);
            return {limit > held ? limit - held : 0};
        }
        // At most twice the worker's share of the tasks left, by count. The
        // line is applied to queued tasks far beyond its window: a slope that
        // passed the noise test by chance (a few replies inflated, as CPU
        // contention does to a simulation's charged times) put the queued
        // tasks at a small fraction of the held ones' estimate, and one
        // worker's share of the work came to 400-1,800 tasks: 0.05-0.25 of
        // the ideal at 1,024 workers, one run in 10-40.
        auto const left = static_cast<double>(farm.queued() + farm.held_total());
        return {static_cast<std::size_t>(std::ceil(2.0 * farm.share(k) * left)), farm.share(k) * farm.work_left()};
    }
    [[nodiscard]] std::optional<std::size_t> place_new(farm_view& farm) const {
        if (farm.modelled()) return std::nullopt;
        return farm.next_below(initial_);
    }
    [[nodiscard]] std::size_t idle_below() const noexcept { return idle_below_; }
    [[nodiscard]] static constexpr bool moves_work() noexcept { return true; }
    [[nodiscard]] static constexpr bool largest_first() noexcept { return true; }

private:
    std::size_t initial_, idle_below_;
};

/// SS for a task farm: an idle worker gets one task (a group, as many as it
/// has free places).
struct self_scheduling_placement {
    static constexpr std::string_view name = "ss";
    struct state {
        [[nodiscard]] farm_grant grant(farm_view& farm, std::size_t k) const {
            std::size_t const limit = farm.limit(k, 1), held = farm.held(k);
            return {limit > held ? limit - held : 1};
        }
        [[nodiscard]] std::optional<std::size_t> place_new(farm_view&) const { return std::nullopt; }
        [[nodiscard]] static constexpr std::size_t idle_below() noexcept { return 1; }
        [[nodiscard]] static constexpr bool moves_work() noexcept { return false; }
        [[nodiscard]] static constexpr bool largest_first() noexcept { return false; }
    };
    [[nodiscard]] state start(farm_info const&) const noexcept { return {}; }
    [[nodiscard]] std::string spec() const { return std::string(name); }
    friend constexpr bool operator==(self_scheduling_placement, self_scheduling_placement) = default;
};

/// A chunk policy over a farm's task stream: a worker's next chunk of tasks
/// is the policy's next chunk of iterations over the tasks in creation order.
/// The count must be known ahead (task_farm_options::expected_tasks, the
/// farm_info's units), except in batches (a hierarchical farm's group), where
/// each batch at hand is a loop of its own.
struct chunked_placement {
    any_policy policy;

    class state {
    public:
        state(any_policy policy, farm_info const& info)
                : policy_(std::move(policy)), batches_(info.batches), pending_(info.workers) {
            if (!batches_) start(info.units, info.status);
        }

        [[nodiscard]] farm_grant grant(farm_view& farm, std::size_t k) {
            std::size_t const queued = farm.queued();
            if (!pending_[k] && batches_ && (!sequencer_ || sequencer_->done())) {
                std::vector<worker_status> status(farm.workers());
                for (std::size_t j = 0; j < status.size(); ++j) status[j] = farm.status(j);
                start(queued, std::move(status));
            }
            if (!pending_[k]) {
                if (sequencer_->done()) return {1}; // more tasks than expected (a wait_all cut a chunk): one each
                pending_[k] = sequencer_->next(request{k, farm.status(k), {}});
                if (!pending_[k]) return {}; // left out for now
            }
            auto const size = static_cast<std::size_t>(pending_[k]->size);
            if (queued < size && farm.more_coming()) return {}; // its tasks are not all made yet
            pending_[k].reset();
            return {size};
        }
        [[nodiscard]] std::optional<std::size_t> place_new(farm_view&) const { return std::nullopt; }
        [[nodiscard]] static constexpr std::size_t idle_below() noexcept { return 1; }
        [[nodiscard]] static constexpr bool moves_work() noexcept { return false; }
        [[nodiscard]] static constexpr bool largest_first() noexcept { return false; }
        /// The farm ended (on the root): a policy that learns across executions
        /// (automatic) hears how it went, one farm being one execution.
        static constexpr hook_set hooks{.finish = true};
        void finish(loop_statistics& table) {
            if (sequencer_) sequencer_->finish(table);
        }

    private:
        void start(std::size_t tasks, std::vector<worker_status> status) {
            sequencer_.emplace(policy_, loop_info{static_cast<index_t>(tasks), pending_.size(), std::move(status)});
        }

        any_policy policy_;
        bool batches_;
        std::vector<std::optional<chunk>> pending_;
        std::optional<chunk_sequencer<any_policy>> sequencer_;
    };

    [[nodiscard]] state start(farm_info const& info) const { return state(policy, info); }
    [[nodiscard]] std::string spec() const { return policy.spec(); }
    friend bool operator==(chunked_placement const&, chunked_placement const&) = default;
};

namespace detail {

/// A farm placement's state behind one interface: what the farm's master
/// holds. idle_below, moves_work and largest_first are asked once, at the start.
class farm_decisions {
public:
    virtual ~farm_decisions() = default;
    [[nodiscard]] virtual farm_grant grant(farm_view& farm, std::size_t k) = 0;
    [[nodiscard]] virtual std::optional<std::size_t> place_new(farm_view& farm) = 0;
    [[nodiscard]] virtual std::size_t idle_below() const = 0;
    [[nodiscard]] virtual bool moves_work() const = 0;
    [[nodiscard]] virtual bool largest_first() const = 0;
    /// The farm ended, with its table (on the root).
    virtual void finish(loop_statistics& table) = 0;
};

/// `S` (a FarmPlacement's state) as farm_decisions.
template <FarmPlacementState S>
class farm_decisions_of final : public farm_decisions {
public:
    explicit farm_decisions_of(S state) : state_(std::move(state)) {}
    [[nodiscard]] farm_grant grant(farm_view& farm, std::size_t k) override { return state_.grant(farm, k); }
    [[nodiscard]] std::optional<std::size_t> place_new(farm_view& farm) override { return state_.place_new(farm); }
    [[nodiscard]] std::size_t idle_below() const override { return state_.idle_below(); }
    [[nodiscard]] bool moves_work() const override { return state_.moves_work(); }
    [[nodiscard]] bool largest_first() const override { return state_.largest_first(); }
    void finish(loop_statistics& table) override { finish_state(state_, table); }

private:
    S state_;
};

/// The decisions a farm makes with `p`.
template <FarmPlacement P>
std::unique_ptr<farm_decisions> farm_decisions_for(P const& p, farm_info const& info) {
    using S = decltype(p.start(info));
    return std::make_unique<farm_decisions_of<S>>(p.start(info));
}

} // namespace detail
} // namespace loopsched
