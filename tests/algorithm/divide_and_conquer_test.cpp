// divide_and_conquer on the in-process transport: results identical to the
// sequential recursion for every placement at 1-4 ranks, each problem handled
// once, uneven degrees, user types, cost measures, failures and bad options;
// and the placements' decisions on the document's examples.
#include "../../examples/dnc_problems.hpp"

#include <loopsched/algorithm/divide_and_conquer.hpp>
#include <loopsched/placement_spec.hpp>
#include <loopsched/runtime/core/trace.hpp>
#include <loopsched/this_task.hpp>
#include <loopsched/transport/in_process.hpp>

#include "../support/dnc_checks.hpp"
#include "../support/user_placement.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <mutex>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

using namespace loopsched;
using namespace loopsched::examples;

namespace {

char const* const placements[] = {"kazouris", "april", "steal", "steal-half"};

/// Counts every problem the ops see, over all ranks: with the sequential
/// count, "each problem handled once".
template <class Ops>
struct counted {
    Ops ops;
    std::atomic<std::uint64_t>* leaves;
    template <class P>
    bool is_leaf(P const& p) {
        return ops.is_leaf(p);
    }
    template <class P>
    auto solve(P const& p) {
        ++*leaves;
        return ops.solve(p);
    }
    template <class P>
    auto divide(P const& p) {
        return ops.divide(p);
    }
    template <class P, class R>
    auto combine(P const& p, std::span<R> r) {
        return ops.combine(p, r);
    }
};

template <class Problem, class Ops>
std::uint64_t count_leaves(Problem const& p, Ops const& ops) {
    if (ops.is_leaf(p)) return 1;
    std::uint64_t n = 0;
    for (auto const& c : ops.divide(p)) n += count_leaves(c, ops);
    return n;
}
template <class Problem, class Ops>
std::uint64_t count_nodes(Problem const& p, Ops const& ops) {
    if (ops.is_leaf(p)) return 1;
    std::uint64_t n = 1;
    for (auto const& c : ops.divide(p)) n += count_nodes(c, ops);
    return n;
}

/// Runs `problem` on `ranks` threads and checks the result, the leaves solved
/// and the problems handled against the sequential recursion, and that the
/// divided problems waiting at once on a worker's stack never outnumber the
/// tree's levels.
template <class Problem, class Ops>
void check_run(int ranks, Problem const& problem, Ops const& ops, dnc_options const& o) {
    auto const expected = sequential_divide_and_conquer(problem, Ops(ops));
    std::atomic<std::uint64_t> leaves{0};
    std::mutex m;
    std::vector<dnc_worker_statistics> rows;
    in_process::run(ranks, [&](in_process::endpoint& t) {
        counted<Ops> c{ops, &leaves};
        auto out = divide_and_conquer(t, problem, c, o);
        if (t.rank() == o.root) {
            CHECK(out.value == expected);
            std::lock_guard lock(m);
            rows = out.workers;
        }
    });
    CHECK(leaves.load() == count_leaves(problem, ops));
    std::uint64_t nodes = 0, tasks = 0, given = 0, received = 0;
    std::uint64_t const depth = testing::tree_depth(problem, ops);
    for (auto const& w : rows) {
        CAPTURE(w.rank);
        CHECK(w.peak_waits <= depth);
        nodes += w.nodes;
        tasks += w.tasks;
        given += w.given;
        received += w.received;
    }
    bool const dedicated = !o.master_computes.value_or(true) && ranks > 1;
    CHECK(rows.size() == static_cast<std::size_t>(dedicated ? ranks - 1 : ranks));
    CHECK(nodes == count_nodes(problem, ops));
    CHECK(received == given + 1); // every task sent was received once; the manager sent the first
    CHECK(tasks >= 1);
}

} // namespace

namespace {
/// check(ranks, options) for every placement named, 1-4 ranks, a computing and a dedicated manager.
template <class Names, class Check>
void on_every_setup(Names const& names, Check check) {
    for (char const* placement : names)
        for (int ranks = 1; ranks <= 4; ++ranks)
            for (bool computes : {true, false}) {
                CAPTURE(placement);
                CAPTURE(ranks);
                CAPTURE(computes);
                dnc_options o;
                o.placement = placement;
                o.master_computes = computes;
                check(ranks, o);
            }
}
} // namespace

/// Whether options of type O have a `deterministic` to set (the task algorithms' do not).
template <class O>
concept settable_deterministic = requires(O& o) {
    o.deterministic = true;
};

TEST_CASE("divide_and_conquer: every placement gives the sequential result on 1-4 ranks") {
    on_every_setup(placements, [](int ranks, dnc_options const& o) {
        check_run(ranks, 22, fibonacci{2, 20}, o);
        check_run(ranks, uneven_tree::node{}, uneven_tree{8}, o);
        check_run(ranks, queens_board{8}, nqueens{3}, o);
    });
}

TEST_CASE("divide_and_conquer: D_LPT and its baselines give the sequential result on 1-4 ranks") {
    // Every division is a task the manager places: smaller problems than above.
    char const* const by_estimates[] = {"dlpt", "random", "round-robin", "objects", "messages"};
    on_every_setup(by_estimates, [](int ranks, dnc_options const& o) {
        check_run(ranks, 22, fibonacci{12, 20}, o);
        check_run(ranks, uneven_tree::node{}, uneven_tree{6}, o);
        check_run(ranks, queens_board{7}, nqueens{3}, o);
    });
}

/// QuickSort with the paper's estimate: n log2 n comparisons for n elements.
struct estimated_quicksort : quicksort {
    static constexpr hook_set hooks{.cost = true};
    [[nodiscard]] double cost(std::vector<int> const& v) const {
        double const n = static_cast<double>(v.size());
        return n < 2 ? 1.0 : n * std::log2(n);
    }
};

TEST_CASE("divide_and_conquer: D_LPT moves tasks by their estimates to workers of speeds 4:1:1:1") {
    std::mt19937 random(5);
    std::vector<int> data(30000);
    for (auto& x : data) x = static_cast<int>(random() % 100000);
    for (double latency : {-1.0, 0.0, 1e9}) { // measured; free; never worth it
        CAPTURE(latency);
        dnc_options o;
        o.placement = "dlpt";
        o.powers = {4, 1, 1, 1};
        o.migration_latency = latency;
        std::atomic<std::uint64_t> given{0};
        auto const expected = sequential_divide_and_conquer(data, estimated_quicksort{{500}});
        in_process::run(4, [&](in_process::endpoint& t) {
            auto out = divide_and_conquer(t, data, estimated_quicksort{{500}}, o);
            if (t.rank() == 0) {
                CHECK(out.value == expected);
                for (auto const& w : out.workers) given += w.given;
            }
        });
        if (latency > 1e8)
            CHECK(given.load() == 0); // no gain reaches f(theta): nothing moves
        else
            CHECK(given.load() > 0);
    }
}

TEST_CASE("divide_and_conquer: this_task::estimate reaches the manager under dlpt and is ignored elsewhere") {
    struct revising : fibonacci {
        std::atomic<int>* heard;
        [[nodiscard]] std::uint64_t solve(int n) const {
            if (this_task::estimate(1.0)) ++*heard;
            return fibonacci::solve(n);
        }
    };
    for (char const* placement : {"dlpt", "kazouris"}) {
        CAPTURE(placement);
        std::atomic<int> heard{0};
        dnc_options o;
        o.placement = placement;
        auto const expected = sequential_divide_and_conquer(20, fibonacci{12, 0});
        in_process::run(3, [&](in_process::endpoint& t) {
            auto out = divide_and_conquer(t, 20, revising{{12, 0}, &heard}, o);
            if (t.rank() == 0) CHECK(out.value == expected);
        });
        CHECK((heard.load() > 0) == (std::string_view(placement) == "dlpt"));
    }
    CHECK(!this_task::estimate(2.0)); // outside any run
    CHECK_THROWS_AS(this_task::estimate(-1.0), invalid_parameter);
}

TEST_CASE("divide_and_conquer: this_task::poll from long leaves, with every placement: results exact") {
    struct polling : fibonacci {
        std::atomic<int>* polls;
        [[nodiscard]] std::uint64_t solve(int n) const {
            for (int i = 0; i < 50; ++i) {
                this_task::poll(); // a long leaf's outer loop: messages answered from inside it
                ++*polls;
            }
            return fibonacci::solve(n);
        }
    };
    auto const expected = sequential_divide_and_conquer(18, fibonacci{10, 0});
    for (char const* placement : placements) {
        CAPTURE(placement);
        std::atomic<int> polls{0};
        dnc_options o;
        o.placement = placement;
        o.poll_interval = 1e-6;
        in_process::run(3, [&](in_process::endpoint& t) {
            auto out = divide_and_conquer(t, 18, polling{{10, 0}, &polls}, o);
            if (t.rank() == 0) CHECK(out.value == expected);
        });
        CHECK(polls.load() > 0);
    }
    this_task::poll(); // outside any run: nothing happens
}

TEST_CASE("divide_and_conquer: a user's own placement, by value, on 1 to 4 ranks") {
    auto const expected = sequential_divide_and_conquer(22, fibonacci{10, 0});
    for (int ranks : {1, 2, 3, 4}) {
        CAPTURE(ranks);
        dnc_options o;
        o.placement = testing::least_work_placement{};
        in_process::run(ranks, [&](in_process::endpoint& t) {
            auto out = divide_and_conquer(t, 22, fibonacci{10, 0}, o);
            if (t.rank() == 0) CHECK(out.value == expected);
        });
        // A dividing placement of the user's: its decisions run at every worker
        // (the second type is a farm's placement too; in a tree it steals the same way).
        for (bool spill : {true, false})
            for (any_placement const& placement : {any_placement(testing::work_first_placement{}),
                                                  any_placement(testing::steal_or_pairs_placement{})}) {
            o.placement = placement;
            o.spill = spill;
            in_process::run(ranks, [&](in_process::endpoint& t) {
                auto out = divide_and_conquer(t, 22, fibonacci{10, 0}, o);
                if (t.rank() == 0) CHECK(out.value == expected);
                if (ranks > 1 && t.rank() == 0) { // its when_idle() was asked: idle workers stole, none reported
                    std::uint64_t steals = 0;
                    for (auto const& w : out.workers) steals += w.steals;
                    CHECK(steals > 0);
                }
            });
        }
    }
    {
        any_placement const mine = testing::work_first_placement{};
        CHECK(mine.target<testing::work_first_placement>() != nullptr); // held as it is, asked as a tree's
        CHECK(mine.tree_decisions(placement_info{}, true) != nullptr);
        CHECK_FALSE(mine.places_farms());
        CHECK(mine.spec() == "work-first");
        CHECK(mine == any_placement(testing::work_first_placement{}));
        CHECK(mine.fingerprint() != any_placement(steal_placement{}).fingerprint());
    }
    dnc_options o;
    o.placement = "ss"; // a farm's
    CHECK_THROWS_WITH_AS(
            in_process::run(1, [&](in_process::endpoint& t) { (void)divide_and_conquer(t, 5, fibonacci{}, o); }),
            doctest::Contains("options.placement = ss (is a task farm's placement"), invalid_parameter);
    o.placement = "sds"; // a DOACROSS loop's tile mapping
    CHECK_THROWS_WITH_AS(
            in_process::run(1, [&](in_process::endpoint& t) { (void)divide_and_conquer(t, 5, fibonacci{}, o); }),
            doctest::Contains("options.placement = sds (is a loop's mapping"), invalid_parameter);
    o.placement = "ss/kazouris"; // a farm's two levels
    CHECK_THROWS_WITH_AS(
            in_process::run(1, [&](in_process::endpoint& t) { (void)divide_and_conquer(t, 5, fibonacci{}, o); }),
            doctest::Contains("must be one placement"), invalid_parameter);
}

TEST_CASE("divide_and_conquer: serialized problems and results (QuickSort), any root, the size measure") {
    std::mt19937 random(7);
    std::vector<int> data(20000);
    for (auto& x : data) x = static_cast<int>(random() % 5000);
    for (char const* placement : placements)
        for (int root : {0, 2}) {
            CAPTURE(placement);
            CAPTURE(root);
            dnc_options o;
            o.placement = placement;
            o.root = root;
            check_run(3, data, quicksort{256}, o);
        }
}

namespace {
/// Fibonacci with the user's cost estimate: fib(n) grows as phi^n.
struct costed_fibonacci : fibonacci {
    static constexpr hook_set hooks{.cost = true};
    [[nodiscard]] double cost(int n) const { return static_cast<double>(n); }
};
} // namespace

TEST_CASE("divide_and_conquer: a user cost estimate, uneven worker speeds, without spilling") {
    for (char const* placement : placements)
        for (bool spill : {true, false}) {
            CAPTURE(placement);
            CAPTURE(spill);
            dnc_options o;
            o.placement = placement;
            o.spill = spill;
            o.powers = {1.0, 3.0, 2.0, 1.0};
            o.run_queues = {1.0, 1.0, 1.0, 1.0};
            check_run(4, 20, costed_fibonacci{{2, 50}}, o);
        }
}

TEST_CASE("divide_and_conquer: no deadlock under many nested waits (repeated, every placement)") {
    // Small leaves and work in the combines: workers wait on each other's
    // results all the time, and a waiting worker runs its own queue.
    for (int round = 0; round < 10; ++round)
        for (char const* placement : placements) {
            CAPTURE(round);
            CAPTURE(placement);
            dnc_options o;
            o.placement = placement;
            o.poll_interval = 1e-6;
            check_run(4, uneven_tree::node{}, uneven_tree{10}, o);
        }
}

TEST_CASE("divide_and_conquer: waits nest no deeper than the tree, however many tasks arrive meanwhile") {
    // 24^3 leaves on 4 ranks, polled often: transfers and steals arrive at
    // workers whose problems wait; check_run bounds each worker's peak of
    // nested waits by the tree's depth (3).
    for (char const* placement : placements) {
        CAPTURE(placement);
        dnc_options o;
        o.placement = placement;
        o.poll_interval = 1e-6;
        check_run(4, testing::wide_tree::node{}, testing::wide_tree{}, o);
    }
}

namespace {
/// n -> n - 1 -> ... -> 0: a tree as deep as it is long.
struct chain {
    [[nodiscard]] bool is_leaf(std::uint64_t n) const { return n == 0; }
    [[nodiscard]] std::uint64_t solve(std::uint64_t) const { return 1; }
    [[nodiscard]] std::array<std::uint64_t, 1> divide(std::uint64_t n) const { return {n - 1}; }
    [[nodiscard]] std::uint64_t combine(std::uint64_t, std::span<std::uint64_t> r) const { return r[0] + 1; }
};
} // namespace

// Inlined, the chain overflows the stack; queued (placements that make every
// division a task), it passes the engine's 2^18 levels of waiting frames.
TEST_CASE("divide_and_conquer: a tree deeper than a worker may hold fails on every rank, naming the depth") {
    for (char const* placement : placements) {
        CAPTURE(placement);
        dnc_options o;
        o.placement = placement;
        std::atomic<int> threw{0};
        in_process::run(2, [&](in_process::endpoint& t) {
            try {
                (void)divide_and_conquer(t, std::uint64_t{100'000'000}, chain{}, o);
            } catch (error const& e) {
                std::string const what = e.what();
                CHECK((what.find("deeper than a worker's stack allows: at depth ") != std::string::npos ||
                       what.find("deeper than a worker may hold: at depth 262144 ") != std::string::npos));
                ++threw;
            }
        });
        CHECK(threw.load() == 2);
    }
    // A chain the stack holds runs to the end.
    in_process::run(2, [&](in_process::endpoint& t) {
        auto const out = divide_and_conquer(t, std::uint64_t{2'000}, chain{}, dnc_options{});
        if (t.rank() == 0) CHECK(out.value == 2'001);
    });
}

namespace {
struct throwing_tree : uneven_tree {
    int where = 0; ///< 0: solve, 1: divide, 2: combine, 3: is_leaf
    std::uint64_t at = 77;
    [[nodiscard]] bool is_leaf(node const& p) const {
        if (where == 3 && p.id == at) throw std::runtime_error("is_leaf failed");
        return uneven_tree::is_leaf(p);
    }
    [[nodiscard]] std::uint64_t solve(node const& p) const {
        if (where == 0 && p.level >= 5) throw std::runtime_error("solve failed");
        return uneven_tree::solve(p);
    }
    [[nodiscard]] std::vector<node> divide(node const& p) const {
        if (where == 1 && p.level == 4) throw std::runtime_error("divide failed");
        return uneven_tree::divide(p);
    }
    [[nodiscard]] std::uint64_t combine(node const& p, std::span<std::uint64_t> r) const {
        if (where == 2 && p.level == 3) throw std::runtime_error("combine failed");
        return uneven_tree::combine(p, r);
    }
};
} // namespace

TEST_CASE("divide_and_conquer: a throwing solve, divide, combine or is_leaf makes every rank throw remote_error") {
    for (char const* placement : placements)
        for (int where = 0; where < 4; ++where) {
            CAPTURE(placement);
            CAPTURE(where);
            dnc_options o;
            o.placement = placement;
            std::atomic<int> threw{0};
            throwing_tree ops;
            ops.depth = 8;
            ops.where = where;
            ops.at = 1; // the root: is_leaf throws at once
            in_process::run(3, [&](in_process::endpoint& t) {
                try {
                    (void)divide_and_conquer(t, uneven_tree::node{}, ops, o);
                } catch (remote_error const& e) {
                    ++threw;
                    CHECK(std::string(e.original_message()).find("failed") != std::string::npos);
                }
            });
            CHECK(threw.load() == 3);
        }
}

TEST_CASE("divide_and_conquer: bad options name the option on every rank") {
    auto expect = [](dnc_options const& o, std::string const& parameter) {
        std::atomic<int> named{0};
        in_process::run(3, [&](in_process::endpoint& t) {
            try {
                (void)divide_and_conquer(t, 10, fibonacci{}, o);
            } catch (invalid_parameter const& e) {
                if (e.parameter() == parameter) ++named;
            }
        });
        CHECK(named.load() == 3);
    };
    dnc_options o;
    o.placement = "lpt";
    expect(o, "options.placement");
    o = {};
    o.migration_latency = std::nan("");
    expect(o, "options.migration_latency");
    static_assert(!settable_deterministic<dnc_options>); // tasks finish in no fixed order
    o = {};
    o.info_period = -1.0;
    expect(o, "options.info_period");
}

TEST_CASE("divide_and_conquer: a trace of every task, as Chrome JSON and a Gantt chart") {
    for (char const* placement : placements) {
        CAPTURE(placement);
        in_process::run(3, [&](in_process::endpoint& t) {
            dnc_options o;
            o.placement = placement;
            o.trace = true;
            auto out = divide_and_conquer(t, uneven_tree::node{}, uneven_tree{9}, o);
            if (t.rank() != 0) return;
            REQUIRE(!out.statistics.trace.empty());
            index_t nodes = 0;
            for (auto const& e : out.statistics.trace) {
                CHECK(e.rank >= 0);
                CHECK(e.rank < 3);
                CHECK(e.end >= e.start);
                nodes += e.size;
            }
            CHECK(nodes == out.statistics.iterations()); // every problem in one event: a queued node or an inlined task's
            std::ostringstream json, svg;
            write_chrome_trace(json, out.statistics, "dnc");
            write_svg_gantt(svg, out.statistics, "dnc");
            CHECK(json.str().find("\"ph\"") != std::string::npos);
            CHECK(svg.str().find("<svg") != std::string::npos);
        });
    }
}

TEST_CASE("divide_and_conquer: back-to-back runs on one transport") {
    in_process::run(3, [&](in_process::endpoint& t) {
        for (int n = 10; n < 20; ++n) {
            auto out = divide_and_conquer(t, n, fibonacci{3, 0});
            if (t.rank() == 0) CHECK(out.value == fibonacci::iterative(n));
        }
    });
}

// ---- the placements' decisions

TEST_CASE("placement: kazouris splits lists by balanced speed sums (the document's example)") {
    kazouris_placement k;
    // W1..W4 with nSpeed(W1) >= nSpeed(W2) >= nSpeed(W4) >= nSpeed(W3): {W1, W3} and {W2, W4}.
    std::vector<placed_worker> list{{1, 4.0}, {2, 3.0}, {3, 1.0}, {4, 2.0}};
    auto const lists = k.split(list, 2);
    REQUIRE(lists.size() == 2);
    CHECK(lists[0] == std::vector<placed_worker>{{1, 4.0}, {3, 1.0}});
    CHECK(lists[1] == std::vector<placed_worker>{{2, 3.0}, {4, 2.0}});
    // Degree 3 over 2 workers: two lists only.
    CHECK(k.split(std::vector<placed_worker>{{0, 1.0}, {1, 1.0}}, 3).size() == 2);
    // Every list gets a worker before any gets a second.
    auto const three = k.split(std::vector<placed_worker>{{0, 10.0}, {1, 1.0}, {2, 1.0}, {3, 1.0}}, 3);
    REQUIRE(three.size() == 3);
    CHECK(three[1].size() + three[2].size() == 3);
    CHECK(!three[1].empty());
    CHECK(!three[2].empty());
}

TEST_CASE(
        "placement: kazouris divides the costliest below one task per worker, inlines the cheapest, gives the second") {
    kazouris_placement k;
    // The document's W1 after 50 was divided: queue 24, 26 (the size measure).
    std::vector<queued_task> q{{24, 0}, {26, 1}};
    CHECK(k.divides(q.size(), 4));
    CHECK(k.next(q, true) == 1);
    q = {{24, 0}, {12, 2}, {14, 3}};
    CHECK(k.next(q, true) == 0);
    q = {{12, 2}, {14, 3}, {11, 4}, {13, 5}};
    CHECK(!k.divides(q.size(), 4));
    CHECK(k.next(q, false) == 2);                          // 11 first, then 12, 13, 14
    CHECK(k.give(q, true) == std::vector<std::size_t>{3}); // 13: the second-costliest
    CHECK(k.give(std::vector<queued_task>{{5, 0}}, true) == std::vector<std::size_t>{0});
    CHECK(k.give(std::vector<queued_task>{{5, 0}}, false).empty());
    CHECK(k.give(std::vector<queued_task>{}, true).empty());
}

TEST_CASE("placement: kazouris sizes a transfer by the amount asked: the second first, the costliest last") {
    kazouris_placement k;
    // costs 12, 14, 11, 13 (weights as costs: the size measure)
    std::vector<queued_task> q{{12, 2, 12}, {14, 3, 14}, {11, 4, 11}, {13, 5, 13}};
    CHECK(k.give(q, true, 13.0) == std::vector<std::size_t>{3});          // the one choice fits
    CHECK(k.give(q, true, 25.0) == std::vector<std::size_t>{3, 0});       // 13 + 12
    CHECK(k.give(q, true, 36.0) == std::vector<std::size_t>{3, 0, 2});    // + 11, nearer 36 than 25
    CHECK(k.give(q, true, 100.0) == std::vector<std::size_t>{3, 0, 2, 1}); // the costliest last
    CHECK(k.give(q, false, 100.0) == std::vector<std::size_t>{3, 0, 2});  // nothing running: one stays
    CHECK(k.give(q, true, 19.0) == std::vector<std::size_t>{3});          // 13 + 12 is further from 19 than 13
    CHECK(k.give(q, true, 6.0).empty()); // 13 > 2 x 6: the receiver would finish after the giver (rule 4.5)
    CHECK(k.give(q, true, 6.5) == std::vector<std::size_t>{3});
    CHECK(k.give(std::vector<queued_task>{{5, 0, 5}}, false, 100.0).empty());
}

TEST_CASE("placement: april sends along a binomial tree and never balances") {
    april_placement a;
    std::vector<placed_worker> eight;
    for (std::size_t i = 0; i < 8; ++i) eight.push_back({i, 1.0});
    auto lists = a.split(eight, 2);
    REQUIRE(lists.size() == 2);
    CHECK(lists[0].size() == 4);
    CHECK(lists[1].front().index == 4); // B_3: the root's largest subtree starts at 4
    lists = a.split(std::span(eight).first(5), 2);
    CHECK(lists[0].size() == 4);
    CHECK(lists[1].size() == 1);
    lists = a.split(eight, 3); // degree 3: two subtrees sent, 4.. and 2..
    REQUIRE(lists.size() == 3);
    CHECK(lists[0].size() == 2);
    CHECK(lists[1].front().index == 4);
    CHECK(lists[2].front().index == 2);
    CHECK(!a.divides(0, 8));
    CHECK(!a.balances());
    CHECK(a.give(std::vector<queued_task>{{1, 0}, {2, 1}}, true).empty());
}

TEST_CASE("placement: steal runs the newest and gives the oldest (one, or half)") {
    steal_placement one, half(true);
    std::vector<queued_task> q{{0, 5}, {0, 2}, {0, 9}, {0, 7}};
    CHECK(one.next(q, false) == 2);
    CHECK(one.give(q, true) == std::vector<std::size_t>{1});
    CHECK(half.give(q, true) == std::vector<std::size_t>{1, 0});
    CHECK(one.give(std::vector<queued_task>{{0, 1}}, false).empty());
    CHECK(one.when_idle() == idle_action::steal);
    CHECK(parse_placement("steal-half").spec() == "steal-half");
    CHECK(parse_placement("steal-half") == any_placement(half));
    CHECK_THROWS_AS(parse_placement("nope"), spec_error);
}

TEST_CASE("placement: steal sized for a slower thief: the oldest tasks it would finish in time") {
    steal_placement one, half(true);
    // oldest first: order 1 (weight 8), 2 (4), 3 (2), 4 (1)
    std::vector<queued_task> const q{{0, 3, 2.0}, {0, 1, 8.0}, {0, 4, 1.0}, {0, 2, 4.0}};
    CHECK(one.give(q, true, 5.0) == std::vector<std::size_t>{1}); // 8 <= 2 x 5: the oldest
    CHECK(one.give(q, true, 3.0) == std::vector<std::size_t>{3}); // 8 > 2 x 3: the next oldest, 4
    CHECK(one.give(q, true, 0.4).empty());                        // every task over 2 x 0.4: refused
    CHECK(half.give(q, true, 6.0) == std::vector<std::size_t>{1});    // 8, and 8 + 4 is further from 6
    CHECK(half.give(q, true, 12.0) == std::vector<std::size_t>{1, 3}); // 8 + 4
    CHECK(half.give(q, true, 3.0) == std::vector<std::size_t>{3});    // 8 skipped; 4, and 4 + 2 is further
    CHECK(half.give(q, false, 100.0) == std::vector<std::size_t>{1, 3, 0}); // nothing running: one stays
    CHECK(one.give(std::vector<queued_task>{{0, 1, 1.0}}, false, 10.0).empty());
    CHECK(one.give(std::vector<queued_task>{}, true, 10.0).empty());
}
