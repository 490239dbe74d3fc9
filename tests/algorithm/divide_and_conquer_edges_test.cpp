// divide_and_conquer on the in-process transport at its edges: serialized
// problems and results, user costs, many nested waits, trees too deep, throwing
// operations, bad options, traces and back-to-back runs. A TU of its own, so
// that neither half of the tests compiles for over 40 s.
#include "../../examples/dnc_problems.hpp"

#include <loopsched/algorithm/divide_and_conquer.hpp>
#include <loopsched/runtime/core/trace.hpp>
#include <loopsched/transport/in_process.hpp>

#include "../support/dnc_runs.hpp"

#include <doctest/doctest.h>

#include <array>
#include <atomic>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace loopsched;
using namespace loopsched::examples;
using namespace loopsched::testing;

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

