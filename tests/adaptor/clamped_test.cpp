// The clamped adaptor: Ciorba's chunk thresholds (Table 5.5) over any scheme.
#include <loopsched/adaptor/clamped.hpp>
#include <loopsched/adaptor/synchronized.hpp>
#include <loopsched/adaptor/weighted.hpp>
#include <loopsched/policies.hpp>
#include <loopsched/schedule.hpp>
#include <loopsched/spec.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace loopsched;

namespace {
std::vector<index_t> sizes(std::vector<assignment> const& s) {
    std::vector<index_t> out;
    for (auto const& a : s) out.push_back(a.range.size);
    return out;
}
} // namespace

TEST_CASE("clamped: every chunk within the thresholds, the last clipped, every iteration once") {
    loop_info const info{10'000, 4, {}};
    for (std::string const spec : {"tss", "gss", "fss", "css:chunk=3", "af", "w-fss"}) {
        CAPTURE(spec);
        auto const plain = sizes(round_robin_schedule(parse_policy(spec), info));
        auto const schedule = round_robin_schedule(clamped(parse_policy(spec), 10, 500), info);
        auto const bounded = sizes(schedule);
        index_t total = 0, next = 0;
        for (std::size_t i = 0; i < schedule.size(); ++i) {
            CHECK(schedule[i].range.first == next); // in order, no gap, no overlap
            next += bounded[i];
            total += bounded[i];
            CHECK(bounded[i] <= 500);
            if (i + 1 < schedule.size()) CHECK(bounded[i] >= 10);
            CHECK(bounded[i] >= 1);
        }
        CHECK(total == info.iterations);
        // The thresholds change the others' schedules (they hand out chunks over 500 or under 10);
        // AF without timings stays inside them here.
        if (spec != "af") CHECK(bounded != plain);
        if (spec == "af") CHECK(bounded == plain);
    }
    // Within the thresholds already: the scheme's own schedule, chunk for chunk.
    CHECK(round_robin_schedule(clamped(css(50), 10, 500), info) == round_robin_schedule(css(50), info));
    // TSS(10,000 over 4): F = 1,250 clamps to 500, and the scheme counts what was handed out.
    auto const tss_bounded = sizes(round_robin_schedule(clamped(tss{}, 10, 500), info));
    CHECK(tss_bounded.front() == 500);
    CHECK(tss_bounded.size() > sizes(round_robin_schedule(tss{}, info)).size());
}

TEST_CASE("clamped: spec strings, composition with W and S, and bad thresholds named") {
    CHECK(clamped(tss{}, 10, 500).spec() == "tss:lower=10,upper=500");
    CHECK(clamped(gss(80), 10, 1000).spec() == "gss:min=80,lower=10,upper=1000");
    any_policy const parsed = parse_policy("s-tss:lower=10,upper=500,h=3");
    CHECK(parsed.spec() == "s-tss:lower=10,upper=500,h=3");
    CHECK(parsed.synchronization() == sync_interval::fixed(3));
    CHECK(parse_policy(parsed.spec()).spec() == parsed.spec());
    CHECK(parse_policy("w-fss:upper=750").spec().starts_with("w-fss:lower=1,upper=750"));
    // The thresholds apply after W: a slow worker's weighted chunk still reaches the lower one.
    loop_info const uneven{10'000, 2, {worker_status{1.0, 1.0}, worker_status{4.0, 1.0}}};
    for (auto const& a : round_robin_schedule(parse_policy("w-gss:lower=100"), uneven))
        if (a.range.end() < uneven.iterations) CHECK(a.range.size >= 100);
    // Same bounds through the type and through the spec.
    loop_info const info{5'000, 3, {}};
    CHECK(round_robin_schedule(parse_policy("tss:lower=10,upper=500"), info) ==
          round_robin_schedule(clamped(tss{}, 10, 500), info));

    CHECK_THROWS_WITH(clamped(tss{}, 0, 500), doctest::Contains("clamped lower = 0"));
    CHECK_THROWS_WITH(clamped(tss{}, 20, 10), doctest::Contains("clamped upper = 10"));
    CHECK_THROWS_WITH(parse_policy("tss:lower=0"), doctest::Contains("clamped lower = 0"));
    CHECK_THROWS_WITH(parse_policy("tss:lower=ten"), doctest::Contains("lower"));
    CHECK_THROWS_AS(parse_policy("tss:lower=10,lower=20"), spec_error);
    CHECK_THROWS_WITH(parse_policy("tss:upper=5,lower=10"), doctest::Contains("clamped upper = 5"));
}

TEST_CASE("clamped: thresholds=scheme puts them inside W, and each order reads back as itself") {
    // Ciorba's Table 5.10 cluster: twins (V 1) and loaded kids (V 0.8, q 2), CSS's chunk 1,875, upper 1,000.
    loop_info const cluster{15'000, 4,
                            {worker_status{1.0, 1.0}, worker_status{0.8, 2.0}, worker_status{1.0, 1.0},
                             worker_status{0.8, 2.0}}};
    auto const outside = sizes(round_robin_schedule(parse_policy("w-css:chunk=1875,upper=1000"), cluster));
    auto const inside =
            sizes(round_robin_schedule(parse_policy("w-css:chunk=1875,upper=1000,thresholds=scheme"), cluster));
    // W's chunk clamped: a twin 1,875 -> 1,000, a kid 750; the clamped chunk weighted: 1,000 and 400.
    CHECK(std::vector<index_t>(outside.begin(), outside.begin() + 4) == std::vector<index_t>{1000, 750, 1000, 750});
    CHECK(std::vector<index_t>(inside.begin(), inside.begin() + 4) == std::vector<index_t>{1000, 400, 1000, 400});
    CHECK(round_robin_schedule(parse_policy("w-css:chunk=1875,upper=1000,thresholds=scheme"), cluster) ==
          round_robin_schedule(weighted(clamped(css(1875), 1, 1000)), cluster));
    CHECK(parse_policy("w-css:chunk=1875,upper=1000,thresholds=granted").spec() ==
          parse_policy("w-css:chunk=1875,upper=1000").spec());

    // Each composition prints a spec that parses back to the same schedule and spec.
    any_policy const compositions[] = {
            any_policy(weighted(clamped(css(1875), 10, 1000))),
            any_policy(clamped(weighted(css(1875)), 10, 1000)),
            any_policy(synchronized(weighted(clamped(tss{}, 10, 500)), sync_interval::fixed(3))),
            parse_policy("sw-gss:min=80,lower=10,upper=1000,thresholds=scheme,h=4"),
    };
    for (auto const& p : compositions) {
        CAPTURE(p.spec());
        any_policy const again = parse_policy(p.spec());
        CHECK(again.spec() == p.spec());
        CHECK(round_robin_schedule(again, cluster) == round_robin_schedule(p, cluster));
    }
    CHECK(compositions[0].spec() == "w-css:chunk=1875,lower=10,upper=1000,thresholds=scheme");
    CHECK(compositions[1].spec() == "w-css:chunk=1875,lower=10,upper=1000");

    CHECK_THROWS_WITH(parse_policy("css:upper=10,thresholds=scheme"), doctest::Contains("needs W"));
    CHECK_THROWS_WITH(parse_policy("w-css:thresholds=scheme"), doctest::Contains("needs lower= or upper="));
    CHECK_THROWS_WITH(parse_policy("w-css:upper=10,thresholds=inside"), doctest::Contains("'thresholds' expects one of: granted, scheme, got 'inside'"));
    CHECK_THROWS_AS(parse_policy("w-css:upper=10,thresholds=scheme,thresholds=scheme"), spec_error);
}
