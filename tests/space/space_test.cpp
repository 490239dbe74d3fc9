// Iteration spaces, dependence sets and mappings, and the concepts they model.
#include <loopsched/adaptor/weighted.hpp>
#include <loopsched/any_policy.hpp>
#include <loopsched/concepts.hpp>
#include <loopsched/dependence/uniform.hpp>
#include <loopsched/mapping/mapping.hpp>
#include <loopsched/policies.hpp>
#include <loopsched/schedule.hpp>
#include <loopsched/space/box.hpp>
#include <loopsched/space/window.hpp>

#include <doctest/doctest.h>

#include <range/v3/range/conversion.hpp>

#include <vector>

using namespace loopsched;

static_assert(IterationSpace<box<1>>);
static_assert(IterationSpace<box<3>>);
static_assert(!IterationSpace<int>);
static_assert(DependenceSet<dependence_set<2>>);
static_assert(DependenceSet<uniform<vec{1, 0}, vec{0, 1}>>);
static_assert(!DependenceSet<box<2>>);
static_assert(ChunkPolicy<gss>);
static_assert(ChunkPolicy<weighted<fss>>);
static_assert(ChunkPolicy<any_policy>);
static_assert(!ChunkPolicy<int>);
static_assert(Mapping<dynamic_mapping> && Mapping<static_block_mapping> && Mapping<static_cyclic_mapping>);

TEST_CASE("box: extents, size, slices") {
    auto b = box<3>({1, 0, 2}, {5, 3, 12});
    CHECK(b.extent(0) == 4);
    CHECK(b.extent(2) == 10);
    CHECK(b.size() == 4 * 3 * 10);
    auto s = b.slice(2, 3, 7);
    CHECK(s.lower() == box<3>::point{1, 0, 5});
    CHECK(s.upper() == box<3>::point{5, 3, 9});
    CHECK(s.size() == 4 * 3 * 4);
    CHECK(b.slice(0, 2, 2).empty());
    CHECK(b.contains({4, 2, 11}));
    CHECK_FALSE(b.contains({5, 2, 11}));
    CHECK_THROWS_AS((void)b.slice(1, 2, 4), invalid_parameter);
    CHECK_THROWS_AS((void)b.extent(3), invalid_parameter);
    CHECK((make_range(3, 7).indices() | ranges::to<std::vector>()) == std::vector<index_t>{3, 4, 5, 6});
}

TEST_CASE("box: consecutive slices tile the box exactly") {
    auto b = box<2>::from_extents({100, 7});
    auto schedule = round_robin_schedule(tss{}, loop_info{b.extent(0), 3, {}});
    index_t covered = 0;
    for (auto const& a : schedule) covered += b.slice(0, a.range.first, a.range.end()).size();
    CHECK(covered == b.size());
}

TEST_CASE("dependence sets: legality, scheduling dimensions, reach") {
    // Ciorba's artificial loop.
    dependence_set<2> art{{1, 8}, {8, 1}, {2, 5}, {3, 3}, {6, 2}};
    CHECK(is_legal(art));
    CHECK(scheduling_dimensions(art) == std::vector<std::size_t>{0, 1});
    CHECK(max_component(art, 0) == 8);
    CHECK(look_ahead(art, 1) == 0);
    // Hydro (l, j, k): (1,-1,0), (0,1,0), (1,0,-1), (0,0,1).
    dependence_set<3> hydro{{1, -1, 0}, {0, 1, 0}, {1, 0, -1}, {0, 0, 1}};
    CHECK(scheduling_dimensions(hydro) == std::vector<std::size_t>{0});
    CHECK(look_ahead(hydro, 1) == 1);
    CHECK(look_ahead(hydro, 2) == 1);
    constexpr uniform<vec{1, 0}, vec{0, 1}> heat;
    static_assert(is_legal(heat));
    static_assert(may_schedule_along(heat, 0) && may_schedule_along(heat, 1));
    CHECK(heat.vectors().size() == 2);
}

TEST_CASE("dependence sets: an illegal vector is named") {
    try {
        dependence_set<2> bad{{1, 0}, {0, -1}};
        FAIL("accepted an illegal vector");
    } catch (invalid_parameter const& e) {
        CHECK(e.value() == "(0,-1)");
    }
    CHECK_THROWS_AS((dependence_set<3>{{0, 0, 0}}), invalid_parameter);
}
