// The farm master's part that places by estimates (Karamcheti and Wah): each
// new task goes on a worker's list at once (farm_estimates decides), and a
// worker is fed from its list, largest estimate first, as it runs short.
#pragma once

#include <loopsched/mapping/estimates.hpp>
#include <loopsched/runtime/tasks/farm_book.hpp>
#include <loopsched/runtime/tasks/farm_estimates.hpp>
#include <loopsched/runtime/tasks/farm_model.hpp>
#include <loopsched/runtime/tasks/farm_workers.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace loopsched::detail {

/// Places the farm's tasks by estimates and feeds the workers from their
/// lists. `send(k, id)` sends one task to worker k (the master's send).
class farm_estimate_feed {
public:
    farm_estimate_feed(any_estimate_placement const& placement, farm_book& book, farm_workers& workers,
                       farm_cost_model const& model)
            : lists_(placement, workers.speeds()), book_(book), workers_(workers), model_(model) {}

    /// A task's estimate rho in speed-1 seconds: the fitted model's (on the
    /// user's cost, else the size or creation order) once ready; before it,
    /// the user's cost as it is, else 1.
    [[nodiscard]] double estimate(std::uint64_t id) const {
        if (model_.ready()) return model_.estimate(book_[id].heur);
        return book_.with_cost() ? book_[id].heur : 1.0;
    }
    /// rho as a function of a task's id.
    [[nodiscard]] auto rho() const {
        return [this](std::uint64_t id) { return estimate(id); };
    }
    /// Task `id` goes to worker k now: its key in k's order (the largest estimate first).
    double sending(std::size_t k, std::uint64_t id, double now) {
        double const key = estimate(id);
        lists_.sent(k, id, workers_[k].count == 0, now);
        return key;
    }
    /// Task `id`'s result came from worker k: its next task starts now.
    void finished(std::size_t k, std::uint64_t id, double now) { lists_.finished(k, id, now); }

    /// A new task, placed (rule 1, or a baseline's choice), and its worker fed.
    template <class Send>
    void place(std::uint64_t id, double now, Send&& send) {
        std::size_t const k = lists_.place(id, rho(), now);
        book_[id].owner = static_cast<int>(k);
        feed(k, send);
    }
    /// Worker k's running task revised its estimate (rule 3): the tasks
    /// placed on k and still here are placed again. Returns how many moved.
    std::size_t revised(std::size_t k, farm_revision const& r, double now) {
        double const remaining = model_.ready() ? model_.estimate(r.remaining) : r.remaining;
        std::size_t moved = 0;
        for (auto const& m : lists_.revised(k, r.id, remaining, rho(), now)) moved += relisted(m);
        return moved;
    }
    /// Every worker fed; an idle one may pull (rule 4). Returns how many moved.
    template <class Send>
    std::size_t feed_all(double now, Send&& send) {
        std::size_t moved = 0;
        for (std::size_t k = 0; k < workers_.size(); ++k) {
            feed(k, send);
            if (workers_[k].count > 0) continue;
            if (auto const m = lists_.pull(k, rho(), now)) {
                moved += relisted(*m);
                feed(k, send);
            }
        }
        return moved;
    }
    /// The tasks placed but not sent (the farm stops: they are cancelled).
    std::vector<std::uint64_t> take_placed() { return lists_.take_placed(); }

private:
    /// A move of a task still at the master.
    std::size_t relisted(task_move const& m) {
        book_[m.id].owner = static_cast<int>(m.to);
        return 1;
    }
    /// Worker k gets its largest placed tasks until it holds estimates_ahead.
    template <class Send>
    void feed(std::size_t k, Send& send) {
        std::optional<std::uint64_t> id;
        while (workers_[k].count < workers_.limit(k, estimates_ahead) && (id = lists_.take_next(k, rho())))
            send(k, *id);
    }

    farm_estimates lists_;
    farm_book& book_;
    farm_workers& workers_;
    farm_cost_model const& model_;
};

} // namespace loopsched::detail
