// Static schedules of a uniform-dependence loop in its optimal time OET with
// the fewest processors (Ciorba, 3.2-3.3): the decision algorithm DA, the
// binary search BSDA over [LB, UB], and a check that a schedule is legal.
#pragma once

#include <loopsched/dependence/time_steps.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loopsched {

/// Which point each processor runs at each step: one point per processor per step.
template <std::size_t N>
class step_schedule {
public:
    using point = typename box<N>::point;
    struct placed_point {
        point at{};
        std::uint32_t step = 0; ///< from 1
        std::uint32_t processor = 0;
        friend bool operator==(placed_point const&, placed_point const&) = default;
    };

    step_schedule(std::size_t processors, std::uint32_t steps) : processors_(processors), steps_(steps) {}

    void place(point const& p, std::uint32_t step, std::uint32_t processor) { points_.push_back({p, step, processor}); }

    [[nodiscard]] std::size_t processors() const noexcept { return processors_; }
    [[nodiscard]] std::uint32_t steps() const noexcept { return steps_; }
    [[nodiscard]] std::vector<placed_point> const& points() const noexcept { return points_; }

    /// The table of Table 3.1: table[processor][step - 1], empty where the processor idles.
    [[nodiscard]] std::vector<std::vector<std::optional<point>>> table() const {
        std::vector<std::vector<std::optional<point>>> t(processors_, std::vector<std::optional<point>>(steps_));
        for (auto const& p : points_) t.at(p.processor).at(p.step - 1) = p.at;
        return t;
    }
    /// Steps x processors slots left empty.
    [[nodiscard]] std::size_t idle_slots() const noexcept { return processors_ * steps_ - points_.size(); }

private:
    std::size_t processors_;
    std::uint32_t steps_;
    std::vector<placed_point> points_;
};

/// Why a schedule is not a legal schedule of the loop in its OET, or nothing
/// if it is: every point exactly once, within OET, on a processor < P, at most
/// one point per processor per step, and after every source in the space.
template <std::size_t N>
std::optional<std::string> schedule_violation(step_schedule<N> const& s, time_steps<N> const& t) {
    auto const& numbering = t.numbering();
    std::vector<std::uint32_t> step_of(t.size(), 0);
    std::vector<char> busy(s.processors() * s.steps(), 0);
    for (auto const& p : s.points()) {
        if (!t.space().contains(p.at)) return "point " + to_string<N>(p.at) + " lies outside the space";
        if (p.step < 1 || p.step > t.oet())
            return "point " + to_string<N>(p.at) + " at step " + std::to_string(p.step) + ", beyond OET " +
                   std::to_string(t.oet());
        if (p.processor >= s.processors())
            return "processor " + std::to_string(p.processor) + " of " + std::to_string(s.processors());
        auto& slot = busy[p.processor * s.steps() + p.step - 1];
        if (slot) return "processor " + std::to_string(p.processor) + " runs two points at step " + std::to_string(p.step);
        slot = 1;
        auto& at = step_of[numbering.number(p.at)];
        if (at != 0) return "point " + to_string<N>(p.at) + " runs twice";
        at = p.step;
    }
    for (std::size_t j = 0; j < t.size(); ++j) {
        auto const p = numbering.at(j);
        if (step_of[j] == 0) return "point " + to_string<N>(p) + " never runs";
        for (auto const& d : t.vectors())
            if (auto const src = shifted<N>(p, d, -1); t.space().contains(src) && step_of[numbering.number(src)] >= step_of[j])
                return "point " + to_string<N>(p) + " at step " + std::to_string(step_of[j]) + " does not follow its source " +
                       to_string<N>(src) + " at step " + std::to_string(step_of[numbering.number(src)]);
    }
    return std::nullopt;
}

/// The decision algorithm DA (Fig 3.2): a schedule of the loop in OET steps on
/// `processors` processors, or nothing if DA finds none. Each step runs first
/// the available points that must run now (LCT = step; more than P of them:
/// NO), then fills the free processors with the available points of least
/// delay left, by increasing LCT, then ECT, then decreasing out-degree.
template <std::size_t N>
std::optional<step_schedule<N>> decide(time_steps<N> const& t, std::size_t processors) {
    detail::require(processors >= 1, "processors", processors, "must be >= 1");
    auto const& numbering = t.numbering();
    auto const& space = t.space();
    std::size_t const n = t.size();
    std::vector<std::uint32_t> waiting(n, 0); // sources not yet run
    std::vector<std::size_t> ready;            // every source has run in an earlier step
    for (std::size_t j = 0; j < n; ++j) {
        auto const p = numbering.at(j);
        for (auto const& d : t.vectors()) waiting[j] += space.contains(shifted<N>(p, d, -1)) ? 1u : 0u;
        if (waiting[j] == 0) ready.push_back(j);
    }
    step_schedule<N> schedule(processors, t.oet());
    std::vector<std::size_t> run;
    for (std::uint32_t step = 1; step <= t.oet(); ++step) {
        std::ranges::sort(ready, [&](std::size_t a, std::size_t b) {
            if (t.lct(a) != t.lct(b)) return t.lct(a) < t.lct(b);
            if (t.ect(a) != t.ect(b)) return t.ect(a) < t.ect(b);
            if (t.out_degree(a) != t.out_degree(b)) return t.out_degree(a) > t.out_degree(b);
            return a < b;
        });
        auto const crucial = static_cast<std::size_t>(
                std::ranges::count_if(ready, [&](std::size_t j) { return t.lct(j) <= step; }));
        if (crucial > processors) return std::nullopt;
        std::size_t const count = std::min(processors, ready.size());
        run.assign(ready.begin(), ready.begin() + static_cast<std::ptrdiff_t>(count));
        ready.erase(ready.begin(), ready.begin() + static_cast<std::ptrdiff_t>(count));
        for (std::size_t k = 0; k < run.size(); ++k)
            schedule.place(numbering.at(run[k]), step, static_cast<std::uint32_t>(k));
        for (std::size_t j : run) {
            auto const p = numbering.at(j);
            for (auto const& d : t.vectors())
                if (auto const succ = shifted<N>(p, d, +1); space.contains(succ)) {
                    std::size_t const s = numbering.number(succ);
                    if (--waiting[s] == 0) ready.push_back(s);
                }
        }
    }
    if (schedule.points().size() != n) return std::nullopt;
    return schedule;
}

/// What BSDA found: the fewest processors OP with which DA schedules the loop
/// in OET, that schedule, and every P tried with DA's answer, in order.
template <std::size_t N>
struct bsda_result {
    std::size_t processors = 0; ///< OP
    step_schedule<N> schedule;
    std::vector<std::pair<std::size_t, bool>> tried;
};

/// BSDA: binary search for the smallest P in [lower, upper] for which DA
/// answers YES, starting at floor((lower + upper) / 2) as section 3.2 does.
/// DA answers YES with UB processors (every ECT_i runs whole at step i); if
/// it does not for `upper`, that is reported as an error.
template <std::size_t N>
bsda_result<N> binary_search_decide(time_steps<N> const& t, std::size_t lower, std::size_t upper) {
    detail::require(lower >= 1, "lower bound", lower, "must be >= 1");
    detail::require(upper >= lower, "upper bound", upper, "must be >= the lower bound " + std::to_string(lower));
    std::vector<std::pair<std::size_t, bool>> tried;
    std::optional<step_schedule<N>> best;
    std::size_t op = 0, lo = lower, hi = upper;
    while (lo <= hi) {
        std::size_t const p = lo + (hi - lo) / 2;
        auto s = decide(t, p);
        tried.emplace_back(p, s.has_value());
        if (s) {
            best = std::move(s);
            op = p;
            if (p == lo) break;
            hi = p - 1;
        } else {
            lo = p + 1;
        }
    }
    detail::require(best.has_value(), "upper bound", upper, "admits no schedule in OET by DA");
    return {op, std::move(*best), std::move(tried)};
}

/// BSDA over [max(LB1, LB2), UB] (3.2, 3.3). LB3 is not the start: it is not
/// a lower bound in general (Example 3.2.1: LB3 = 21, yet DA succeeds with 20);
/// section 3.3 runs DA once with max(LB1, LB2, LB3), as decide(t, bounds.dynamic_lb()).
template <std::size_t N>
bsda_result<N> minimum_processors(time_steps<N> const& t) {
    auto const b = bounds_of(t);
    return binary_search_decide(t, b.lb(), b.ub);
}

} // namespace loopsched
