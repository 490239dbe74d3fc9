// The S adaptor: spec strings, intervals, DMPS(A).
#include <loopsched/adaptor/synchronized.hpp>
#include <loopsched/policies.hpp>
#include <loopsched/schedule.hpp>
#include <loopsched/spec.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace loopsched;

TEST_CASE("S adaptor: spec strings, intervals and DMPS") {
    CHECK(parse_policy("s-tss").synchronization() == sync_interval{});
    CHECK(parse_policy("tss").synchronization() == std::nullopt);
    CHECK(parse_policy("w-tss").synchronization() == std::nullopt);
    CHECK(parse_policy("sw-gss:min=80,h=auto").synchronization() == sync_interval::automatic());
    CHECK(parse_policy("s-fss:h=40").synchronization() == sync_interval::fixed(40));
    CHECK(parse_policy("s-css:chunk=5,h=4m").synchronization() == sync_interval::points_per_worker(4));
    CHECK(parse_policy("dmps-dtss:h=100").synchronization() == sync_interval::fixed(100));
    CHECK(parse_policy("sw-gss:min=80").spec() == "s-w-gss:min=80");
    CHECK(synchronized(tss{}, sync_interval::fixed(50)).spec() == "s-tss:h=50");
    CHECK(synchronized(css(7), sync_interval::automatic()).spec() == "s-css:chunk=7,h=auto");
    CHECK(dmps(dtss{}, 30).interval() == sync_interval::fixed(30));
    CHECK_THROWS_AS(parse_policy("dmps-gss:h=5"), spec_error);
    CHECK_THROWS_AS(parse_policy("dmps-tss"), spec_error);
    CHECK_THROWS_AS(parse_policy("s-tss:h=0"), spec_error);
    CHECK_THROWS_AS(parse_policy("s-tss:h=ten"), spec_error);
    CHECK_THROWS_AS(parse_policy("tss:h=10"), spec_error); // h belongs to S
    CHECK_THROWS_AS(sync_interval::fixed(0), invalid_parameter);
    // M = 3m points by default: h = ceil(U_s / 3m).
    CHECK(sync_interval{}.resolve(1000, 4) == 84);
    CHECK(sync_interval::points_per_worker(5).resolve(1000, 4) == 50);
    CHECK(sync_interval::fixed(7).resolve(1000, 4) == 7);
    // S hands out exactly the scheme's chunks.
    loop_info const info{1000, 4, {}};
    CHECK(round_robin_schedule(synchronized(gss(80)), info) == round_robin_schedule(gss(80), info));
}
