// The tasks a farm's master holds: each by id from its submission to its
// result or cancellation, measured for the heuristic, and the queue of those
// not yet sent, best last (Kazouris et al.'s order: priority, then creation
// order or the model's estimate).
#pragma once

#include <loopsched/error.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <iterator>
#include <limits>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace loopsched::detail {

class farm_book {
public:
    enum class state : std::uint8_t { queued, sent, done, cancelled, moved, lent };
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
    /// A new task, queued (not in the queue yet), with its heuristic value:
    /// the user's cost if the first task had one (then every task must),
    /// else its bytes' count once two tasks differ in size, else its creation
    /// order. Returns how much task 0's value changed (it is measured again
    /// when sizes start to count), for whoever holds task 0.
    double add_measured(std::vector<std::byte> payload, std::optional<double> cost, double priority) {
        auto const id = static_cast<std::uint64_t>(tasks_.size());
        if (id == 0) {
            with_cost_ = cost.has_value();
            first_size_ = payload.size();
        } else if (cost.has_value() != with_cost_) {
            require(false, "submit(task, cost)", id,
                    "every task needs a cost estimate once the first had one, and none otherwise");
        }
        double heur = static_cast<double>(id + 1), change = 0.0;
        if (with_cost_) {
            require(std::isfinite(*cost), "task cost", *cost, "must be finite");
            heur = *cost;
        } else if (id == 1 && payload.size() != first_size_) {
            by_size_ = true;
            auto& first = tasks_[0];
            change = static_cast<double>(first_size_) - first.heur;
            if (first.where == state::queued) queued_heur_ += change;
            first.heur = static_cast<double>(first_size_);
        }
        if (by_size_) heur = static_cast<double>(payload.size());
        add(task{std::move(payload), heur, priority, -1, state::queued});
        return change;
    }
    /// A task submitted once the farm stopped: cancelled at once. Returns its id.
    std::uint64_t add_cancelled(double priority) {
        auto const id = add(task{{}, 0.0, priority, -1, state::queued});
        cancel(id);
        return id;
    }
    /// Tasks carry the user's cost estimates.
    [[nodiscard]] bool with_cost() const noexcept { return with_cost_; }
    [[nodiscard]] task& operator[](std::uint64_t id) noexcept { return tasks_[id]; }
    [[nodiscard]] task const& operator[](std::uint64_t id) const noexcept { return tasks_[id]; }
    [[nodiscard]] task& at(std::uint64_t id) { return tasks_.at(id); }
    [[nodiscard]] std::size_t size() const noexcept { return tasks_.size(); }

    // ---- the queue

    void enqueue(std::uint64_t id) {
        queue_.insert(key_of(id)); // mostly at one end: creation order, or costs that grow
        queued_heur_ += tasks_[id].heur;
    }
    /// From now on the queue is ordered by heur (the model is ready): rebuilt once.
    void order_by_heur() {
        if (by_heur_) return;
        by_heur_ = true;
        std::vector<std::uint64_t> ids;
        ids.reserve(queue_.size());
        queue_.for_each([&](key const& e) { ids.push_back(~std::get<2>(e)); });
        queue_.clear();
        for (auto const id : ids) queue_.insert(key_of(id));
    }
    [[nodiscard]] bool ordered_by_heur() const noexcept { return by_heur_; }
    /// The best queued task, off the queue. Ordered by heur, the largest
    /// estimate is at the high end when lambda >= 0, else at the low end
    /// (`lowest_heur`), so a refit that flips lambda's sign changes only which
    /// end is taken; either way the highest priority first.
    std::uint64_t take_best(bool lowest_heur) {
        auto const id = ~std::get<2>(queue_.take(by_heur_ && lowest_heur));
        queued_heur_ -= tasks_[id].heur;
        return id;
    }
    [[nodiscard]] bool queue_empty() const noexcept { return queue_.empty(); }
    [[nodiscard]] std::size_t queued() const noexcept { return queue_.size(); }
    /// The sum of heur over the queue, for (4.1).
    [[nodiscard]] double queued_heur() const noexcept { return queued_heur_; }

    /// Tasks keep their bytes until resolved (reissue: copies are sent from them).
    void keep_payloads() noexcept { keep_ = true; }

    /// Task `id` went to worker k: its bytes are on their way, not kept (unless keep_payloads).
    void sent(std::uint64_t id, std::size_t k) {
        auto& t = tasks_[id];
        if (!keep_) std::vector<std::byte>().swap(t.payload);
        t.owner = static_cast<int>(k);
        t.where = state::sent;
    }

    /// Task `id` came back from a worker that left or was lost, with its bytes
    /// (unless they were kept): queued again (the caller puts it in the queue).
    void returned(std::uint64_t id, std::span<std::byte const> payload) {
        auto& t = tasks_.at(id);
        if (!keep_) t.payload.assign(payload.begin(), payload.end());
        t.owner = -1;
        t.where = state::queued;
    }

    // ---- how tasks end

    void finish(std::uint64_t id) {
        tasks_[id].where = state::done;
        if (keep_) std::vector<std::byte>().swap(tasks_[id].payload);
        ++resolved_;
    }
    void cancel(std::uint64_t id) {
        auto& t = tasks_[id];
        t.where = state::cancelled;
        std::vector<std::byte>().swap(t.payload);
        cancelled_.push_back(id);
        ++resolved_;
    }
    /// A group's task given to another group (its result comes back through
    /// that one): resolved here.
    void moved_away(std::uint64_t id) {
        auto& t = tasks_[id];
        t.where = state::moved;
        std::vector<std::byte>().swap(t.payload);
        ++resolved_;
    }
    /// A group's own task lent to another group (producers in groups): its
    /// result comes back here, so it stays unresolved until came_back(id).
    void lend(std::uint64_t id) {
        auto& t = tasks_[id];
        t.where = state::lent;
        std::vector<std::byte>().swap(t.payload);
        ++lent_;
    }
    void came_back(std::uint64_t id) {
        if (tasks_[id].where == state::lent) --lent_;
        tasks_[id].where = state::done;
        ++resolved_;
    }
    /// Tasks lent to other groups whose results have not come back.
    [[nodiscard]] std::size_t lent_out() const noexcept { return lent_; }
    /// Every queued task cancelled (the farm stops).
    void cancel_queue() {
        queue_.for_each([&](key const& e) { cancel(~std::get<2>(e)); });
        queue_.clear();
        queued_heur_ = 0.0;
    }
    /// Every task submitted so far has its result, or was cancelled.
    [[nodiscard]] bool all_resolved() const noexcept { return resolved_ == tasks_.size(); }
    [[nodiscard]] std::size_t unresolved() const noexcept { return tasks_.size() - resolved_; }
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

    /// Keys in order, best last. While every key goes in at one end (creation
    /// order, costs that grow), a deque holds them: no node allocated and no
    /// tree rebalanced per task. The first key that falls between others moves
    /// them to a tree, until the queue is empty again.
    class ordered_keys {
    public:
        void insert(key const& k) {
            if (!in_tree_) {
                if (ends_.empty() || !(k < ends_.back())) return ends_.push_back(k);
                if (k < ends_.front()) return ends_.push_front(k);
                move_to_tree();
            }
            tree_.insert(k);
        }
        /// The largest key, off the queue; with `lowest_within_top`, the smallest
        /// of those sharing the largest's first element (its priority).
        key take(bool lowest_within_top) {
            if (!in_tree_) {
                if (!lowest_within_top) {
                    key const k = ends_.back();
                    ends_.pop_back();
                    return k;
                }
                if (!(ends_.front() < lowest_of(ends_.back()))) { // one priority throughout: the lowest is first
                    key const k = ends_.front();
                    ends_.pop_front();
                    return k;
                }
                move_to_tree();
            }
            auto best = std::prev(tree_.end());
            if (lowest_within_top) best = tree_.lower_bound(lowest_of(*best));
            key const k = *best;
            tree_.erase(best);
            if (tree_.empty()) in_tree_ = false;
            return k;
        }
        [[nodiscard]] bool empty() const noexcept { return in_tree_ ? tree_.empty() : ends_.empty(); }
        [[nodiscard]] std::size_t size() const noexcept { return in_tree_ ? tree_.size() : ends_.size(); }
        template <class F>
        void for_each(F&& f) const {
            if (in_tree_)
                for (auto const& k : tree_) f(k);
            else
                for (auto const& k : ends_) f(k);
        }
        void clear() {
            ends_.clear();
            tree_.clear();
            in_tree_ = false;
        }

    private:
        /// The smallest key `k`'s priority can have.
        static key lowest_of(key const& k) { return {std::get<0>(k), -std::numeric_limits<double>::infinity(), 0}; }
        void move_to_tree() {
            tree_.insert(ends_.begin(), ends_.end());
            ends_.clear();
            in_tree_ = true;
        }

        std::deque<key> ends_;
        std::set<key> tree_;
        bool in_tree_ = false;
    };

    std::vector<task> tasks_;
    ordered_keys queue_;
    double queued_heur_ = 0.0;
    bool by_heur_ = false, with_cost_ = false, by_size_ = false, keep_ = false;
    std::size_t first_size_ = 0;
    std::vector<std::uint64_t> cancelled_;
    std::size_t resolved_ = 0, lent_ = 0;
};

} // namespace loopsched::detail
