// The task farm's shared parts (runtime/tasks/farm.hpp tells the engine): the
// placements a farm takes, Kazouris's cost model fitted on the replies, the
// settings every rank agrees on, and what a task and a transfer carry.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/mapping/any_placement.hpp>
#include <loopsched/runtime/core/wire.hpp>
#include <loopsched/task_options.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace loopsched {

/// Refuses, naming `parameter`, a placement a task farm cannot run: one of
/// divide-and-conquer's or a loop's, and TreeS over the task stream.
inline void check_farm_placement(any_placement const& p, std::string_view parameter) {
    if (p.policy() && p.policy()->splits_with_partners())
        throw invalid_parameter(std::string(parameter), p.spec(),
                                "is TreeS, whose partner splits cut a DOALL loop's running chunks: a farm takes "
                                "kazouris, ss, another chunk policy's spec or an estimate placement");
    if (p.estimates() == nullptr && !p.places_farms())
        detail::refuse_placement(p, parameter, "a divide-and-conquer placement",
                                 "a farm takes kazouris, ss, a chunk policy's spec,");
}

namespace detail {

/// (4.1) from the model's parameters: the estimated normalized time of `count`
/// tasks whose heuristic values sum to `heur_sum`, never below `least` a task.
/// One formula for the master and for a donor sizing a transfer.
inline double modelled_total(double lambda, double h, double nc, double least, double heur_sum, double count) noexcept {
    return std::max(count * least, lambda * (heur_sum - count * h) + count * nc);
}

/// Kazouris's estimator: nEstimCost(t) = lambda (heur(t) - H) + NC, fitted on
/// the `window` most recent replies by creation order.
class farm_cost_model {
public:
    farm_cost_model(std::size_t window, std::size_t needed) : window_(window), needed_(needed) {}

    /// A reply: task `id` of heuristic value `heur` took `normalized` seconds on the base processor.
    void add(std::uint64_t id, double heur, double normalized) {
        ++replies_;
        if (samples_.size() == window_ && id < samples_.front().id) return; // older than all ten
        auto at = std::ranges::lower_bound(samples_, id, {}, &sample::id);
        samples_.insert(at, sample{id, heur, normalized});
        if (samples_.size() > window_) samples_.erase(samples_.begin());
        stale_ = true; // fitted when next asked: SS farms and masters between transfers never ask
    }

    [[nodiscard]] bool ready() const noexcept { return replies_ >= needed_ && !samples_.empty(); }
    [[nodiscard]] std::size_t replies() const noexcept { return replies_; }
    [[nodiscard]] double lambda() const noexcept { return fitted().lambda_; }
    [[nodiscard]] double h() const noexcept { return fitted().h_; }
    [[nodiscard]] double nc() const noexcept { return fitted().nc_; }
    /// The floor under the estimates: the fitted line's lowest value over the
    /// window's heuristic range, and at least the window's cheapest normalized time.
    [[nodiscard]] double least() const noexcept { return fitted().least_; }

    /// (4.1): the estimated normalized time of `count` tasks whose heuristic values sum to `heur_sum`.
    [[nodiscard]] double total(double heur_sum, double count) const noexcept {
        if (!ready()) return count;
        auto const& m = fitted();
        return modelled_total(m.lambda_, m.h_, m.nc_, m.least_, heur_sum, count);
    }
    [[nodiscard]] double estimate(double heur) const noexcept { return total(heur, 1.0); }

private:
    struct sample {
        std::uint64_t id = 0;
        double heur = 0.0, cost = 0.0;
    };

    farm_cost_model const& fitted() const noexcept {
        if (stale_) fit();
        return *this;
    }
    void fit() const noexcept {
        stale_ = false;
        fit_line();
        // No estimate below the line's lowest value over the window's
        // heuristic range (nor below its cheapest sample): the line is applied
        // to queued tasks far beyond the window, and a slope that passed the
        // noise test by chance put every task past one end near the cheapest
        // sample (an exponential window's minimum, a fiftieth of the mean),
        // while the held tasks, on the other side, kept the total high: one
        // idle worker's share of that total came to 421 queued tasks of the
        // 2,918 left (1,024 workers, run under CPU contention, whose stalls
        // inflate a few replies and make such slopes). Extrapolating upwards
        // only makes grants smaller. With no slope the line is the mean,
        // never below the cheapest sample: nothing changes.
        double const line_low = nc_ + lambda_ * (h_low_ - h_), line_high = nc_ + lambda_ * (h_high_ - h_);
        least_ = std::max(least_, std::min(line_low, line_high));
    }
    void fit_line() const noexcept {
        double const n = static_cast<double>(samples_.size());
        // One pass: the sums, and the moments the noise test below needs,
        // taken about the first sample (no cancellation on large heur values).
        double const h0 = samples_.front().heur, c0 = samples_.front().cost;
        double dh = 0.0, dc = 0.0, dhh = 0.0, dcc = 0.0, dhc = 0.0;
        least_ = c0;
        h_low_ = h_high_ = h0;
        for (auto const& s : samples_) {
            double const x = s.heur - h0, y = s.cost - c0;
            dh += x;
            dc += y;
            dhh += x * x;
            dcc += y * y;
            dhc += x * y;
            least_ = std::min(least_, s.cost);
            h_low_ = std::min(h_low_, s.heur);
            h_high_ = std::max(h_high_, s.heur);
        }
        h_ = h0 + dh / n;
        nc_ = c0 + dc / n;
        std::size_t const ends = std::min<std::size_t>(3, samples_.size() / 2);
        lambda_ = 0.0;
        if (ends == 0) return;
        auto mean = [&](std::size_t from) {
            double h = 0.0, c = 0.0;
            for (std::size_t i = from; i < from + ends; ++i) {
                h += samples_[i].heur;
                c += samples_[i].cost;
            }
            return std::pair{h / static_cast<double>(ends), c / static_cast<double>(ends)};
        };
        auto const [h_old, c_old] = mean(0);
        auto const [h_new, c_new] = mean(samples_.size() - ends);
        if (h_new == h_old) return;
        lambda_ = (c_new - c_old) / (h_new - h_old);
        // A slope the window cannot tell from noise is taken as none: the line
        // is applied to queued tasks far beyond the window, where a chance
        // slope on equal costs (iid, say) estimates them at the floor or far
        // above, and one idle worker is handed a large share of the queue.
        // Noise: the residuals around the line; the two ends' difference must
        // exceed three standard errors of a difference of two means of `ends`
        // (compared squared: this runs at every reply).
        if (samples_.size() <= 2) return;
        double const shh = dhh - dh * dh / n, scc = dcc - dc * dc / n, shc = dhc - dh * dc / n;
        double const squares = std::max(0.0, scc - 2.0 * lambda_ * shc + lambda_ * lambda_ * shh);
        double const gap = c_new - c_old;
        if (gap * gap < 9.0 * (squares / (n - 2.0)) * (2.0 / static_cast<double>(ends))) lambda_ = 0.0;
    }

    std::size_t window_, needed_;
    std::vector<sample> samples_; ///< sorted by creation order
    std::size_t replies_ = 0;
    // The fit, made when first asked after new samples (so mutable).
    mutable double lambda_ = 0.0, h_ = 0.0, nc_ = 1.0;
    mutable double least_ = 0.0;                ///< the estimates' floor (least())
    mutable double h_low_ = 0.0, h_high_ = 0.0; ///< the window's heuristic range
    mutable bool stale_ = false;                ///< samples came since the last fit
};

/// The parameters every rank agrees on, as the engine uses them.
struct farm_settings : farm_parameters, resilience_options { // the options' numbers as given, checked by their description
    /// Where tasks go: a FarmPlacement (its state asked as workers become
    /// idle) or an EstimatePlacement (each task placed when it is made).
    any_placement placement{};
    // A hierarchical farm's levels (runtime/tasks/farm_hierarchy.hpp):
    /// Workers each "worker" stands for (a group's): its thresholds scale by
    /// it, plus a task each held ahead at its sub-master. Empty: one each, none ahead.
    std::vector<std::size_t> capacity{};
    /// A chunk policy schedules each batch of tasks that arrived as a loop of
    /// its own (a sub-master's: it never knows how many tasks will come).
    bool batches = false;
};

/// Tasks a worker holds at once under the estimates scheme: one running, one
/// waiting (no gap between them); the others wait at the master, placed on
/// it, where a move costs nothing.
inline constexpr std::size_t estimates_ahead = 2;

/// One task on the wire: which, its heuristic value, the worker's ordering key, and its bytes' count.
struct farm_task_header {
    std::uint64_t id = 0;
    double heur = 0.0;
    double priority = 0.0;
    double key = 0.0;
    std::uint64_t bytes = 0;
};

/// What the master asks a busy worker in a transfer.
struct farm_transfer {
    double amount = 0.0;      ///< normalized work, (4.6)
    std::int64_t to_rank = 0; ///< the idle worker's rank
    std::uint64_t to_index = 0;
    double lambda = 0.0, h = 0.0, nc = 1.0; ///< the model, to estimate its own tasks
    std::uint64_t modelled = 0;             ///< whether the model is ready
    double least = 0.0;                     ///< the model's floor (farm_cost_model::least)

    /// A held task's estimate at the donor: the master's (4.1) for one task,
    /// floor included. Without the floor a line fitted on recent replies put
    /// tasks queued long before them at zero, and a donor gave away all but one.
    [[nodiscard]] double estimate(double heur) const noexcept {
        return modelled ? modelled_total(lambda, h, nc, least, heur, 1.0) : 1.0;
    }
};

/// A revised estimate a farm worker sends its master: its running task's
/// remaining work, in the units of the task's cost (this_task::estimate).
struct farm_revision {
    std::uint64_t id = 0;
    double remaining = 0.0;
};

/// Who holds the tasks a worker moved (a transfer) or dropped (a cancel).
inline constexpr std::uint64_t dropped_tasks = std::numeric_limits<std::uint64_t>::max();
/// A transfer's `to_index` when the tasks go to another group's sub-master
/// (producers in groups): lent, not moved within the group.
inline constexpr std::uint64_t lent_to_group = dropped_tasks - 1;

/// A task held by a worker (its bytes kept as they came).
struct held_task {
    farm_task_header head;
    std::vector<std::byte> payload;
};
/// A worker's order: the larger runs first (priority, then the master's key).
inline bool runs_later(held_task const& a, held_task const& b) noexcept {
    return std::tie(a.head.priority, a.head.key) < std::tie(b.head.priority, b.head.key);
}

inline void write_task(wire_writer& w, farm_task_header const& h, std::span<std::byte const> payload) {
    w.put(h).put_raw(payload);
}

} // namespace detail
} // namespace loopsched
