// FSC against hand-computed chunks of Kruskal and Weiss's formula, its clamps,
// its spec strings and its errors.
#include "sequences.hpp"

#include <loopsched/policies.hpp>
#include <loopsched/schedule.hpp>
#include <loopsched/spec.hpp>

#include <doctest/doctest.h>

#include <cmath>

using namespace loopsched;
using test::round_robin_sizes;
using chunk_list = std::vector<index_t>;

TEST_CASE("fsc: the chunk of Kruskal and Weiss's formula, computed by hand") {
    // N = 1000, P = 4, h = 1 ms, sigma = 10 ms:
    // sqrt(2) 1000 0.001 / (0.01 4 sqrt(ln 4)) = 1.414214 / 0.047096 = 30.0280,
    // 30.0280^(2/3) = 9.661, so every chunk is 10 and the last one the rest.
    CHECK(fsc(0.001, 0.01).optimal_chunk(1000, 4) == doctest::Approx(9.66091).epsilon(1e-5));
    CHECK(round_robin_sizes(fsc(0.001, 0.01), 1000, 4) == chunk_list(100, 10));
    CHECK(round_robin_sizes(parse_policy("fsc:h=0.001,sigma=0.01"), 1003, 4).back() == 3);
    // N = 100000, P = 8, h = 2 us, sigma = 100 us: 39.17 -> 40.
    auto const many = round_robin_sizes(parse_policy("fsc:h=2e-6,sigma=1e-4"), 100000, 8);
    CHECK(many.front() == 40);
    CHECK(many.size() == 2500);
}

TEST_CASE("fsc: no finite optimum, or more than a share, gives one chunk per worker") {
    CHECK(round_robin_sizes(fsc(0.001, 0.0), 1000, 4) ==
          chunk_list{250, 250, 250, 250});                                      // sigma = 0: no imbalance to fight
    CHECK(round_robin_sizes(fsc(0.001, 0.01), 1000, 1) == chunk_list{1000});    // P = 1: ln P = 0
    CHECK(round_robin_sizes(fsc(1.0, 0.001), 10, 4) == chunk_list{3, 3, 3, 1}); // 208 > ceil(10/4)
    CHECK(round_robin_sizes(fsc(1e-12, 1.0), 1000, 4) == chunk_list(1000, 1));  // tiny overhead: at least 1
}

TEST_CASE("fsc: spec strings read back, under every adaptor") {
    CHECK(parse_policy("fsc:h=0.001,sigma=0.01").spec() == "fsc:overhead=0.001,sigma=0.01");
    CHECK(parse_policy("fsc:overhead=0.001,sigma=0.01") == parse_policy("fsc:h=0.001,sigma=0.01"));
    for (std::string spec : {"fsc:overhead=0.001,sigma=0.01", "w-fsc:overhead=0.001,sigma=0.01",
                             "s-fsc:overhead=0.001,sigma=0.01,h=7", "sw-fsc:overhead=0.5,h=auto"}) {
        CAPTURE(spec);
        auto const p = parse_policy(spec);
        CHECK(parse_policy(p.spec()) == p);
    }
    // Under S, h is the interval: FSC keeps its overhead.
    CHECK(round_robin_sizes(parse_policy("s-fsc:overhead=0.001,sigma=0.01,h=7"), 1000, 4) == chunk_list(100, 10));
}

TEST_CASE("fsc: bad parameters are named") {
    CHECK_THROWS_WITH_AS(parse_policy("fsc:h=0,sigma=1"), doctest::Contains("fsc overhead h"), invalid_parameter);
    CHECK_THROWS_WITH_AS(parse_policy("fsc:h=1,sigma=-1"), doctest::Contains("fsc sigma"), invalid_parameter);
    CHECK_THROWS_WITH_AS(parse_policy("fsc:h=1,overhead=1"), doctest::Contains("given twice"), invalid_parameter);
    CHECK_THROWS_AS(parse_policy("fsc:mu=1"), spec_error);
}
