// Ciorba's model of the optimal synchronization interval h (section 4.5):
// formulas 4.6 and 4.9 (homogeneous workers) and 4.11 and 4.14 (worker types),
// and the parallel times they minimise, 4.5, 4.7, 4.10 and 4.12; and the model
// Ciorba compares it with, Chen and Xue's tile height for block-assigned tiles.
#pragma once

#include <loopsched/detail/arithmetic.hpp>
#include <loopsched/error.hpp>

#include <cmath>
#include <span>
#include <string>
#include <vector>

namespace loopsched {

/// The costs the model takes, in seconds: a message of h units costs
/// c_d + h c_c (start-up plus one unit of the communication set per u_s
/// position), a subchunk of h u_s positions and V u_c positions costs h V c_p.
struct interval_costs {
    double startup = 0.0;  ///< c_d
    double per_unit = 0.0; ///< c_c: per u_s position of a communication set
};

/// One type of worker of formula 4.11: how many there are, their cost per
/// iteration (u_c x u_s position) c_p, and the chunk width V they receive.
struct worker_class {
    double count = 1;
    double cost_per_iteration = 0.0; ///< c_p of this type
    double chunk = 0.0;              ///< V_i of this type
};

namespace detail {
inline double checked_interval(double numerator, double denominator) {
    detail::require(denominator > 0.0, "interval model denominator", denominator,
                    "must be > 0: with these costs and chunks no interval pays for its messages (use a fixed h)");
    return std::sqrt(numerator / denominator);
}
} // namespace detail

/// Formula 4.11 (and 4.14, with each class's chunk taken per subproblem): the
/// optimal h for worker classes listed from the fastest to the slowest, the
/// last class receiving the last chunk:
///   h = sqrt(2 c_d U_s / (sum_j P_j (V_j c_pj + 2 c_c) - V_last c_plast - 4 c_c)).
inline double optimal_interval(interval_costs costs, index_t extent_s, std::span<worker_class const> classes) {
    detail::require(costs.startup >= 0.0, "interval model c_d", costs.startup, "must be >= 0");
    detail::require(costs.per_unit >= 0.0, "interval model c_c", costs.per_unit, "must be >= 0");
    detail::require(extent_s >= 1, "interval model U_s", extent_s, "must be >= 1");
    detail::require(!classes.empty(), "interval model worker classes", classes.size(), "must not be empty");
    double sum = 0.0;
    for (auto const& c : classes) {
        detail::require(c.count > 0.0 && c.chunk > 0.0 && c.cost_per_iteration >= 0.0, "interval model worker class",
                        std::to_string(c.count) + " x (c_p " + std::to_string(c.cost_per_iteration) + ", V " +
                                std::to_string(c.chunk) + ")",
                        "needs count > 0, V > 0 and c_p >= 0");
        sum += c.count * (c.chunk * c.cost_per_iteration + 2.0 * costs.per_unit);
    }
    auto const& last = classes.back();
    return detail::checked_interval(2.0 * costs.startup * static_cast<double>(extent_s),
                                    sum - last.chunk * last.cost_per_iteration - 4.0 * costs.per_unit);
}

/// Formulas 4.6 (k = 1: one chunk per worker, V = U_c / P) and 4.9 (the loop
/// cut into k subproblems of U_c / k, V = U_c / (k P)), for P equal workers:
///   h = sqrt(2 c_d U_s / ((U_c* - V) c_p + (2 U_c*/V - 4) c_c)),  U_c* = U_c / k.
inline double optimal_interval(interval_costs costs, double cost_per_iteration, index_t extent_s, index_t extent_c,
                               std::size_t workers, double subproblems = 1.0) {
    detail::require(workers >= 1, "interval model workers P", workers, "must be >= 1");
    detail::require(extent_c >= 1, "interval model U_c", extent_c, "must be >= 1");
    detail::require(subproblems >= 1.0, "interval model subproblems k", subproblems, "must be >= 1");
    worker_class const all{static_cast<double>(workers), cost_per_iteration,
                           static_cast<double>(extent_c) / subproblems / static_cast<double>(workers)};
    return optimal_interval(costs, extent_s, std::span(&all, 1));
}

/// Chen and Xue's optimal tile height ("Partitioning and scheduling loops on
/// NOWs", formula 4; the comparison of Ciorba's section 5.3.5): tiles are
/// assigned in blocks, one per worker (P = N, U_c = sum of the workers' V),
/// and in Ciorba's notation
///   h = sqrt(P (c_d + c_a) U_s / ((P - 1)(U_c c_p + 2 c_c))).
/// c_a is left undefined in the thesis; it stands for Chen and Xue's receive
/// start-up beside the send's, read here as c_d (then Table 5.11's constants
/// give the thesis's printed 29 and 39). On worker types, Chen and Xue's
/// averaged parameters: c_p is the workers' mean.
inline double chen_xue_interval(interval_costs costs, index_t extent_s, std::span<worker_class const> classes) {
    detail::require(extent_s >= 1, "Chen-Xue interval U_s", extent_s, "must be >= 1");
    double workers = 0.0, extent_c = 0.0, cost = 0.0;
    for (auto const& c : classes) {
        workers += c.count;
        extent_c += c.count * c.chunk;
        cost += c.count * c.cost_per_iteration;
    }
    detail::require(workers > 1.0, "Chen-Xue interval workers P", workers, "must be > 1 (a pipeline of blocks)");
    return detail::checked_interval(workers * 2.0 * costs.startup * static_cast<double>(extent_s),
                                    (workers - 1.0) * (extent_c * cost / workers + 2.0 * costs.per_unit));
}

/// The model's whole input for one loop: the costs, U_s and the worker
/// classes (fastest first, the last receiving the last chunk), as a DOACROSS
/// loop with h=auto measured and derived them; predicts its parallel time.
struct interval_model {
    interval_costs costs{};
    index_t extent_s = 1;
    std::vector<worker_class> classes{};
    double subproblems = 1.0; ///< k of 4.7/4.12: the loop as k subproblems of U_c / k (the classes' V per subproblem)

    [[nodiscard]] double optimal() const { return optimal_interval(costs, extent_s, classes); }
    /// Formulas 4.10 (and 4.5, its one-class case) for k = 1, and 4.12 (4.7)
    /// for k subproblems: the parallel time at interval h, with t_r = t_s =
    /// c_d + h c_c, t_p = h V c_p, t_idle = t_s (Proposition 4.5.1) and the
    /// work assignment T_wa = t_r + c_sch + t_s counted once, its request and
    /// reply carrying no communication set (c_d each: so 4.11's h, which
    /// treats T_wa as a constant, is exactly this time's minimum):
    ///   T_P = sum_j P_j (t_r + t_pj + t_s) - t_r - t_s + (U_s/h - 1)(t_r + t_plast + t_idle) + T_wa
    ///   T_N = k T_P + (k - 1) T_tr - (k - 1) T_wa,  T_tr = 2 (c_d + U_s c_c).
    [[nodiscard]] double predicted_seconds(double h, double scheduling = 0.0) const {
        detail::require(h >= 1.0, "interval model h", h, "must be >= 1");
        detail::require(!classes.empty(), "interval model worker classes", classes.size(), "must not be empty");
        detail::require(subproblems >= 1.0, "interval model subproblems k", subproblems, "must be >= 1");
        double const t_message = costs.startup + h * costs.per_unit; // t_r = t_s = t_idle
        double sum = 0.0;
        for (auto const& c : classes) sum += c.count * (2.0 * t_message + h * c.chunk * c.cost_per_iteration);
        double const t_last = h * classes.back().chunk * classes.back().cost_per_iteration;
        double const assignment = 2.0 * costs.startup + scheduling;
        double const one = sum - 2.0 * t_message +
                           (static_cast<double>(extent_s) / h - 1.0) * (2.0 * t_message + t_last) + assignment;
        double const transfer = 2.0 * (costs.startup + static_cast<double>(extent_s) * costs.per_unit);
        return subproblems * one + (subproblems - 1.0) * (transfer - assignment);
    }
};

} // namespace loopsched
