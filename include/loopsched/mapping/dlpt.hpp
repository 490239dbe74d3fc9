// D_LPT (Karamcheti and Wah): placement of dynamically created tasks on processors of
// different speeds by estimates of their remaining time. dlpt_board holds the
// load table (each processor's running estimate E, its start t_s, its ready
// queue and R) and applies the paper's migration rules; the placements that
// choose on it (D_LPT and its baselines) are in mapping/estimates.hpp.
#pragma once

#include <loopsched/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace loopsched {

/// A ready task on the board: its id, its estimate rho (seconds on a speed-1
/// processor) and its size in bytes (what migrating it costs).
struct estimated_task {
    std::uint64_t id = 0;
    double rho = 0.0;
    double bytes = 0.0;
};

/// A move the rules ask for: ready task `id` from processor `from` to `to`.
struct task_move {
    std::size_t from = 0, to = 0;
    std::uint64_t id = 0;
    double bytes = 0.0; ///< the task's size
    friend bool operator==(task_move const& a, task_move const& b) noexcept {
        return a.from == b.from && a.to == b.to && a.id == b.id;
    }
};

/// The migration cost theta = c_d + bytes * c_c and the threshold f(theta)
/// a move's gain must reach (f non-decreasing; empty: f(theta) = theta).
struct migration_cost {
    double latency = 0.0;  ///< c_d, seconds per move
    double per_byte = 0.0; ///< c_c, seconds per byte
    std::function<double(double)> threshold{};

    [[nodiscard]] double theta(double task_bytes) const noexcept { return latency + task_bytes * per_byte; }
    [[nodiscard]] double f(double task_bytes) const {
        return threshold ? threshold(theta(task_bytes)) : theta(task_bytes);
    }
};

/// The load table of Karamcheti and Wah and its rules. Times are the caller's clock.
class dlpt_board {
public:
    /// One processor per speed b_j > 0.
    explicit dlpt_board(std::span<double const> speeds) : p_(speeds.size()) {
        detail::require(!speeds.empty(), "speeds.size()", speeds.size(), "must be >= 1");
        for (std::size_t j = 0; j < speeds.size(); ++j) {
            detail::require(std::isfinite(speeds[j]) && speeds[j] > 0.0, "speeds[" + std::to_string(j) + "]",
                            speeds[j], "must be > 0");
            p_[j].speed = speeds[j];
        }
    }

    [[nodiscard]] std::size_t size() const noexcept { return p_.size(); }
    [[nodiscard]] double speed(std::size_t j) const { return p_.at(j).speed; }
    void set_speed(std::size_t j, double b) {
        detail::require(std::isfinite(b) && b > 0.0, "speed", b, "must be > 0");
        auto& p = p_.at(j);
        p.running *= p.speed / b; // the same remaining work at the new speed
        p.speed = b;
        p.ready_sum = 0.0;
        for (auto const& t : p.ready) p.ready_sum += t.rho / b;
    }

    /// L(P, t) = max(0, E(H) - (t - t_s(P))) + R(P): the running task's
    /// estimate less the time it has had, never negative, plus the ready queue's.
    [[nodiscard]] double load(std::size_t j, double t) const {
        auto const& p = p_.at(j);
        double const left = p.busy ? std::max(0.0, p.running - (t - p.started)) : 0.0;
        return left + p.ready_sum + p.unlisted / p.speed;
    }
    /// When a task of estimate rho would finish on j: L(P_j, t) + rho / b_j.
    [[nodiscard]] double finish(std::size_t j, double rho, double t) const { return load(j, t) + rho / p_.at(j).speed; }
    /// argmin_j finish(j, rho, t); ties go to the lower index.
    [[nodiscard]] std::size_t earliest_finish(double rho, double t) const {
        std::size_t best = 0;
        for (std::size_t j = 1; j < p_.size(); ++j)
            if (finish(j, rho, t) < finish(best, rho, t)) best = j;
        return best;
    }
    /// Tasks j holds, running and ready ("number of objects").
    [[nodiscard]] std::size_t held(std::size_t j) const {
        auto const& p = p_.at(j);
        return p.ready.size() + p.unlisted_count + (p.busy ? 1u : 0u);
    }
    /// Ready tasks on j, each a message not yet handled ("number of pending messages").
    [[nodiscard]] std::size_t waiting(std::size_t j) const {
        auto const& p = p_.at(j);
        return p.ready.size() + p.unlisted_count;
    }

    // ---- the table's updates (Karamcheti and Wah's update_estimate)

    /// A task becomes ready on j (it runs next if j is idle and `start_if_idle`).
    void add(std::size_t j, estimated_task const& task, double t, bool start_if_idle = true) {
        auto& p = p_.at(j);
        p.ready.push_back(task);
        p.ready_sum += task.rho / p.speed;
        if (start_if_idle && !p.busy) start_next(j, t);
    }
    /// Ready task `id` leaves j (migrated or cancelled); returns it if it was there.
    std::optional<estimated_task> remove(std::size_t j, std::uint64_t id) {
        auto& p = p_.at(j);
        auto it = std::ranges::find(p.ready, id, &estimated_task::id);
        if (it == p.ready.end()) return std::nullopt;
        estimated_task const t = *it;
        p.ready.erase(it);
        recompute(p);
        return t;
    }
    /// The running task on j revises its estimate: rho (speed-1 seconds) remain as of t.
    void revise(std::size_t j, double rho, double t) {
        auto& p = p_.at(j);
        p.busy = true;
        p.running = std::max(0.0, rho) / p.speed;
        p.started = t;
    }
    /// j's running task finished at t: the highest-priority ready task (the
    /// largest estimate) starts, or j becomes idle. Returns the started task's id.
    std::optional<std::uint64_t> complete(std::size_t j, double t) {
        p_.at(j).busy = false;
        return start_next(j, t);
    }
    /// Replaces j's whole entry: what a processor reports (its running task's
    /// remaining estimate, none if idle, and its ready queue), as of t. A long
    /// queue may be reported in part: the tasks listed, and the others' count
    /// and summed estimate (they add to the load but cannot be moved).
    void report(std::size_t j, std::optional<double> running_rho, std::vector<estimated_task> ready, double t,
                double unlisted_rho = 0.0, std::size_t unlisted_count = 0) {
        auto& p = p_.at(j);
        p.ready = std::move(ready);
        p.unlisted = std::max(0.0, unlisted_rho);
        p.unlisted_count = unlisted_count;
        recompute(p);
        p.busy = running_rho.has_value();
        p.running = p.busy ? std::max(0.0, *running_rho) / p.speed : 0.0;
        p.started = t;
    }

    [[nodiscard]] bool busy(std::size_t j) const { return p_.at(j).busy; }
    [[nodiscard]] std::span<estimated_task const> ready(std::size_t j) const { return p_.at(j).ready; }

    // ---- the rules

    /// Rule 2: ready task `id` on `from` moves to where it finishes first
    /// (or where `choose(rho)` says) if the gain (L_cur + rho/b_cur) -
    /// (L_new + rho/b_new) is at least f(theta). The board is updated when it moves.
    template <class Choose = std::nullptr_t>
    std::optional<task_move> migrate(std::size_t from, std::uint64_t id, migration_cost const& cost, double t,
                                     Choose&& choose = nullptr) {
        auto const& q = p_.at(from).ready;
        auto it = std::ranges::find(q, id, &estimated_task::id);
        if (it == q.end()) return std::nullopt;
        estimated_task const task = *it;
        // compared without the task on `from`: L_cur must not count the task twice
        remove(from, id);
        std::size_t to = 0;
        if constexpr (std::is_null_pointer_v<std::remove_cvref_t<Choose>>)
            to = earliest_finish(task.rho, t);
        else
            to = choose(task.rho);
        double const gain = finish(from, task.rho, t) - finish(to, task.rho, t);
        bool const moves = to != from && gain >= cost.f(task.bytes);
        add(moves ? to : from, task, t, moves); // an idle destination starts it
        if (!moves) return std::nullopt;
        return task_move{from, to, id, task.bytes};
    }
    /// Rule 1 and 2 over every ready task of `from` that `movable(from,
    /// task)` allows, largest estimate first (`choose`: as for migrate).
    template <class Movable = bool (*)(std::size_t, estimated_task const&), class Choose = std::nullptr_t>
    std::vector<task_move> rebalance(std::size_t from, migration_cost const& cost, double t,
                                     Movable movable = [](std::size_t, estimated_task const&) { return true; },
                                     Choose&& choose = nullptr) {
        std::vector<task_move> moves;
        for (auto const& task : by_priority(from))
            if (movable(from, task))
                if (auto m = migrate(from, task.id, cost, t, choose)) moves.push_back(*m);
        return moves;
    }
    /// Rule 4: idle processor `idle` takes the lowest-priority ready task T of
    /// the most loaded processor if L(P_max, t) - rho(T)/b_max >= f(theta)
    /// and T finishes no later on `idle` (rho(T)/b_idle <= L(P_max, t)).
    /// `movable(from, task)`: which ready tasks may move now (default: all).
    template <class Movable = bool (*)(std::size_t, estimated_task const&)>
    std::optional<task_move> pull(std::size_t idle, migration_cost const& cost, double t,
                                  Movable movable = [](std::size_t, estimated_task const&) { return true; }) {
        auto lowest_of = [&](std::size_t j) -> std::optional<estimated_task> {
            std::optional<estimated_task> low;
            for (auto const& task : p_[j].ready)
                if (movable(j, task) && (!low || task.rho < low->rho)) low = task;
            return low;
        };
        std::optional<std::size_t> most;
        for (std::size_t j = 0; j < p_.size(); ++j)
            if (j != idle && lowest_of(j) && (!most || load(j, t) > load(*most, t))) most = j;
        if (!most) return std::nullopt;
        auto const lowest = *lowest_of(*most);
        if (load(*most, t) - lowest.rho / p_[*most].speed < cost.f(lowest.bytes)) return std::nullopt;
        // Ours, where the rule is silent on the idle processor's speed: the
        // task must not finish later there than where it is (on P_max it ends
        // at L(P_max, t): the lowest priority runs last).
        if (lowest.rho / p_[idle].speed > load(*most, t)) return std::nullopt;
        remove(*most, lowest.id);
        add(idle, lowest, t);
        return task_move{*most, idle, lowest.id, lowest.bytes};
    }

private:
    struct proc {
        double speed = 1.0;
        bool busy = false;
        double running = 0.0; ///< E(H): the running task's estimate on this processor, seconds
        double started = 0.0; ///< t_s: when E(H) was last set
        std::vector<estimated_task> ready;
        double ready_sum = 0.0; ///< R: the ready tasks' estimates on this processor, seconds
        double unlisted = 0.0;  ///< ready tasks reported only as a sum (speed-1 seconds)
        std::size_t unlisted_count = 0;
    };

    static void recompute(proc& p) {
        p.ready_sum = 0.0;
        for (auto const& t : p.ready) p.ready_sum += t.rho / p.speed;
    }
    /// j's ready tasks, largest estimate first (ties: the older).
    [[nodiscard]] std::vector<estimated_task> by_priority(std::size_t j) const {
        auto q = p_.at(j).ready;
        std::ranges::stable_sort(q, [](auto const& a, auto const& b) { return a.rho > b.rho; });
        return q;
    }
    std::optional<std::uint64_t> start_next(std::size_t j, double t) {
        auto& p = p_[j];
        if (p.ready.empty()) return std::nullopt;
        auto const task = *remove(j, by_priority(j).front().id);
        p.busy = true;
        p.running = task.rho / p.speed;
        p.started = t;
        return task.id;
    }

    std::vector<proc> p_;
};

// ---------------------------------------------------------------- static sets

/// A static set's placement: each task's processor and the makespan.
struct task_assignment {
    std::vector<std::size_t> processor;
    double makespan = 0.0;
};

/// The lower bound on any schedule of independent tasks on uniform machines:
/// max(sum(c) / sum(b), max(c) / max(b)).
inline double makespan_bound(std::span<double const> costs, std::span<double const> speeds) {
    if (costs.empty()) return 0.0;
    double const sum_c = std::accumulate(costs.begin(), costs.end(), 0.0);
    double const sum_b = std::accumulate(speeds.begin(), speeds.end(), 0.0);
    return std::max(sum_c / sum_b, *std::ranges::max_element(costs) / *std::ranges::max_element(speeds));
}

namespace detail {
inline void check_static(std::span<double const> costs, std::span<double const> speeds) {
    require(!speeds.empty(), "speeds.size()", speeds.size(), "must be >= 1");
    for (std::size_t j = 0; j < speeds.size(); ++j)
        require(std::isfinite(speeds[j]) && speeds[j] > 0.0, "speeds[" + std::to_string(j) + "]", speeds[j],
                "must be > 0");
    for (std::size_t i = 0; i < costs.size(); ++i)
        require(std::isfinite(costs[i]) && costs[i] >= 0.0, "costs[" + std::to_string(i) + "]", costs[i],
                "must be >= 0");
}
} // namespace detail

} // namespace loopsched
