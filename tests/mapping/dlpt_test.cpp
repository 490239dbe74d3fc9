// D_LPT's rules step by step on hand-computed cases (Karamcheti and Wah), the baselines,
// and static placement against an exhaustive optimum.
#include <loopsched/mapping/dlpt.hpp>
#include <loopsched/mapping/estimates.hpp>
#include <loopsched/placement_spec.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

using namespace loopsched;

TEST_CASE("dlpt: the compensated load subtracts the running task's elapsed time, never below zero") {
    std::vector<double> const speeds{2, 1};
    dlpt_board b(speeds);
    b.revise(0, 4.0, 0.0);        // E(H) = 4 / 2 = 2 s from t_s = 0
    b.add(0, {1, 2.0, 0.0}, 0.0); // R = 2 / 2 = 1 s; P0 is busy so it waits
    CHECK(b.ready(0).size() == 1);
    CHECK(b.load(0, 0.0) == doctest::Approx(3.0));
    CHECK(b.load(0, 0.5) == doctest::Approx(2.5));
    CHECK(b.load(0, 3.0) == doctest::Approx(1.0)); // max(0, 2 - 3) + 1
    CHECK(b.load(1, 3.0) == 0.0);
    CHECK(b.finish(1, 2.0, 0.0) == doctest::Approx(2.0));
    CHECK(b.earliest_finish(2.0, 0.0) == 1); // P0 at 3 + 1 = 4, P1 at 0 + 2 = 2
    CHECK(b.earliest_finish(2.0, 3.0) == 0); // P0 at 1 + 1 = 2 (tie: the lower index)
}

TEST_CASE("dlpt: estimate updates and completion start the largest ready task") {
    std::vector<double> const speeds{2, 1};
    dlpt_board b(speeds);
    b.add(0, {1, 2.0, 0.0}, 0.0); // idle P0 starts it at once
    CHECK(b.busy(0));
    CHECK(b.ready(0).empty());
    b.add(0, {2, 6.0, 0.0}, 0.0);
    b.add(0, {3, 4.0, 0.0}, 0.0);
    CHECK(b.load(0, 0.0) == doctest::Approx(1.0 + 3.0 + 2.0));
    CHECK(b.complete(0, 0.5) == std::optional<std::uint64_t>{2}); // 6 before 4
    CHECK(b.load(0, 1.5) == doctest::Approx(2.0 + 2.0));          // 3 s from 0.5, 1 elapsed, + 4/2
    b.revise(0, 10.0, 1.5);                                       // update_estimate: 10 left as of 1.5
    CHECK(b.load(0, 1.5) == doctest::Approx(5.0 + 2.0));
    CHECK(b.load(0, 2.5) == doctest::Approx(4.0 + 2.0));
    CHECK(b.complete(0, 3.0) == std::optional<std::uint64_t>{3});
    CHECK(!b.complete(0, 5.0).has_value());
    CHECK(!b.busy(0));
    CHECK(b.load(0, 5.0) == 0.0);
}

TEST_CASE("dlpt: a queued task migrates only when the finish-time gain reaches f(theta)") {
    std::vector<double> const speeds{1, 1};
    auto setup = [&] {
        dlpt_board b(speeds);
        b.revise(0, 10.0, 0.0);
        b.add(0, {7, 4.0, 1000.0}, 0.0);
        return b;
    };
    // on P0: 10 + 4 = 14; on P1: 0 + 4 = 4; gain 10
    {
        auto b = setup();
        CHECK(!b.migrate(0, 7, migration_cost{1.0, 0.01, {}}, 0.0)); // theta = 1 + 10 = 11 > 10
        CHECK(b.ready(0).size() == 1);
    }
    {
        auto b = setup();
        CHECK(b.migrate(0, 7, migration_cost{1.0, 0.005, {}}, 0.0) == task_move{0, 1, 7}); // theta = 6
        CHECK(b.ready(0).empty());
        CHECK(b.load(1, 0.0) == doctest::Approx(4.0)); // idle P1 started it
        CHECK(b.busy(1));
    }
    {
        auto b = setup(); // f(theta) = 2 theta = 12 > 10
        CHECK(!b.migrate(0, 7, migration_cost{1.0, 0.005, [](double theta) { return 2.0 * theta; }}, 0.0));
    }
    {
        auto b = setup(); // at t = 5 the running task has 5 left: gain 5 < 6
        CHECK(!b.migrate(0, 7, migration_cost{1.0, 0.005, {}}, 5.0));
        CHECK(b.migrate(0, 7, migration_cost{1.0, 0.004, {}}, 5.0) == task_move{0, 1, 7}); // theta = 5
    }
    {
        auto b = setup(); // a task the board does not hold
        CHECK(!b.migrate(0, 99, migration_cost{}, 0.0));
    }
}

TEST_CASE("dlpt: rebalancing takes the ready tasks largest first, each where it finishes first") {
    std::vector<double> const speeds{1, 1, 1};
    dlpt_board b(speeds);
    b.revise(0, 10.0, 0.0);
    b.add(0, {1, 3.0, 0.0}, 0.0);
    b.add(0, {2, 5.0, 0.0}, 0.0);
    b.add(0, {3, 1.0, 0.0}, 0.0);
    // id 2 (5): P0 10 + 3 + 1 + 5 = 19, P1 5 -> P1. id 1 (3): P0 14, P1 8, P2 3 -> P2.
    // id 3 (1): P0 10 + 1 = 11, P1 5 + 1 = 6 (running), P2 3 + 1 = 4 -> P2.
    auto const moves = b.rebalance(0, migration_cost{}, 0.0);
    CHECK(moves == std::vector<task_move>{{0, 1, 2}, {0, 2, 1}, {0, 2, 3}});
    CHECK(b.load(0, 0.0) == doctest::Approx(10.0));
    CHECK(b.load(1, 0.0) == doctest::Approx(5.0));
    CHECK(b.load(2, 0.0) == doctest::Approx(4.0));
}

TEST_CASE("dlpt: an idle processor pulls the lowest-priority task of the most loaded one") {
    std::vector<double> const speeds{2, 1, 1};
    auto setup = [&] {
        dlpt_board b(speeds);
        b.revise(0, 8.0, 0.0);        // E = 4 s
        b.add(0, {1, 2.0, 0.0}, 0.0); // 1 s
        b.add(0, {2, 6.0, 0.0}, 0.0); // 3 s: L(P0, 0) = 8
        b.revise(2, 1.0, 0.0);        // P2 busy 1 s
        return b;
    };
    {
        auto b = setup(); // 8 - 2/2 = 7 >= 0: the smallest estimate moves
        CHECK(b.pull(1, migration_cost{}, 0.0) == task_move{0, 1, 1});
        CHECK(b.busy(1));
        CHECK(b.load(0, 0.0) == doctest::Approx(7.0));
    }
    {
        auto b = setup(); // 7 < 7.5: stays
        CHECK(!b.pull(1, migration_cost{7.5, 0.0, {}}, 0.0));
        CHECK(b.ready(0).size() == 2);
    }
    {
        auto b = setup(); // at t = 3: L = 1 + 4 = 5, 5 - 1 = 4
        CHECK(!b.pull(1, migration_cost{4.5, 0.0, {}}, 3.0));
        CHECK(b.pull(1, migration_cost{4.0, 0.0, {}}, 3.0) == task_move{0, 1, 1});
    }
    {
        std::vector<double> const slow_idle{8, 1}; // P0: 16/8 = 2 s left, T = 4 takes 0.5 s there but 4 s on P1
        dlpt_board b(slow_idle);
        b.revise(0, 12.0, 0.0);
        b.add(0, {5, 4.0, 0.0}, 0.0);
        CHECK(b.load(0, 0.0) == doctest::Approx(2.0));
        CHECK(!b.pull(1, migration_cost{}, 0.0)); // 2 - 0.5 >= 0 as printed, but it would end at 4 > 2
    }
    {
        dlpt_board b(speeds); // nothing ready anywhere
        b.revise(0, 8.0, 0.0);
        CHECK(!b.pull(1, migration_cost{}, 0.0));
    }
}

TEST_CASE("dlpt: the baselines choose by turn, by objects held and by pending messages") {
    std::vector<double> const speeds{4, 1, 1};
    dlpt_board b(speeds);
    placement_info const info{3, {}, 0};
    auto turns = round_robin_placement{}.start(info);
    CHECK(turns.choose(b, 1.0, 0.0) == 0);
    CHECK(turns.choose(b, 1.0, 0.0) == 1);
    CHECK(turns.choose(b, 1.0, 0.0) == 2);
    CHECK(turns.choose(b, 1.0, 0.0) == 0);
    b.add(0, {1, 1.0, 0.0}, 0.0);        // P0 runs 1
    b.add(0, {2, 1.0, 0.0}, 0.0);        // and holds 2: objects 2, pending 1
    b.add(1, {3, 1.0, 0.0}, 0.0, false); // P1 holds 3, not started: objects 1, pending 1
    b.revise(2, 1.0, 0.0);               // P2 runs something not on the board's queues: objects 1, pending 0
    CHECK(objects_placement{}.start(info).choose(b, 1.0, 0.0) == 1);
    CHECK(messages_placement{}.start(info).choose(b, 1.0, 0.0) == 2);
    CHECK(dlpt_placement{}.start(info).choose(b, 1.0, 0.0) == 0); // fastest: 0.25 + 0.25 + 0.25
    auto random = random_placement{3}.start(info);
    for (int i = 0; i < 50; ++i) CHECK(random.choose(b, 1.0, 0.0) < 3);
    CHECK(parse_placement("round-robin") == any_placement(round_robin_placement{}));
    CHECK_THROWS_WITH_AS(parse_placement("lpt"), doctest::Contains("unknown placement 'lpt' in spec 'lpt'; valid: "),
                         spec_error);
    CHECK_THROWS_AS(dlpt_board(std::vector<double>{1.0, -1.0}), invalid_parameter);
}

TEST_CASE("dlpt: a static set is LPT on uniform machines (earliest finish, largest first)") {
    std::vector<double> const speeds{4, 1, 1, 1}, costs{5, 3, 8, 2, 7};
    // 8 -> P0 (2); 7 -> P0 (3.75 < 7); 5 -> P0 (5 ties P1's 5: the lower index); 3 -> P1; 2 -> P2
    auto const s = place_static(dlpt_placement{}, costs, speeds);
    CHECK(s.processor == std::vector<std::size_t>{0, 1, 0, 2, 0});
    CHECK(s.makespan == doctest::Approx(5.0));
    CHECK(makespan_bound(costs, speeds) == doctest::Approx(25.0 / 7.0));
    CHECK(optimal_makespan(costs, speeds).makespan == doctest::Approx(5.0));
    auto const rr = place_static(round_robin_placement{}, costs, speeds);
    CHECK(rr.processor == std::vector<std::size_t>{0, 1, 2, 3, 0});
    CHECK(rr.makespan == doctest::Approx(8.0));
    CHECK_THROWS_WITH_AS(place_static(dlpt_placement{}, std::vector<double>{1.0, -2.0}, speeds),
                         "loopsched: invalid costs[1] = -2 (must be >= 0)", invalid_parameter);
}

namespace {
/// Every assignment, no pruning: the reference for optimal_makespan.
double brute_force(std::vector<double> const& costs, std::vector<double> const& speeds) {
    std::size_t const m = speeds.size(), n = costs.size();
    std::size_t total = 1;
    for (std::size_t i = 0; i < n; ++i) total *= m;
    double best = 1e300;
    for (std::size_t code = 0; code < total; ++code) {
        std::vector<double> finish(m, 0.0);
        std::size_t c = code;
        for (std::size_t i = 0; i < n; ++i, c /= m) finish[c % m] += costs[i] / speeds[c % m];
        best = std::min(best, *std::ranges::max_element(finish));
    }
    return best;
}
} // namespace

TEST_CASE("dlpt: the exhaustive optimum equals brute force, and D_LPT stays within LPT's bounds of it") {
    std::mt19937_64 random(11);
    for (auto const& speeds : {std::vector<double>{4, 1, 1, 1}, std::vector<double>{8, 4, 2, 1},
                               std::vector<double>{1, 1, 1}, std::vector<double>{3, 2}}) {
        double sum = 0.0, worst = 1.0;
        int const sets = 300;
        for (int s = 0; s < sets; ++s) {
            std::vector<double> costs(std::uniform_int_distribution<std::size_t>(1, 7)(random));
            for (auto& c : costs) c = std::uniform_real_distribution<double>(1.0, 100.0)(random);
            auto const opt = optimal_makespan(costs, speeds);
            CAPTURE(costs.size());
            REQUIRE(opt.makespan == doctest::Approx(brute_force(costs, speeds)));
            std::vector<double> finish(speeds.size(), 0.0); // the schedule it returns has that makespan
            for (std::size_t i = 0; i < costs.size(); ++i)
                finish[opt.processor[i]] += costs[i] / speeds[opt.processor[i]];
            CHECK(*std::ranges::max_element(finish) == doctest::Approx(opt.makespan));
            double const ours = place_static(dlpt_placement{}, costs, speeds).makespan;
            CHECK(ours >= opt.makespan * (1 - 1e-12));
            CHECK(opt.makespan >= makespan_bound(costs, speeds) * (1 - 1e-12));
            sum += ours / opt.makespan;
            worst = std::max(worst, ours / opt.makespan);
        }
        CAPTURE(speeds.size());
        CHECK(sum / sets < 1.05);
        CHECK(worst < 1.5); // LPT on uniform machines: at most 1.583 (Gonzalez, Ibarra and Sahni)
    }
}
