// Ciorba's static analysis pinned to the document's examples: ECT/LCT and
// the bounds (Examples 3.2.1, 3.3.1), DA and BSDA with every schedule checked
// legal, the optimal hyperplanes (Example 4.2.3, and in n-D), walking a hyperplane
// (appendix A) and the chains of Figure 3.6.
#include <loopsched/dependence/bsda.hpp>
#include <loopsched/dependence/chains.hpp>
#include <loopsched/dependence/hyperplane.hpp>

#include <doctest/doctest.h>

#include <random>
#include <set>
#include <vector>

using namespace loopsched;

namespace {
using sizes = std::vector<std::size_t>;

time_steps<2> example_321() { return {box<2>({1, 1}, {11, 11}), dependence_set<2>{{3, 1}, {4, 2}, {2, 2}}}; }
time_steps<2> example_331() { return {box<2>({1, 1}, {19, 19}), dependence_set<2>{{1, 4}, {4, 1}}}; }

/// A random legal dependence set of `count` vectors with components in [-2, 4].
template <std::size_t N>
dependence_set<N> random_deps(std::mt19937& rng, std::size_t count) {
    std::uniform_int_distribution<index_t> component(-2, 4);
    std::vector<distance_vector<N>> v;
    while (v.size() < count) {
        distance_vector<N> d{};
        for (auto& c : d) c = component(rng);
        if (is_lexicographically_positive<N>(d)) v.push_back(d);
    }
    return dependence_set<N>(std::move(v));
}
} // namespace

TEST_CASE("static: Example 3.2.1's ECT sets, crucial points and bounds") {
    auto const t = example_321();
    CHECK(t.oet() == 5);
    CHECK(t.size() == 100);
    CHECK(t.ect_sizes() == sizes{29, 26, 23, 17, 5});
    CHECK(t.crucial_sizes() == sizes{5, 6, 6, 6, 5});
    auto const b = bounds_of(t);
    CHECK(b.lb1 == 20);
    CHECK(b.lb2 == 6);
    CHECK(b.lb() == 20);
    CHECK(b.ub == 29);
    // LCT by (3.1): the terminal point can wait for nothing, the initial point
    // starts the longest chain, and every point's delay is LCT - ECT >= 0.
    CHECK(t.ect(std::array<index_t, 2>{10, 10}) == 5);
    CHECK(t.lct(std::array<index_t, 2>{10, 10}) == 5);
    CHECK(t.lct(std::array<index_t, 2>{1, 1}) == 1);
    for (std::size_t j = 0; j < t.size(); ++j) CHECK(t.lct(j) >= t.ect(j));
}

TEST_CASE("static: Example 3.2.1: BSDA tries 24, 21, 20 and DA schedules it on 20 processors, none idle") {
    auto const t = example_321();
    auto const r = minimum_processors(t);
    CHECK(r.processors == 20);
    CHECK(r.tried == std::vector<std::pair<std::size_t, bool>>{{24, true}, {21, true}, {20, true}});
    CHECK(r.schedule.idle_slots() == 0);
    CHECK_FALSE(schedule_violation(r.schedule, t).has_value());
    CHECK_FALSE(decide(t, 19).has_value()); // below LB1: 100 points do not fit 5 steps of 19
}

TEST_CASE("static: Example 3.3.1's dynamic bound: P_h = 9, 23, 36, 45, 48 and LB3 = 48") {
    auto const t = example_331();
    CHECK(t.oet() == 7);
    auto const d = t.delay_classes();
    CHECK(d[0][0] == 9);            // D_1^0
    CHECK(d[0][0] + d[0][1] == 28); // as E_2 = 18 + (28 - P_1) uses
    CHECK(d[1][0] == 18);
    auto const b = bounds_of(t);
    CHECK(b.lb3_steps == sizes{9, 23, 36, 45, 48, 48, 48});
    CHECK(b.lb3 == 48);
    CHECK(b.dynamic_lb() == 48);
    auto const s = decide(t, b.dynamic_lb()); // section 3.3: DA succeeds with max(LB1, LB2, LB3)
    REQUIRE(s.has_value());
    CHECK_FALSE(schedule_violation(*s, t).has_value());
}

TEST_CASE("static: LB3 is not a lower bound in general: 21 for Example 3.2.1, whose OP is 20") {
    CHECK(bounds_of(example_321()).lb3 == 21);
    CHECK(minimum_processors(example_321()).processors == 20);
}

TEST_CASE("static: the legality check names what is wrong") {
    auto const t = example_321();
    auto s = minimum_processors(t).schedule;
    step_schedule<2> broken(s.processors(), s.steps());
    for (auto const& p : s.points()) broken.place(p.at, p.step, p.processor);
    broken.place({1, 1}, 5, 0); // a second run of (1, 1), in a slot already taken
    REQUIRE(schedule_violation(broken, t).has_value());
    CHECK(schedule_violation(broken, t)->find("two points") != std::string::npos);
    step_schedule<2> reversed(s.processors(), s.steps());
    for (auto const& p : s.points()) reversed.place(p.at, s.steps() + 1 - p.step, p.processor);
    REQUIRE(schedule_violation(reversed, t).has_value());
    CHECK(schedule_violation(reversed, t)->find("does not follow its source") != std::string::npos);
    step_schedule<2> missing(s.processors(), s.steps());
    for (auto const& p : s.points())
        if (p.at != std::array<index_t, 2>{4, 4}) missing.place(p.at, p.step, p.processor);
    CHECK(schedule_violation(missing, t) == "point (4,4) never runs");
}

TEST_CASE("static: every schedule BSDA returns for random 2-D to 4-D loops is legal and within its bounds") {
    std::mt19937 rng(3003);
    auto check_loop = [](auto const& t) {
        auto const b = bounds_of(t);
        auto const r = minimum_processors(t);
        CHECK(r.processors >= b.lb());
        CHECK(r.processors <= b.ub);
        auto const why = schedule_violation(r.schedule, t);
        CHECK_MESSAGE(!why.has_value(), why.value_or(""));
        if (r.processors > b.lb()) CHECK_FALSE(decide(t, r.processors - 1).has_value());
        CHECK(decide(t, b.ub).has_value()); // UB always suffices
    };
    for (int round = 0; round < 40; ++round) {
        std::size_t const count = 3 + static_cast<std::size_t>(round % 8);
        check_loop(time_steps<2>(box<2>({0, 0}, {12, 15}), random_deps<2>(rng, count)));
        check_loop(time_steps<3>(box<3>({0, 0, 0}, {6, 7, 5}), random_deps<3>(rng, count)));
        if (round % 4 == 0) check_loop(time_steps<4>(box<4>({0, 0, 0, 0}, {4, 5, 3, 4}), random_deps<4>(rng, count)));
    }
}

TEST_CASE("static: bad input names the parameter") {
    CHECK_THROWS_WITH_AS(decide(example_321(), 0), doctest::Contains("processors"), error);
    CHECK_THROWS_WITH_AS(binary_search_decide(example_321(), 5, 4), doctest::Contains("upper bound"), error);
    CHECK_THROWS_WITH_AS(time_steps<2>(box<2>({0, 0}, {0, 3}), dependence_set<2>{{1, 0}}),
                         doctest::Contains("iteration space"), error);
    CHECK_THROWS_WITH_AS((void)example_321().ect(std::array<index_t, 2>{0, 0}), doctest::Contains("point"), error);
}

TEST_CASE("hyperplane: Example 4.2.3: the cone holding U picks 2x1 + x2 = 9 or 2x1 + 5x2 = 21") {
    dependence_set<2> const d{{1, 8}, {2, 5}, {3, 3}, {6, 2}, {8, 1}};
    auto const h1 = optimal_hyperplane(d, {75, 90});
    CHECK(h1 == hyperplane<2>{{2, 1}});
    CHECK(h1(std::array<index_t, 2>{2, 5}) == 9);
    auto const h2 = optimal_hyperplane(d, {105, 90});
    CHECK(h2 == hyperplane<2>{{2, 5}});
    CHECK(h2(std::array<index_t, 2>{3, 3}) == 21);
    CHECK(to_string(h2) == "2x1 + 5x2");
    // Every vector lies on or beyond the hyperplane through the cone's two.
    for (auto const& v : d.vectors()) CHECK(h1(v) >= 9);
}

TEST_CASE("hyperplane: the linear program's vertex is Example 4.2.3's hull edge in 2-D") {
    dependence_set<2> const d{{1, 8}, {2, 5}, {3, 3}, {6, 2}, {8, 1}};
    CHECK(detail::lowest_vertex_hyperplane<2>(d.vectors(), {75, 90}) == hyperplane<2>{{2, 1}});
    CHECK(detail::lowest_vertex_hyperplane<2>(d.vectors(), {105, 90}) == hyperplane<2>{{2, 5}});
}

TEST_CASE("hyperplane: the convex hull is a closed clockwise ring of corners, from the lowest leftmost point") {
    using pt = std::array<index_t, 2>;
    using ring = std::vector<pt>;
    // A square with a point inside, points in the middle of edges and a repeat.
    CHECK(detail::convex_hull({{2, 2}, {0, 0}, {4, 0}, {4, 4}, {0, 4}, {2, 0}, {0, 2}, {4, 4}, {1, 3}}) ==
          ring{{0, 0}, {0, 4}, {4, 4}, {4, 0}, {0, 0}});
    CHECK(detail::convex_hull({{3, 1}, {1, 1}, {2, 5}}) == ring{{1, 1}, {2, 5}, {3, 1}, {1, 1}});
    CHECK(detail::convex_hull({{1, 1}, {3, 3}, {2, 2}}) == ring{{1, 1}, {3, 3}, {1, 1}}); // collinear: one edge
    CHECK(detail::convex_hull({{5, 7}}) == ring{{5, 7}});
    CHECK(detail::convex_hull({}).empty());
    // Every point of a random cloud lies on the ring's inner side (or on it) of every edge.
    std::mt19937 rng(5);
    std::uniform_int_distribution<index_t> coordinate(-50, 50);
    for (int trial = 0; trial < 100; ++trial) {
        ring cloud(20);
        for (auto& p : cloud) p = {coordinate(rng), coordinate(rng)};
        auto const hull = detail::convex_hull(cloud);
        REQUIRE(hull.size() >= 4);
        CHECK(hull.front() == hull.back());
        for (std::size_t i = 0; i + 1 < hull.size(); ++i)
            for (auto const& p : cloud) {
                pt const a = hull[i], b = hull[i + 1];
                CHECK((b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]) <= 0);
            }
    }
}

TEST_CASE("hyperplane: over random 2-D sets, the vertex and the hull's edge cross U in as many hyperplanes") {
    std::mt19937 rng(11);
    std::uniform_int_distribution<index_t> component(0, 9), weight(0, 20);
    for (int trial = 0; trial < 300; ++trial) {
        std::vector<distance_vector<2>> v;
        while (v.size() < 4) {
            distance_vector<2> const x{component(rng), component(rng) + 1};
            if (std::ranges::find(v, x) == v.end()) v.push_back(x);
        }
        dependence_set<2> const d(v);
        // U inside the vectors' cone, so that both rules answer the same question.
        std::array<index_t, 2> u{0, 0};
        for (auto const& x : v) {
            index_t const w = weight(rng);
            u[0] += w * x[0], u[1] += w * x[1];
        }
        if (u[0] == 0 && u[1] == 0) continue;
        auto const hull = optimal_hyperplane(d, u);
        auto const vertex = detail::lowest_vertex_hyperplane<2>(d.vectors(), u);
        REQUIRE(vertex);
        INFO("trial " << trial << ": hull " << to_string(hull) << ", vertex " << to_string(*vertex));
        auto const by_vertex = detail::hyperplanes_crossed<2>(*vertex, d.vectors(), u);
        auto const by_hull = detail::hyperplanes_crossed<2>(hull, d.vectors(), u);
        // The same count when the hull's plane is non-negative (then it is a . U / min a . d, the
        // program's optimum); otherwise the vertex may cross the box in fewer.
        if (hull.a[0] >= 0 && hull.a[1] >= 0)
            CHECK(by_vertex == doctest::Approx(by_hull));
        else
            CHECK(by_vertex <= by_hull + 1e-9);
    }
}

TEST_CASE("hyperplane: in 3-D the facet through (2,0,0), (0,3,0), (0,0,1) is 3x1 + 2x2 + 6x3, 18 planes to (10,9,10)") {
    dependence_set<3> const d{{2, 0, 0}, {0, 3, 0}, {0, 0, 1}, {1, 1, 1}};
    auto const h = optimal_hyperplane(d, {10, 9, 10});
    CHECK(h == hyperplane<3>{{3, 2, 6}});
    CHECK(h(std::array<index_t, 3>{10, 9, 10}) == 18 * 6); // the chain 5 x (2,0,0) + 3 x (0,3,0) + 10 x (0,0,1)
    for (auto const& v : d.vectors()) CHECK(h(v) >= 6);
}

TEST_CASE("hyperplane: n-D sets without N independent vectors fall back to a legal plane") {
    CHECK(optimal_hyperplane(dependence_set<3>{{1, 0, 0}, {0, 1, 0}}, {4, 4, 4}) == hyperplane<3>{{1, 1, 1}});
    // The diagonal is illegal for (1,-3,0): weights falling by powers of 3 * 3 + 1 are not.
    auto const h = optimal_hyperplane(dependence_set<3>{{1, -3, 0}, {0, 0, 1}}, {4, 4, 4});
    CHECK(h == hyperplane<3>{{100, 10, 1}});
    CHECK(h(std::array<index_t, 3>{1, -3, 0}) > 0);
}

TEST_CASE("hyperplane: every optimal hyperplane of random 3-D to 5-D sets is legal and no worse than the diagonal") {
    std::mt19937 rng(5);
    auto check = [&]<std::size_t N>(std::integral_constant<std::size_t, N>) {
        for (int trial = 0; trial < 100; ++trial) {
            auto const d = random_deps<N>(rng, 3 + static_cast<std::size_t>(trial % 8));
            std::array<index_t, N> u{};
            for (auto& c : u) c = 20;
            auto const h = optimal_hyperplane(d, u);
            for (auto const& v : d.vectors()) CHECK(h(v) > 0);
            hyperplane<N> diagonal;
            diagonal.a.fill(1);
            if (std::ranges::all_of(d.vectors(), [&](auto const& v) { return diagonal(v) > 0; }))
                CHECK(detail::hyperplanes_crossed<N>(h, d.vectors(), u) <=
                      detail::hyperplanes_crossed<N>(diagonal, d.vectors(), u) + 1e-9);
            // No vertex of the program crosses in fewer.
            if (auto const vertex = detail::lowest_vertex_hyperplane<N>(d.vectors(), u))
                CHECK(detail::hyperplanes_crossed<N>(h, d.vectors(), u) <=
                      detail::hyperplanes_crossed<N>(*vertex, d.vectors(), u) + 1e-9);
        }
    };
    check(std::integral_constant<std::size_t, 3>{});
    check(std::integral_constant<std::size_t, 4>{});
    check(std::integral_constant<std::size_t, 5>{});
}

TEST_CASE("hyperplane: appendix A: Pi_9(2,1) holds (0,9), (1,7), (2,5), (3,3), (4,1) in that order") {
    using p2 = std::array<index_t, 2>;
    hyperplane_walk<2> const w(hyperplane<2>{{2, 1}}, {75, 90});
    std::vector<p2> walked;
    for (auto p = w.first(9); p; p = w.successor(*p)) walked.push_back(*p);
    CHECK(walked == std::vector<p2>{{0, 9}, {1, 7}, {2, 5}, {3, 3}, {4, 1}});
    CHECK(w.last(9) == p2{4, 1});
    CHECK(w.count(9) == 5);
    CHECK(w.rank(p2{3, 3}) == 3);
    CHECK(w.successor(p2{2, 5}) == p2{3, 3});
    CHECK_FALSE(w.successor(p2{4, 1}).has_value());
    hyperplane_walk<2> const w2(hyperplane<2>{{2, 5}}, {105, 90});
    CHECK(w2.first(21) == p2{3, 3});
    CHECK(w2.last(21) == p2{8, 1});
    CHECK(w2.count(21) == 2);
    CHECK_FALSE(w2.first(1).has_value()); // 2 x1 + 5 x2 = 1 has no point
    // The closed form of A.1 gives the same points in the same order.
    auto const line = solve_line(2, 1, 9, {75, 90});
    REQUIRE(line.size() == 5);
    for (index_t l = line.l_min; l <= line.l_max; ++l) CHECK(line.at(l) == walked[static_cast<std::size_t>(l - line.l_min)]);
    CHECK(line.l_of(p2{2, 5}) + 1 == line.l_of(p2{3, 3}));
}

TEST_CASE("hyperplane: the walk visits every point of a box exactly once, in order, on 2-D to 4-D spaces") {
    std::mt19937 rng(423);
    auto check_walk = [&]<std::size_t N>(hyperplane<N> const& h, std::array<index_t, N> const& upper) {
        hyperplane_walk<N> const w(h, upper);
        std::set<std::array<index_t, N>> seen;
        std::uint64_t total = 0;
        for (index_t k = w.k_min(); k <= w.k_max(); ++k) {
            std::uint64_t on_plane = 0;
            std::optional<std::array<index_t, N>> previous;
            for (auto p = w.first(k); p; p = w.successor(*p), ++on_plane) {
                CHECK(h(*p) == k);
                CHECK(w.rank(*p) == on_plane);
                if (previous) CHECK(*previous < *p);
                CHECK(seen.insert(*p).second);
                previous = p;
            }
            CHECK(on_plane == w.count(k));
            if (previous) CHECK(w.last(k) == previous);
            total += on_plane;
        }
        std::uint64_t expected = 1;
        for (auto u : upper) expected *= static_cast<std::uint64_t>(u + 1);
        CHECK(total == expected);
    };
    std::uniform_int_distribution<index_t> coefficient(-2, 5), extent(0, 6);
    for (int round = 0; round < 20; ++round) {
        check_walk(hyperplane<2>{{coefficient(rng), coefficient(rng)}}, std::array<index_t, 2>{extent(rng), extent(rng)});
        check_walk(hyperplane<3>{{coefficient(rng), coefficient(rng), coefficient(rng)}},
                   std::array<index_t, 3>{extent(rng), extent(rng), extent(rng)});
        check_walk(hyperplane<4>{{1, coefficient(rng), 2, coefficient(rng)}}, std::array<index_t, 4>{3, 2, 4, 2});
    }
}

TEST_CASE("chains: Figure 3.6: d_c = (2,2), offsets 3 below and 2 above, 5 processors split 3 + 2") {
    dependence_set<2> const d{{1, 3}, {2, 2}, {4, 1}};
    chain_set const c(box<2>({0, 0}, {10, 10}), d);
    CHECK(c.along() == distance_vector<2>{2, 2});
    CHECK(c.offset({4, 1}) == 3);  // C_(0,0) sends to C_(3,0)
    CHECK(c.offset({1, 3}) == -2); // and to C_(0,2)
    CHECK(c.offset({2, 2}) == 0);
    CHECK(c.start(3) == std::array<index_t, 2>{3, 0});
    CHECK(c.start(-2) == std::array<index_t, 2>{0, 2});
    auto const cps = map_cps(c, 5);
    CHECK(cps.split == std::array<std::size_t, 2>{3, 2});
    // Below, chains 3 apart share a processor; above, chains 2 apart do.
    CHECK(cps.processor_of(0) == cps.processor_of(3));
    CHECK(cps.processor_of(-1) == cps.processor_of(-3));
    CHECK(cps.processor_of(0) < 3);
    CHECK(cps.processor_of(-1) >= 3);
    auto const cyclic = map_cyclic(c, 5);
    CHECK(cyclic.processor_of(0) == cyclic.processor_of(5)); // C_(0,0), C_(5,0) together
    CHECK(communication_volume(c, cps) < communication_volume(c, cyclic));
    // On one processor nothing is sent.
    CHECK(communication_volume(c, map_cyclic(c, 1)) == 0);
}

TEST_CASE("chains: the communication volume counts every crossing dependence edge once") {
    // d = (0,1) along columns, d_c = (1,0): chains are rows; two rows, two processors.
    dependence_set<2> const d{{1, 0}, {0, 1}};
    chain_set const c(box<2>({0, 0}, {2, 3}), d, distance_vector<2>{0, 1});
    auto const m = map_cyclic(c, 2);
    CHECK(c.keys().size() == 2);
    CHECK(communication_volume(c, m) == 3); // (1, y) needs (0, y) for y = 0, 1, 2
}

TEST_CASE("chains: ACS gives each processor chains in proportion to its available power") {
    dependence_set<2> const d{{1, 3}, {2, 2}, {4, 1}};
    chain_set const c(box<2>({0, 0}, {12, 13}), d);
    REQUIRE(c.keys().size() == 24);
    std::vector<double> const powers{1.0, 1.0, 0.8, 1.0, 1.0};
    auto const m = map_acs(c, powers);
    std::vector<int> count(5, 0);
    for (auto k : c.keys()) ++count[m.processor_of(k)];
    CHECK(count == std::vector<int>{5, 5, 4, 5, 5}); // the weaker S3 gets 4, the others 5
    CHECK_THROWS_WITH_AS(map_acs(c, std::vector<double>{1.0, 0.0}), doctest::Contains("power"), error);
}
