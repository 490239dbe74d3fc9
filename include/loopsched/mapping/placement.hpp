// Placements of dynamically created tasks (divide and conquer): the Mapping
// the task runtime consults for every decision about where work goes: who
// starts, how a worker list is split at a division, which queued task runs
// next, which are given away on a request, and what an idle worker does.
// Three come with the library: seed 000's scheme (kazouris), APRIL's static
// keep-half-send-half over a binomial tree (april), and random work stealing
// (steal, steal-half); seed 002's D_LPT and its baselines (dlpt, random,
// round-robin, objects, messages) place every new task from the manager.
// make_placement(name) picks one at run time.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/mapping/dlpt.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace loopsched {

/// A worker as a placement sees it: its index in the loop and its normalized speed (V/Q).
struct placed_worker {
    std::size_t index = 0;
    double speed = 1.0;
    friend bool operator==(placed_worker const&, placed_worker const&) = default;
};

/// A queued task as a placement sees it: its cost by the run's measure (larger
/// costs more) and when this worker queued it (larger is newer).
struct queued_task {
    double cost = 0.0;
    std::uint64_t order = 0;
};

/// What a worker with nothing to run does.
enum class idle_action : std::uint8_t {
    report, ///< tells the manager, which may have a busy worker send it a task
    steal   ///< asks a random worker for work directly
};

/// The decisions of a task placement. The runtime holds one per rank (every
/// rank builds the same from the options) and asks it; it keeps no state of its own.
class task_placement {
public:
    virtual ~task_placement() = default;
    [[nodiscard]] virtual std::string name() const = 0;

    /// The manager: the list the original problem starts with, given every
    /// worker fastest first. Its first member receives the problem; the rest
    /// travel with it as the workers it may hand subproblems to.
    [[nodiscard]] virtual std::vector<placed_worker> start(std::span<placed_worker const> by_speed) const = 0;
    /// A worker that divides a problem while it still has a list: `list`
    /// (itself first) split into at most `children` lists. List 0 stays with
    /// the worker; the fastest of each other list gets one subproblem (the
    /// costliest after those already placed) and the rest of its list.
    [[nodiscard]] virtual std::vector<std::vector<placed_worker>> split(std::span<placed_worker const> list,
                                                                        std::size_t children) const = 0;
    /// Whether the next task taken from a queue of `queued` tasks is divided
    /// into queued subproblems (true) or solved by direct recursion, inlined.
    [[nodiscard]] virtual bool divides(std::size_t queued, std::size_t workers) const = 0;
    /// The queued task to run next (an index into `queue`), for dividing or inlining.
    [[nodiscard]] virtual std::size_t next(std::span<queued_task const> queue, bool dividing) const = 0;
    /// The queued tasks to give to a worker that asked (indices; none:
    /// refuse). `running`: this worker is in the middle of a task, which it keeps.
    [[nodiscard]] virtual std::vector<std::size_t> give(std::span<queued_task const> queue, bool running) const = 0;
    [[nodiscard]] virtual idle_action when_idle() const = 0;
    /// Whether the manager answers an idle worker by moving a busy worker's task to it.
    [[nodiscard]] virtual bool balances() const = 0;
    /// Whether a worker asked for work while it recurses with an empty queue
    /// turns its next division into queued tasks to answer (rather than refuse).
    [[nodiscard]] virtual bool spills() const = 0;
    /// The rule by which the manager places every new task itself, from the
    /// workers' reports of their queues and running tasks (seed 002); none:
    /// the decisions above are all there is.
    [[nodiscard]] virtual std::optional<placement_rule> estimates_rule() const { return std::nullopt; }
    /// What moving a task costs and the gain a move must reach (estimates_rule only).
    [[nodiscard]] virtual migration_cost const* migration() const { return nullptr; }
};

namespace detail {

inline std::size_t costliest(std::span<queued_task const> q) {
    return static_cast<std::size_t>(std::ranges::max_element(q,
                                                             [](auto const& a, auto const& b) {
                                                                 return a.cost < b.cost ||
                                                                        (a.cost == b.cost &&
                                                                         a.order > b.order); // ties: the older
                                                             }) -
                                    q.begin());
}
inline std::size_t cheapest(std::span<queued_task const> q) {
    return static_cast<std::size_t>(std::ranges::min_element(q,
                                                             [](auto const& a, auto const& b) {
                                                                 return a.cost < b.cost ||
                                                                        (a.cost == b.cost &&
                                                                         a.order > b.order); // ties: the newer
                                                             }) -
                                    q.begin());
}
/// Indices of the queue from the oldest.
inline std::vector<std::size_t> oldest_first(std::span<queued_task const> q) {
    std::vector<std::size_t> at(q.size());
    std::iota(at.begin(), at.end(), std::size_t{0});
    std::ranges::sort(at, [&](std::size_t a, std::size_t b) { return q[a].order < q[b].order; });
    return at;
}

} // namespace detail

/// Seed 000's scheme (section 3.4): the problem starts at the fastest worker
/// with every other worker as its list; lists split by balanced speed sums;
/// a worker divides its costliest task until its queue holds one task per
/// worker, then inlines the cheapest; idle workers report to the manager,
/// which has the busiest worker (summed queue cost over speed) send its
/// second-costliest task.
class kazouris_placement final : public task_placement {
public:
    [[nodiscard]] std::string name() const override { return "kazouris"; }
    [[nodiscard]] std::vector<placed_worker> start(std::span<placed_worker const> by_speed) const override {
        return {by_speed.begin(), by_speed.end()};
    }
    /// Greedy balance: the worker first in list 0, then the others fastest
    /// first, each to the list with the smallest sum of speeds so far (the
    /// document's example: speeds 4, 3, 2, 1 give {4, 1} and {3, 2}).
    [[nodiscard]] std::vector<std::vector<placed_worker>> split(std::span<placed_worker const> list,
                                                                std::size_t children) const override {
        std::size_t const n = std::min(children, list.size());
        std::vector<std::vector<placed_worker>> lists(n);
        std::vector<double> sums(n, 0.0);
        lists[0].push_back(list[0]);
        sums[0] = list[0].speed;
        std::vector<placed_worker> rest(list.begin() + 1, list.end());
        std::ranges::stable_sort(rest, [](auto const& a, auto const& b) { return a.speed > b.speed; });
        for (auto const& w : rest) {
            // an empty list first, so every list gets a worker
            auto const at = static_cast<std::size_t>(std::ranges::min_element(sums) - sums.begin());
            std::size_t target = at;
            for (std::size_t i = 1; i < n; ++i)
                if (lists[i].empty()) {
                    target = i;
                    break;
                }
            lists[target].push_back(w);
            sums[target] += w.speed;
        }
        return lists;
    }
    [[nodiscard]] bool divides(std::size_t queued, std::size_t workers) const override { return queued < workers; }
    [[nodiscard]] std::size_t next(std::span<queued_task const> q, bool dividing) const override {
        return dividing ? detail::costliest(q) : detail::cheapest(q);
    }
    /// The second-costliest (the costliest stays: it would be waited for
    /// longest). With one task queued: given only while the worker has a task
    /// of its own running; otherwise refused (giving it would just move the idleness).
    [[nodiscard]] std::vector<std::size_t> give(std::span<queued_task const> q, bool running) const override {
        if (q.size() == 1) return running ? std::vector<std::size_t>{0} : std::vector<std::size_t>{};
        if (q.empty()) return {};
        std::size_t const top = detail::costliest(q);
        std::size_t second = top == 0 ? 1 : 0;
        for (std::size_t i = 0; i < q.size(); ++i)
            if (i != top &&
                (q[i].cost > q[second].cost || (q[i].cost == q[second].cost && q[i].order < q[second].order)))
                second = i;
        return {second};
    }
    [[nodiscard]] idle_action when_idle() const override { return idle_action::report; }
    [[nodiscard]] bool balances() const override { return true; }
    [[nodiscard]] bool spills() const override { return spill_; }

    explicit kazouris_placement(bool spill = true) : spill_(spill) {}

private:
    bool spill_;
};

/// APRIL's static keep-half-send-half (the document's baseline): the workers,
/// fastest first, numbered as a binomial tree; a worker with a list keeps the
/// lower part and sends a subproblem to the root of the upper part (B_k's
/// largest subtree first); with no list left it solves sequentially. Idle
/// workers stay idle.
class april_placement final : public task_placement {
public:
    [[nodiscard]] std::string name() const override { return "april"; }
    [[nodiscard]] std::vector<placed_worker> start(std::span<placed_worker const> by_speed) const override {
        return {by_speed.begin(), by_speed.end()};
    }
    [[nodiscard]] std::vector<std::vector<placed_worker>> split(std::span<placed_worker const> list,
                                                                std::size_t children) const override {
        std::vector<std::vector<placed_worker>> lists;
        std::span<placed_worker const> keep = list;
        std::vector<std::vector<placed_worker>> sent;
        while (sent.size() + 1 < children && keep.size() > 1) {
            std::size_t const half = std::bit_floor(keep.size() - 1); // the binomial subtree's root
            sent.emplace_back(keep.begin() + static_cast<std::ptrdiff_t>(half), keep.end());
            keep = keep.first(half);
        }
        lists.emplace_back(keep.begin(), keep.end());
        for (auto& s : sent) lists.push_back(std::move(s));
        return lists;
    }
    [[nodiscard]] bool divides(std::size_t, std::size_t) const override { return false; }
    [[nodiscard]] std::size_t next(std::span<queued_task const> q, bool dividing) const override {
        return dividing ? detail::costliest(q) : detail::cheapest(q);
    }
    [[nodiscard]] std::vector<std::size_t> give(std::span<queued_task const>, bool) const override { return {}; }
    [[nodiscard]] idle_action when_idle() const override { return idle_action::report; }
    [[nodiscard]] bool balances() const override { return false; }
    [[nodiscard]] bool spills() const override { return false; }
};

/// Random work stealing, as UTS's MPI version and Cilk do: the problem
/// starts at the fastest worker; a worker divides its newest task while its
/// queue holds fewer tasks than there are workers, else inlines it; an idle
/// worker asks random victims, which give their oldest task (steal-one) or
/// the older half of their queue (steal-half).
class steal_placement final : public task_placement {
public:
    explicit steal_placement(bool half = false, bool spill = true) : half_(half), spill_(spill) {}
    [[nodiscard]] std::string name() const override { return half_ ? "steal-half" : "steal"; }
    [[nodiscard]] std::vector<placed_worker> start(std::span<placed_worker const> by_speed) const override {
        return {by_speed.front()};
    }
    [[nodiscard]] std::vector<std::vector<placed_worker>> split(std::span<placed_worker const> list,
                                                                std::size_t) const override {
        return {{list.begin(), list.end()}};
    }
    [[nodiscard]] bool divides(std::size_t queued, std::size_t workers) const override { return queued < workers; }
    [[nodiscard]] std::size_t next(std::span<queued_task const> q, bool) const override {
        return static_cast<std::size_t>(std::ranges::max_element(q, {}, [](auto const& t) { return t.order; }) -
                                        q.begin());
    }
    [[nodiscard]] std::vector<std::size_t> give(std::span<queued_task const> q, bool running) const override {
        if (q.empty() || (q.size() == 1 && !running)) return {};
        auto at = detail::oldest_first(q);
        std::size_t const n = half_ ? std::max<std::size_t>(1, q.size() / 2) : 1;
        at.resize(n);
        return at;
    }
    [[nodiscard]] idle_action when_idle() const override { return idle_action::steal; }
    [[nodiscard]] bool balances() const override { return false; }
    [[nodiscard]] bool spills() const override { return spill_; }

private:
    bool half_, spill_;
};

/// Seed 002's D_LPT, or a baseline, placing tasks from the manager: every
/// problem that is not a leaf is divided into queued tasks (each a unit the
/// manager may place, as in the paper), a worker runs its largest estimate
/// first, and it reports its queue and running task; the manager moves a new
/// task where the rule says (D_LPT: where it finishes first, if the gain
/// reaches f(theta)) and, for D_LPT, has an idle worker pull the lowest-
/// priority task of the most loaded one. Tasks move only when the manager asks.
class estimate_placement final : public task_placement {
public:
    explicit estimate_placement(placement_rule rule, migration_cost cost = {}) : rule_(rule), cost_(std::move(cost)) {}
    [[nodiscard]] std::string name() const override { return std::string(name_of(rule_)); }
    [[nodiscard]] std::vector<placed_worker> start(std::span<placed_worker const> by_speed) const override {
        return {by_speed.front()};
    }
    [[nodiscard]] std::vector<std::vector<placed_worker>> split(std::span<placed_worker const> list,
                                                                std::size_t) const override {
        return {{list.begin(), list.end()}};
    }
    [[nodiscard]] bool divides(std::size_t, std::size_t) const override { return true; }
    [[nodiscard]] std::size_t next(std::span<queued_task const> q, bool) const override {
        return detail::costliest(q);
    }
    [[nodiscard]] std::vector<std::size_t> give(std::span<queued_task const>, bool) const override {
        return {}; // only the task the manager names moves
    }
    [[nodiscard]] idle_action when_idle() const override { return idle_action::report; }
    [[nodiscard]] bool balances() const override { return false; }
    [[nodiscard]] bool spills() const override { return false; }
    [[nodiscard]] std::optional<placement_rule> estimates_rule() const override { return rule_; }
    [[nodiscard]] migration_cost const* migration() const override { return &cost_; }

private:
    placement_rule rule_;
    migration_cost cost_;
};

/// The placement a name gives: "kazouris", "april", "steal", "steal-half",
/// "dlpt", "random", "round-robin", "objects", "messages". `spill`: see
/// task_placement::spills (kazouris and steal only); `cost`: the migration
/// cost for the last five (a negative latency or per-byte cost: measured).
inline std::unique_ptr<task_placement> make_placement(std::string_view name, bool spill = true,
                                                      migration_cost cost = {}) {
    if (name == "kazouris") return std::make_unique<kazouris_placement>(spill);
    if (name == "april") return std::make_unique<april_placement>();
    if (name == "steal") return std::make_unique<steal_placement>(false, spill);
    if (name == "steal-half") return std::make_unique<steal_placement>(true, spill);
    for (auto const rule : {placement_rule::dlpt, placement_rule::random, placement_rule::round_robin,
                            placement_rule::objects, placement_rule::messages})
        if (name == name_of(rule)) return std::make_unique<estimate_placement>(rule, std::move(cost));
    detail::require(false, "options.placement", std::string(name),
                    "must be kazouris, april, steal, steal-half, dlpt, random, round-robin, objects or messages");
    return nullptr;
}

} // namespace loopsched
