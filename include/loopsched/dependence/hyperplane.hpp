// Hyperplanes a . j = k through an index space (Ciorba, 4.2.2 and appendix
// A): the optimal hyperplane of a dependence set, and walking one hyperplane
// in lexicographic order (minimum, maximum, successor, a point's rank).
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/dependence/uniform.hpp>
#include <loopsched/detail/arithmetic.hpp>
#include <loopsched/error.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace loopsched {

/// The family of hyperplanes a . j = k; a point's hyperplane is its k.
template <std::size_t N>
struct hyperplane {
    std::array<index_t, N> a{};

    [[nodiscard]] constexpr index_t operator()(std::array<index_t, N> const& j) const noexcept {
        index_t k = 0;
        for (std::size_t d = 0; d < N; ++d) k += a[d] * j[d];
        return k;
    }
    friend constexpr bool operator==(hyperplane const&, hyperplane const&) = default;
};

template <std::size_t N>
std::string to_string(hyperplane<N> const& h) {
    std::string text;
    for (std::size_t d = 0; d < N; ++d) {
        if (h.a[d] == 0) continue;
        if (!text.empty()) text += h.a[d] < 0 ? " - " : " + ";
        else if (h.a[d] < 0) text += "-";
        index_t const c = h.a[d] < 0 ? -h.a[d] : h.a[d];
        text += (c == 1 ? "" : std::to_string(c)) + "x" + std::to_string(d + 1);
    }
    return text.empty() ? "0" : text;
}

namespace detail {

/// The convex hull of integer points as a closed ring (its first point again
/// at the end), clockwise from the lowest of the leftmost points, with no
/// point in the middle of an edge: Andrew's monotone chain, exact in
/// integers. (Boost.Geometry's hull, used here before, cost every DOACROSS
/// translation unit 34k lines for these 20.)
inline std::vector<std::array<index_t, 2>> convex_hull(std::vector<std::array<index_t, 2>> points) {
    std::ranges::sort(points);
    points.erase(std::unique(points.begin(), points.end()), points.end());
    if (points.size() < 2) return points;
    // > 0: a -> b -> c turns counterclockwise; a clockwise ring keeps only right turns.
    auto turn = [](auto const& a, auto const& b, auto const& c) {
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
    };
    std::vector<std::array<index_t, 2>> ring;
    auto add = [&](std::array<index_t, 2> const& p, std::size_t keep) {
        while (ring.size() > keep && turn(ring[ring.size() - 2], ring.back(), p) >= 0) ring.pop_back();
        ring.push_back(p);
    };
    for (auto const& p : points) add(p, 1); // the upper chain, left to right
    std::size_t const upper = ring.size();
    for (std::size_t i = points.size() - 1; i-- > 0;) add(points[i], upper); // the lower one, back
    return ring;
}

} // namespace detail

/// The optimal hyperplane of a 2-D dependence set for the terminal point
/// `terminal` (U - L): the line through the endpoints of the two vectors whose
/// cone holds the terminal point, an edge of the convex hull of the vectors'
/// endpoints and the terminal point. The
/// result is scaled to coprime integers with a . d >= a . (cone vector) > 0
/// for every d, so the points of one hyperplane never depend on each other.
/// The terminal point outside every cone takes the hull edge at the nearer
/// end of the chain; a set of collinear vectors takes the vectors' direction.
template <DependenceSet D>
requires(D::rank == 2) hyperplane<2> optimal_hyperplane(D const& deps, std::array<index_t, 2> const& terminal) {
    std::vector<distance_vector<2>> const vectors(deps.vectors().begin(), deps.vectors().end());
    detail::require(!vectors.empty(), "dependence set", 0, "needs at least one vector for a hyperplane");
    auto normal_of = [](distance_vector<2> const& p, distance_vector<2> const& q) {
        std::array<index_t, 2> a{q[1] - p[1], p[0] - q[0]};
        if (a[0] * p[0] + a[1] * p[1] < 0) a = {-a[0], -a[1]};
        index_t const g = std::gcd(a[0], a[1]);
        if (g > 1) a = {a[0] / g, a[1] / g};
        return hyperplane<2>{a};
    };
    auto cross = [](std::array<index_t, 2> const& u, std::array<index_t, 2> const& v) {
        return u[0] * v[1] - u[1] * v[0];
    };
    auto legal = [&](hyperplane<2> const& h) {
        return std::ranges::all_of(vectors, [&](auto const& d) { return h(d) > 0; });
    };
    auto require_legal = [&](hyperplane<2> const& h) {
        detail::require(legal(h), "dependence set", vectors.size(),
                        "has no hyperplane with a . d > 0 for every d (hyperplane " + to_string(h) + ")");
        return h;
    };
    std::vector<std::array<index_t, 2>> cloud(vectors.begin(), vectors.end());
    cloud.push_back(terminal);
    auto const ring = detail::convex_hull(std::move(cloud));
    // Hull edges between two dependence endpoints (the terminal point is not one).
    auto is_vector = [&](std::array<index_t, 2> const& p) { return std::ranges::find(vectors, p) != vectors.end(); };
    std::vector<std::pair<distance_vector<2>, distance_vector<2>>> edges;
    for (std::size_t i = 0; i + 1 < ring.size(); ++i)
        if (is_vector(ring[i]) && is_vector(ring[i + 1]) && ring[i] != ring[i + 1])
            edges.emplace_back(ring[i], ring[i + 1]);
    if (edges.empty()) { // collinear vectors (or one): hyperplanes across their direction
        index_t const g = std::gcd(vectors[0][0], vectors[0][1]);
        return require_legal(hyperplane<2>{{vectors[0][0] / g, vectors[0][1] / g}});
    }
    for (auto const& [p, q] : edges) // the cone of p and q holds U: U is between them, on the same side of both
        if (cross(p, terminal) * cross(p, q) >= 0 && cross(q, terminal) * cross(q, p) >= 0 &&
            cross(p, q) != 0 && normal_of(p, q)(terminal) > 0 && legal(normal_of(p, q)))
            return normal_of(p, q);
    // Outside every cone: the edge whose end vector lies closest in angle to U.
    auto const* best = &edges.front();
    double best_angle = 10.0;
    for (auto const& e : edges)
        for (auto const& v : {e.first, e.second}) {
            double const angle = std::abs(std::atan2(static_cast<double>(v[1]), static_cast<double>(v[0])) -
                                          std::atan2(static_cast<double>(terminal[1]), static_cast<double>(terminal[0])));
            if (legal(normal_of(e.first, e.second)) && angle < best_angle) {
                best_angle = angle;
                best = &e;
            }
        }
    return require_legal(normal_of(best->first, best->second));
}

namespace detail {
/// The determinant of an integer matrix by fraction-free (Bareiss)
/// elimination: every intermediate value is a minor, so the arithmetic stays
/// exact; a product past 64 bits is an error, not a wrong answer.
template <std::size_t N>
index_t exact_determinant(std::array<std::array<index_t, N>, N> m) {
    index_t sign = 1, previous = 1;
    for (std::size_t k = 0; k < N; ++k) {
        if (m[k][k] == 0) { // a non-zero pivot below, swapped up
            std::size_t r = k + 1;
            while (r < N && m[r][k] == 0) ++r;
            if (r == N) return 0;
            std::swap(m[k], m[r]);
            sign = -sign;
        }
        for (std::size_t i = k + 1; i < N; ++i)
            for (std::size_t j = k + 1; j < N; ++j) {
                index_t x = 0, y = 0;
                if (__builtin_mul_overflow(m[i][j], m[k][k], &x) || __builtin_mul_overflow(m[i][k], m[k][j], &y) ||
                    __builtin_sub_overflow(x, y, &x))
                    fail_requirement("determinant of dependence vectors", "beyond 64 bits",
                                     "must fit 64-bit arithmetic: the vectors are too long");
                m[i][j] = x / previous; // exact: Sylvester's identity
            }
        previous = m[k][k];
    }
    return sign * m[N - 1][N - 1];
}

/// How many hyperplanes of h, spaced by its smallest step over `vectors`,
/// the box [0, U] spans.
template <std::size_t N>
double hyperplanes_crossed(hyperplane<N> const& h, std::span<distance_vector<N> const> vectors,
                           std::array<index_t, N> const& terminal) {
    double span = 0;
    for (std::size_t k = 0; k < N; ++k)
        span += static_cast<double>(h.a[k] < 0 ? -h.a[k] : h.a[k]) * static_cast<double>(terminal[k]);
    index_t step = h(vectors[0]);
    for (auto const& d : vectors) step = std::min(step, h(d));
    return span / static_cast<double>(step);
}

/// The optimal hyperplane as a linear program: minimise a . U subject to
/// a . d >= 1 for every dependence d. Its optimum lies on a vertex, where N
/// linearly independent vectors are tight: a facet of the convex hull of the
/// vectors' endpoints facing the origin, and by duality the facet whose cone
/// holds U (the 2-D rule, in any dimension). The vertices are enumerated over
/// the N-subsets of the vectors (a few hundred for 10 vectors in 5-D), each
/// solved exactly by Cramer's rule, and the one crossing the box [0, U] in the
/// fewest hyperplanes wins: sum |a_k| U_k over a . d, which is a . U when a is
/// non-negative (every example of the document) and still counts the planes
/// walked when U lies outside every cone and the program has no minimum.
/// None when no N of the vectors are independent.
template <std::size_t N>
std::optional<hyperplane<N>> lowest_vertex_hyperplane(std::span<distance_vector<N> const> vectors,
                                                      std::array<index_t, N> const& terminal) {
    std::size_t const m = vectors.size();
    if (m < N) return std::nullopt;
    std::optional<hyperplane<N>> best;
    double best_steps = 0; // hyperplanes crossed in the box
    std::array<std::size_t, N> pick{};
    for (std::size_t i = 0; i < N; ++i) pick[i] = i;
    for (;;) {
        std::array<std::array<index_t, N>, N> rows{};
        for (std::size_t i = 0; i < N; ++i)
            for (std::size_t j = 0; j < N; ++j) rows[i][j] = vectors[pick[i]][j];
        if (index_t const det = exact_determinant<N>(rows); det != 0) {
            hyperplane<N> h; // a = det * rows^-1 * 1, the sign making a . d > 0 on the tight vectors
            index_t g = 0;
            for (std::size_t k = 0; k < N; ++k) {
                auto replaced = rows;
                for (std::size_t i = 0; i < N; ++i) replaced[i][k] = 1;
                h.a[k] = (det < 0 ? -1 : 1) * exact_determinant<N>(replaced);
                g = std::gcd(g, h.a[k]);
            }
            for (auto& c : h.a) c /= g;
            index_t const tight = h(vectors[pick[0]]);
            if (tight > 0 && std::ranges::all_of(vectors, [&](auto const& d) { return h(d) >= tight; })) {
                double const steps = hyperplanes_crossed<N>(h, vectors, terminal);
                if (!best || steps < best_steps) best = h, best_steps = steps;
            }
        }
        // The next N-subset in lexicographic order.
        std::size_t i = N;
        while (i-- > 0 && pick[i] == m - N + i) {
        }
        if (i == static_cast<std::size_t>(-1)) break;
        ++pick[i];
        for (std::size_t j = i + 1; j < N; ++j) pick[j] = pick[j - 1] + 1;
    }
    return best;
}
} // namespace detail

/// The optimal hyperplane of an N-D dependence set (N != 2) for the terminal
/// point `terminal`: the facet of the vectors' hull whose cone holds it,
/// found as the linear program's optimum (detail::lowest_vertex_hyperplane),
/// scaled to coprime integers; the diagonal if it crosses the box in fewer
/// hyperplanes (U outside every cone). When fewer than N vectors are
/// independent the hyperplane is free across the rest: the diagonal if it is
/// legal, else weights falling by powers (legal for any lexicographically positive set).
template <DependenceSet D>
requires(D::rank != 2) hyperplane<D::rank> optimal_hyperplane(D const& deps,
                                                              std::array<index_t, D::rank> const& terminal) {
    constexpr std::size_t N = D::rank;
    std::vector<distance_vector<N>> const vectors(deps.vectors().begin(), deps.vectors().end());
    detail::require(!vectors.empty(), "dependence set", 0, "needs at least one vector for a hyperplane");
    auto legal = [&](hyperplane<N> const& h) {
        return std::ranges::all_of(vectors, [&](auto const& d) { return h(d) > 0; });
    };
    hyperplane<N> h;
    h.a.fill(1);
    auto const vertex = detail::lowest_vertex_hyperplane<N>(vectors, terminal);
    if (vertex && (!legal(h) || detail::hyperplanes_crossed<N>(*vertex, vectors, terminal) <=
                                        detail::hyperplanes_crossed<N>(h, vectors, terminal)))
        return *vertex;
    if (legal(h)) return h;
    index_t largest = 0;
    for (auto const& d : vectors)
        for (index_t c : d) largest = std::max(largest, c < 0 ? -c : c);
    index_t const base = largest * static_cast<index_t>(N) + 1, weight_bound = detail::index_max / base;
    index_t weight = 1;
    for (std::size_t k = N; k-- > 0;) {
        h.a[k] = weight;
        if (k > 0) {
            detail::require(weight <= weight_bound, "dependence vectors", largest,
                            "too large for a lexicographic hyperplane");
            weight *= base;
        }
    }
    return h;
}

/// The points of a 2-D hyperplane a1 x1 + a2 x2 = k in [0, U1] x [0, U2] by the
/// closed form of appendix A.1: with g = gcd(a1, a2) and one integer solution
/// (j1, j2), the solutions are (j1 + l a2/g, j2 - l a1/g); lexicographic order
/// is the order of l (for a2 > 0), and a point's successor is l + 1.
struct line_solutions {
    index_t step_x1 = 0, step_x2 = 0; ///< a2/g and -a1/g
    index_t x1 = 0, x2 = 0;           ///< the solution at l = 0
    index_t l_min = 1, l_max = 0;     ///< the range of l inside the box (empty if l_min > l_max)

    [[nodiscard]] std::size_t size() const noexcept {
        return l_min > l_max ? 0 : static_cast<std::size_t>(l_max - l_min + 1);
    }
    [[nodiscard]] std::array<index_t, 2> at(index_t l) const noexcept { return {x1 + l * step_x1, x2 + l * step_x2}; }
    /// The l of a solution (x1 must lie on the line).
    [[nodiscard]] index_t l_of(std::array<index_t, 2> const& p) const noexcept {
        return step_x1 != 0 ? (p[0] - x1) / step_x1 : (p[1] - x2) / step_x2;
    }
};

namespace detail {
/// Extended Euclid: g = gcd(a, b) >= 0 with a x + b y = g.
constexpr void extended_gcd(index_t a, index_t b, index_t& g, index_t& x, index_t& y) noexcept {
    index_t old_r = a, r = b, old_s = 1, s = 0, old_t = 0, t = 1;
    while (r != 0) {
        index_t const q = old_r / r;
        old_r = std::exchange(r, old_r - q * r);
        old_s = std::exchange(s, old_s - q * s);
        old_t = std::exchange(t, old_t - q * t);
    }
    if (old_r < 0) old_r = -old_r, old_s = -old_s, old_t = -old_t;
    g = old_r, x = old_s, y = old_t;
}
constexpr index_t ceil_div_signed(index_t a, index_t b) noexcept { return -floor_div(-a, b); }
} // namespace detail

/// The solutions of a1 x1 + a2 x2 = k with 0 <= x_i <= upper_i, a2 > 0.
inline line_solutions solve_line(index_t a1, index_t a2, index_t k, std::array<index_t, 2> const& upper) {
    detail::require(a2 > 0, "hyperplane coefficient a2", a2, "must be > 0 for the 2-D closed form");
    line_solutions s;
    index_t g = 0, u = 0, v = 0;
    detail::extended_gcd(a1, a2, g, u, v);
    if (k % g != 0) return s; // no integer point: l_min > l_max
    s.x1 = u * (k / g), s.x2 = v * (k / g);
    s.step_x1 = a2 / g, s.step_x2 = -a1 / g;
    // 0 <= x1 + l step_x1 <= upper_0, with step_x1 > 0.
    index_t lo = detail::ceil_div_signed(-s.x1, s.step_x1), hi = detail::floor_div(upper[0] - s.x1, s.step_x1);
    if (s.step_x2 > 0) {
        lo = std::max(lo, detail::ceil_div_signed(-s.x2, s.step_x2));
        hi = std::min(hi, detail::floor_div(upper[1] - s.x2, s.step_x2));
    } else if (s.step_x2 < 0) {
        lo = std::max(lo, detail::ceil_div_signed(upper[1] - s.x2, s.step_x2));
        hi = std::min(hi, detail::floor_div(-s.x2, s.step_x2));
    } else if (s.x2 < 0 || s.x2 > upper[1]) {
        return s;
    }
    s.l_min = lo, s.l_max = hi;
    return s;
}

/// Walks the hyperplanes a . j = k of the box [0, upper] (upper inclusive, N
/// dimensions) in lexicographic order: each hyperplane's minimum and maximum
/// point, a point's successor on its hyperplane, and how many points of the
/// hyperplane precede it. Tables of which partial sums the trailing dimensions
/// reach, and in how many ways, answer each question in O(sum of extents),
/// the dynamic programming of appendix A.2 (Figs A.1, A.2).
template <std::size_t N>
class hyperplane_walk {
public:
    using point = std::array<index_t, N>;

    hyperplane_walk(hyperplane<N> const& h, point const& upper) : h_(h), upper_(upper) {
        for (std::size_t d = 0; d < N; ++d)
            detail::require(upper[d] >= 0, "upper[" + std::to_string(d) + "]", upper[d], "must be >= 0");
        // ways_[d][s - low_[d]]: tuples of dimensions d.. summing to s (ways_[N]: the empty tuple, sum 0).
        low_[N] = high_[N] = 0;
        ways_[N] = {1};
        for (std::size_t d = N; d-- > 0;) {
            index_t const reach = h.a[d] * upper[d];
            low_[d] = low_[d + 1] + std::min<index_t>(0, reach);
            high_[d] = high_[d + 1] + std::max<index_t>(0, reach);
            ways_[d].assign(static_cast<std::size_t>(high_[d] - low_[d] + 1), 0);
            for (index_t x = 0; x <= upper[d]; ++x)
                for (index_t s = low_[d + 1]; s <= high_[d + 1]; ++s)
                    if (auto const w = ways(d + 1, s); w != 0) ways_[d][static_cast<std::size_t>(s + h.a[d] * x - low_[d])] += w;
        }
    }

    [[nodiscard]] hyperplane<N> const& plane() const noexcept { return h_; }
    /// The smallest and largest k of a point of the box.
    [[nodiscard]] index_t k_min() const noexcept { return low_[0]; }
    [[nodiscard]] index_t k_max() const noexcept { return high_[0]; }
    /// The number of points on hyperplane k.
    [[nodiscard]] std::uint64_t count(index_t k) const noexcept { return ways(0, k); }

    /// The lexicographically smallest point of hyperplane k, if it has one.
    [[nodiscard]] std::optional<point> first(index_t k) const { return extreme(k, true); }
    /// The lexicographically largest point of hyperplane k, if it has one.
    [[nodiscard]] std::optional<point> last(index_t k) const { return extreme(k, false); }

    /// The next point of j's hyperplane in lexicographic order (none after the maximum).
    [[nodiscard]] std::optional<point> successor(point const& j) const {
        check(j);
        index_t const k = h_(j);
        index_t prefix = k; // what dimensions d.. must sum to
        std::array<index_t, N + 1> rest{};
        for (std::size_t d = 0; d < N; ++d) {
            rest[d] = prefix;
            prefix -= h_.a[d] * j[d];
        }
        // Raise the last dimension that can be raised, then complete as small as possible.
        for (std::size_t d = N; d-- > 0;)
            for (index_t x = j[d] + 1; x <= upper_[d]; ++x)
                if (ways(d + 1, rest[d] - h_.a[d] * x) != 0) {
                    point next = j;
                    next[d] = x;
                    complete(next, d + 1, rest[d] - h_.a[d] * x, true);
                    return next;
                }
        return std::nullopt;
    }

    /// How many points of j's hyperplane come before j in lexicographic order.
    [[nodiscard]] std::uint64_t rank(point const& j) const {
        check(j);
        std::uint64_t before = 0;
        index_t rest = h_(j);
        for (std::size_t d = 0; d < N; ++d) {
            for (index_t x = 0; x < j[d]; ++x) before += ways(d + 1, rest - h_.a[d] * x);
            rest -= h_.a[d] * j[d];
        }
        return before;
    }

private:
    [[nodiscard]] std::uint64_t ways(std::size_t d, index_t s) const noexcept {
        if (s < low_[d] || s > high_[d]) return 0;
        return ways_[d][static_cast<std::size_t>(s - low_[d])];
    }
    void check(point const& j) const {
        for (std::size_t d = 0; d < N; ++d)
            detail::require(j[d] >= 0 && j[d] <= upper_[d], "point", to_string<N>(j), "must lie in [0, upper]");
    }
    std::optional<point> extreme(index_t k, bool smallest) const {
        if (ways(0, k) == 0) return std::nullopt;
        point p{};
        complete(p, 0, k, smallest);
        return p;
    }
    /// Fills dimensions from..N-1 of p with the smallest (or largest) completion summing to s.
    void complete(point& p, std::size_t from, index_t s, bool smallest) const {
        for (std::size_t d = from; d < N; ++d) {
            for (index_t i = 0; i <= upper_[d]; ++i) {
                index_t const x = smallest ? i : upper_[d] - i;
                if (ways(d + 1, s - h_.a[d] * x) != 0) {
                    p[d] = x;
                    s -= h_.a[d] * x;
                    break;
                }
            }
        }
    }

    hyperplane<N> h_;
    point upper_;
    std::array<index_t, N + 1> low_{}, high_{};
    std::array<std::vector<std::uint64_t>, N + 1> ways_;
};

} // namespace loopsched
