// Placements of a divide-and-conquer tree's tasks by decisions at every
// worker (TreePlacement): who starts, how a worker list is split at a division,
// which queued task runs next, which are given away on a request, and what an
// idle worker does. Three come with the library as value types: Kazouris's scheme
// (kazouris), APRIL's static keep-half-send-half over a binomial tree (april),
// and random work stealing (steal, steal-half). Karamcheti and Wah's D_LPT and its
// baselines place every new task from the manager instead (mapping/estimates.hpp).
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/error.hpp>
#include <loopsched/hooks.hpp>
#include <loopsched/mapping/concepts.hpp>
#include <loopsched/mapping/estimates.hpp>
#include <loopsched/mapping/farm_placements.hpp>
#include <loopsched/mapping/tree_decisions.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace loopsched {

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

/// Kazouris's scheme (section 3.4): the problem starts at the fastest worker
/// with every other worker as its list; lists split by balanced speed sums;
/// a worker divides its costliest task until its queue holds one task per
/// worker, then inlines the cheapest; idle workers report to the manager,
/// which has the busiest worker (summed queue cost over speed) send its
/// second-costliest task.
class kazouris_placement {
public:
    static constexpr std::string_view name = "kazouris";
    static constexpr hook_set hooks{.give_amount = true};
    /// For a tree: the placement is its own state.
    [[nodiscard]] kazouris_placement start(placement_info const&) const { return *this; }
    /// For a task farm (chapter 4): kazouris_farm_state.
    [[nodiscard]] kazouris_farm_state start(farm_info const& info) const { return kazouris_farm_state(info); }
    [[nodiscard]] std::string spec() const { return std::string(name); }
    [[nodiscard]] std::vector<placed_worker> first_list(std::span<placed_worker const> by_speed) const {
        return {by_speed.begin(), by_speed.end()};
    }
    /// Greedy balance: the worker first in list 0, then the others fastest
    /// first, each to the list with the smallest sum of speeds so far (the
    /// document's example: speeds 4, 3, 2, 1 give {4, 1} and {3, 2}).
    [[nodiscard]] std::vector<std::vector<placed_worker>> split(std::span<placed_worker const> list,
                                                                std::size_t children) const {
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
    [[nodiscard]] bool divides(std::size_t queued, std::size_t workers) const { return queued < workers; }
    [[nodiscard]] std::size_t next(std::span<queued_task const> q, bool dividing) const {
        return dividing ? detail::costliest(q) : detail::cheapest(q);
    }
    /// The second-costliest (the costliest stays: it would be waited for
    /// longest). With one task queued: given only while the worker has a task
    /// of its own running; otherwise refused (giving it would just move the idleness).
    [[nodiscard]] std::vector<std::size_t> give(std::span<queued_task const> q, bool running) const {
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
    /// A transfer sized by speeds (the document's master-worker rule (4.6),
    /// here for a dividing tree): the one task above first, then the costliest
    /// others (the costliest of all last), while the sum comes nearer `amount`.
    /// Refused when even the first task is over twice the amount: the receiver
    /// would finish after this worker (rule (4.5)). A worker with nothing
    /// running keeps one task.
    [[nodiscard]] std::vector<std::size_t> give(std::span<queued_task const> q, bool running, double amount) const {
        auto chosen = give(q, running);
        if (chosen.empty()) return chosen;
        double given = q[chosen.front()].weight;
        if (given > 2.0 * amount) return {};
        std::size_t const top = detail::costliest(q);
        std::vector<std::size_t> rest;
        for (std::size_t i = 0; i < q.size(); ++i)
            if (i != chosen.front() && i != top) rest.push_back(i);
        std::ranges::stable_sort(rest, [&](std::size_t a, std::size_t b) { return q[a].cost > q[b].cost; });
        if (top != chosen.front()) rest.push_back(top);
        for (std::size_t const i : rest) {
            if (!running && chosen.size() + 1 >= q.size()) break;
            if (std::abs(given + q[i].weight - amount) >= std::abs(given - amount)) break;
            given += q[i].weight;
            chosen.push_back(i);
        }
        return chosen;
    }
    [[nodiscard]] idle_action when_idle() const { return idle_action::report; }
    [[nodiscard]] bool balances() const { return true; }
    [[nodiscard]] bool spills() const { return spill_; }

    explicit kazouris_placement(bool spill = true) : spill_(spill) {}
    friend bool operator==(kazouris_placement const&, kazouris_placement const&) = default;

private:
    bool spill_;
};

/// APRIL's static keep-half-send-half (the document's baseline): the workers,
/// fastest first, numbered as a binomial tree; a worker with a list keeps the
/// lower part and sends a subproblem to the root of the upper part (B_k's
/// largest subtree first); with no list left it solves sequentially. Idle
/// workers stay idle.
class april_placement {
public:
    static constexpr std::string_view name = "april";
    [[nodiscard]] april_placement start(placement_info const&) const { return *this; }
    [[nodiscard]] std::string spec() const { return std::string(name); }
    [[nodiscard]] std::vector<placed_worker> first_list(std::span<placed_worker const> by_speed) const {
        return {by_speed.begin(), by_speed.end()};
    }
    [[nodiscard]] std::vector<std::vector<placed_worker>> split(std::span<placed_worker const> list,
                                                                std::size_t children) const {
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
    [[nodiscard]] bool divides(std::size_t, std::size_t) const { return false; }
    [[nodiscard]] std::size_t next(std::span<queued_task const> q, bool dividing) const {
        return dividing ? detail::costliest(q) : detail::cheapest(q);
    }
    [[nodiscard]] std::vector<std::size_t> give(std::span<queued_task const>, bool) const { return {}; }
    [[nodiscard]] idle_action when_idle() const { return idle_action::report; }
    [[nodiscard]] bool balances() const { return false; }
    [[nodiscard]] bool spills() const { return false; }
    friend bool operator==(april_placement const&, april_placement const&) = default;
};

/// Random work stealing, as UTS's MPI version and Cilk do: the problem
/// starts at the fastest worker; a worker divides its newest task while its
/// queue holds fewer tasks than there are workers, else inlines it; an idle
/// worker asks random victims, which give their oldest task (steal-one) or
/// the older half of their queue (steal-half).
class steal_placement {
public:
    explicit steal_placement(bool half = false, bool spill = true) : half_(half), spill_(spill) {}
    static constexpr hook_set hooks{.give_amount = true};
    [[nodiscard]] steal_placement start(placement_info const&) const { return *this; }
    [[nodiscard]] std::string spec() const { return half_ ? "steal-half" : "steal"; }
    [[nodiscard]] bool half() const noexcept { return half_; }
    [[nodiscard]] std::vector<placed_worker> first_list(std::span<placed_worker const> by_speed) const {
        return {by_speed.front()};
    }
    [[nodiscard]] std::vector<std::vector<placed_worker>> split(std::span<placed_worker const> list,
                                                                std::size_t) const {
        return {{list.begin(), list.end()}};
    }
    [[nodiscard]] bool divides(std::size_t queued, std::size_t workers) const { return queued < workers; }
    [[nodiscard]] std::size_t next(std::span<queued_task const> q, bool) const {
        return static_cast<std::size_t>(std::ranges::max_element(q, {}, [](auto const& t) { return t.order; }) -
                                        q.begin());
    }
    [[nodiscard]] std::vector<std::size_t> give(std::span<queued_task const> q, bool running) const {
        if (q.empty() || (q.size() == 1 && !running)) return {};
        auto at = detail::oldest_first(q);
        std::size_t const n = half_ ? std::max<std::size_t>(1, q.size() / 2) : 1;
        at.resize(n);
        return at;
    }
    /// A steal by a slower thief, sized by speeds (`amount`: the load it
    /// would finish when this worker finishes the rest): the oldest tasks
    /// not over twice the amount (one, or for steal-half while the sum comes
    /// nearer it); refused when every task is larger, since the thief would
    /// finish after this worker.
    [[nodiscard]] std::vector<std::size_t> give(std::span<queued_task const> q, bool running, double amount) const {
        if (q.empty() || (q.size() == 1 && !running)) return {};
        std::vector<std::size_t> chosen;
        double given = 0.0;
        for (std::size_t const i : detail::oldest_first(q)) {
            if (q[i].weight > 2.0 * amount) continue;
            if (!chosen.empty() && (!half_ || std::abs(given + q[i].weight - amount) >= std::abs(given - amount)))
                break;
            if (!running && chosen.size() + 1 >= q.size()) break;
            chosen.push_back(i);
            given += q[i].weight;
        }
        return chosen;
    }
    [[nodiscard]] idle_action when_idle() const { return idle_action::steal; }
    [[nodiscard]] bool balances() const { return false; }
    [[nodiscard]] bool spills() const { return spill_; }

    friend bool operator==(steal_placement const&, steal_placement const&) = default;

private:
    bool half_, spill_;
};

namespace detail {

/// The decisions at the workers when every new task is placed from the
/// manager by estimates (Karamcheti and Wah's D_LPT or a baseline, any EstimatePlacement):
/// every problem that is not a leaf is divided into queued tasks (each a unit
/// the manager may place, as in the paper), a worker runs its largest estimate
/// first, and tasks move only when the manager asks.
struct estimate_decisions {
    [[nodiscard]] std::vector<placed_worker> first_list(std::span<placed_worker const> by_speed) const {
        return {by_speed.front()};
    }
    [[nodiscard]] std::vector<std::vector<placed_worker>> split(std::span<placed_worker const> list,
                                                                std::size_t) const {
        return {{list.begin(), list.end()}};
    }
    [[nodiscard]] bool divides(std::size_t, std::size_t) const { return true; }
    [[nodiscard]] std::size_t next(std::span<queued_task const> q, bool) const { return costliest(q); }
    [[nodiscard]] std::vector<std::size_t> give(std::span<queued_task const>, bool) const {
        return {}; // only the task the manager names moves
    }
    [[nodiscard]] idle_action when_idle() const { return idle_action::report; }
    [[nodiscard]] bool balances() const { return false; }
    [[nodiscard]] bool spills() const { return false; }
};

} // namespace detail
} // namespace loopsched
