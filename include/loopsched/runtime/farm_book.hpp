// The tasks a farm's master holds: each by id from its submission to its
// result or cancellation, and the queue of those not yet sent, best last
// (seed 000's order: priority, then creation order or the model's estimate).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

namespace loopsched::detail {

class farm_book {
public:
    enum class state : std::uint8_t { queued, sent, done, cancelled };
    struct task {
        std::vector<std::byte> payload; ///< until sent
        double heur = 0.0;
        double priority = 0.0;
        int owner = -1;
        state where = state::queued;
    };

    /// A new task; returns its id (creation order).
    std::uint64_t add(task t) {
        tasks_.push_back(std::move(t));
        return tasks_.size() - 1;
    }
    [[nodiscard]] task& operator[](std::uint64_t id) noexcept { return tasks_[id]; }
    [[nodiscard]] task const& operator[](std::uint64_t id) const noexcept { return tasks_[id]; }
    [[nodiscard]] task& at(std::uint64_t id) { return tasks_.at(id); }
    [[nodiscard]] std::size_t size() const noexcept { return tasks_.size(); }

    // ---- the queue

    void enqueue(std::uint64_t id) {
        queue_.insert(key_of(id));
        queued_heur_ += tasks_[id].heur;
    }
    /// From now on the queue is ordered by heur (the model is ready): rebuilt once.
    void order_by_heur() {
        if (by_heur_) return;
        by_heur_ = true;
        std::set<key> fresh;
        for (auto const& e : queue_) fresh.insert(key_of(~std::get<2>(e)));
        queue_ = std::move(fresh);
    }
    /// The best queued task, off the queue. Ordered by heur, the largest
    /// estimate is at the high end when lambda >= 0, else at the low end
    /// (`lowest_heur`), so a refit that flips lambda's sign changes only which
    /// end is taken; either way the highest priority first.
    std::uint64_t take_best(bool lowest_heur) {
        auto best = std::prev(queue_.end());
        if (by_heur_ && lowest_heur)
            best = queue_.lower_bound(key{std::get<0>(*best), -std::numeric_limits<double>::infinity(), 0});
        auto const id = ~std::get<2>(*best);
        queue_.erase(best);
        queued_heur_ -= tasks_[id].heur;
        return id;
    }
    [[nodiscard]] bool queue_empty() const noexcept { return queue_.empty(); }
    [[nodiscard]] std::size_t queued() const noexcept { return queue_.size(); }
    /// The sum of heur over the queue, for (4.1).
    [[nodiscard]] double queued_heur() const noexcept { return queued_heur_; }
    /// Task 0's heur changed while queued (the measure became the payload size).
    void requeued_heur(double change) noexcept { queued_heur_ += change; }

    // ---- how tasks end

    void finish(std::uint64_t id) {
        tasks_[id].where = state::done;
        ++resolved_;
    }
    void cancel(std::uint64_t id) {
        auto& t = tasks_[id];
        t.where = state::cancelled;
        std::vector<std::byte>().swap(t.payload);
        cancelled_.push_back(id);
        ++resolved_;
    }
    /// Every queued task cancelled (the farm stops).
    void cancel_queue() {
        for (auto const& e : queue_) cancel(~std::get<2>(e));
        queue_.clear();
        queued_heur_ = 0.0;
    }
    /// Every task submitted so far has its result, or was cancelled.
    [[nodiscard]] bool all_resolved() const noexcept { return resolved_ == tasks_.size(); }
    [[nodiscard]] std::vector<std::uint64_t> const& cancelled() const noexcept { return cancelled_; }

private:
    /// (priority, creation order or heur, ~id): the best last; ~id makes the
    /// oldest best among equals and keys unique.
    using key = std::tuple<double, double, std::uint64_t>;
    [[nodiscard]] key key_of(std::uint64_t id) const {
        auto const& t = tasks_[id];
        if (!by_heur_) return {t.priority, -static_cast<double>(id), ~id};
        return {t.priority, t.heur, ~id};
    }

    std::vector<task> tasks_;
    std::set<key> queue_;
    double queued_heur_ = 0.0;
    bool by_heur_ = false;
    std::vector<std::uint64_t> cancelled_;
    std::size_t resolved_ = 0;
};

} // namespace loopsched::detail
