// D_LPT (seed 002): placement of dynamically created tasks on processors of
// different speeds by estimates of their remaining time. dlpt_board holds the
// load table (each processor's running estimate E, its start t_s, its ready
// queue and R) and applies the paper's rules; the baselines it is compared
// with (random, round robin, fewest objects, fewest pending messages) choose
// on the same table. lpt_schedule and optimal_makespan place a static set.
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
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace loopsched {

/// How a new task's processor is chosen (seed 002's D_LPT and its baselines).
enum class placement_rule : std::uint8_t {
    dlpt,        ///< where it finishes first: argmin L(P, t) + rho / b
    random,      ///< a uniformly random processor
    round_robin, ///< processors in turn
    objects,     ///< the fewest tasks held (running and ready): the load index "number of objects"
    messages     ///< the fewest ready tasks (each arrived as a message not yet handled): "number of pending messages"
};

/// The rule a name gives: "dlpt", "random", "round-robin", "objects", "messages".
inline placement_rule placement_rule_of(std::string_view name) {
    if (name == "dlpt") return placement_rule::dlpt;
    if (name == "random") return placement_rule::random;
    if (name == "round-robin") return placement_rule::round_robin;
    if (name == "objects") return placement_rule::objects;
    if (name == "messages") return placement_rule::messages;
    detail::require(false, "placement", std::string(name), "must be dlpt, random, round-robin, objects or messages");
    return placement_rule::dlpt;
}
inline std::string_view name_of(placement_rule r) noexcept {
    switch (r) {
    case placement_rule::dlpt: return "dlpt";
    case placement_rule::random: return "random";
    case placement_rule::round_robin: return "round-robin";
    case placement_rule::objects: return "objects";
    case placement_rule::messages: break;
    }
    return "messages";
}

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

/// The load table of seed 002 and its rules. Times are the caller's clock.
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
    /// The processor a rule chooses for a new task of estimate rho.
    template <class Random>
    [[nodiscard]] std::size_t choose(placement_rule rule, double rho, double t, Random& random) {
        auto fewest = [&](auto count) {
            std::size_t best = 0;
            for (std::size_t j = 1; j < p_.size(); ++j)
                if (count(p_[j]) < count(p_[best])) best = j;
            return best;
        };
        switch (rule) {
        case placement_rule::dlpt: return earliest_finish(rho, t);
        case placement_rule::random:
            return std::uniform_int_distribution<std::size_t>(0, p_.size() - 1)(random);
        case placement_rule::round_robin: return next_turn_++ % p_.size();
        case placement_rule::objects:
            return fewest([](proc const& p) { return p.ready.size() + p.unlisted_count + (p.busy ? 1u : 0u); });
        case placement_rule::messages:
            return fewest([](proc const& p) { return p.ready.size() + p.unlisted_count; });
        }
        return 0;
    }

    // ---- the table's updates (seed 002's update_estimate)

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

    /// Rule 2: ready task `id` on `from` moves to where it finishes first if
    /// the gain (L_cur + rho/b_cur) - (L_new + rho/b_new) is at least f(theta).
    /// The board is updated when it moves.
    std::optional<task_move> migrate(std::size_t from, std::uint64_t id, migration_cost const& cost, double t) {
        auto const& q = p_.at(from).ready;
        auto it = std::ranges::find(q, id, &estimated_task::id);
        if (it == q.end()) return std::nullopt;
        estimated_task const task = *it;
        // compared without the task on `from`: L_cur must not count the task twice
        remove(from, id);
        std::size_t const to = earliest_finish(task.rho, t);
        double const gain = finish(from, task.rho, t) - finish(to, task.rho, t);
        bool const moves = to != from && gain >= cost.f(task.bytes);
        add(moves ? to : from, task, t, moves); // an idle destination starts it
        if (!moves) return std::nullopt;
        return task_move{from, to, id, task.bytes};
    }
    /// Rule 1 and 2 over every ready task of `from`, largest estimate first.
    std::vector<task_move> rebalance(std::size_t from, migration_cost const& cost, double t) {
        auto ids = by_priority(from);
        std::vector<task_move> moves;
        for (auto const id : ids)
            if (auto m = migrate(from, id, cost, t)) moves.push_back(*m);
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
    /// j's ready ids, largest estimate first (ties: the older id).
    [[nodiscard]] std::vector<std::uint64_t> by_priority(std::size_t j) const {
        auto q = p_.at(j).ready;
        std::ranges::stable_sort(q, [](auto const& a, auto const& b) { return a.rho > b.rho; });
        std::vector<std::uint64_t> ids;
        for (auto const& t : q) ids.push_back(t.id);
        return ids;
    }
    std::optional<std::uint64_t> start_next(std::size_t j, double t) {
        auto& p = p_[j];
        if (p.ready.empty()) return std::nullopt;
        auto const ids = by_priority(j);
        auto const task = *remove(j, ids.front());
        p.busy = true;
        p.running = task.rho / p.speed;
        p.started = t;
        return task.id;
    }

    std::vector<proc> p_;
    std::size_t next_turn_ = 0;
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

/// Places tasks all ready at time 0, with no migration cost, by a rule on
/// the board: for D_LPT, largest estimate first, each where it finishes first
/// (LPT on uniform machines); the baselines take the tasks in the given order.
inline task_assignment place_static(placement_rule rule, std::span<double const> costs, std::span<double const> speeds,
                                    std::uint64_t seed = 1) {
    detail::check_static(costs, speeds);
    dlpt_board board(speeds);
    std::vector<std::size_t> order(costs.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    if (rule == placement_rule::dlpt)
        std::ranges::stable_sort(order, [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
    std::mt19937_64 random(seed);
    task_assignment s;
    s.processor.resize(costs.size());
    std::vector<double> finish(speeds.size(), 0.0);
    for (auto const i : order) {
        std::size_t const j = board.choose(rule, costs[i], 0.0, random);
        board.add(j, {i, costs[i], 0.0}, 0.0, false); // nothing runs at time 0: the queue is the load
        s.processor[i] = j;
        finish[j] += costs[i] / speeds[j];
    }
    s.makespan = finish.empty() ? 0.0 : *std::ranges::max_element(finish);
    return s;
}

/// The optimal makespan of a static set, by exhaustive search with pruning
/// (largest task first, a bound from the best so far and from the lower
/// bound, identical processors tried once). For small sets: m^n in the worst case.
inline task_assignment optimal_makespan(std::span<double const> costs, std::span<double const> speeds) {
    detail::check_static(costs, speeds);
    std::vector<std::size_t> order(costs.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::ranges::stable_sort(order, [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
    task_assignment best = place_static(placement_rule::dlpt, costs, speeds); // a first upper bound
    double const floor = makespan_bound(costs, speeds);
    std::vector<double> finish(speeds.size(), 0.0);
    std::vector<std::size_t> at(costs.size());
    auto search = [&](auto& self, std::size_t k, double so_far) -> void {
        if (so_far >= best.makespan * (1.0 - 1e-12) || best.makespan <= floor * (1.0 + 1e-12)) return;
        if (k == order.size()) {
            best.makespan = so_far;
            best.processor = at;
            return;
        }
        std::size_t const i = order[k];
        for (std::size_t j = 0; j < speeds.size(); ++j) {
            bool twin = false; // an earlier processor of the same speed and the same finish gives the same subtree
            for (std::size_t e = 0; e < j && !twin; ++e) twin = speeds[e] == speeds[j] && finish[e] == finish[j];
            if (twin) continue;
            finish[j] += costs[i] / speeds[j];
            at[i] = j;
            self(self, k + 1, std::max(so_far, finish[j]));
            finish[j] -= costs[i] / speeds[j];
        }
    };
    search(search, 0, 0.0);
    return best;
}

} // namespace loopsched
