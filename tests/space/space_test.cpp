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
#include <range/v3/view/filter.hpp>
#include <range/v3/view/reverse.hpp>

#include <algorithm>
#include <iterator>
#include <ranges>
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

// indices() is a random-access, sized view for the standard library and for range-v3.
static_assert(std::ranges::random_access_range<iota_range> && std::ranges::sized_range<iota_range>);
static_assert(std::ranges::view<iota_range> && ranges::view_<iota_range>);
static_assert(std::random_access_iterator<iota_range::iterator>);

TEST_CASE("indices: the chunk's and the box's, through both libraries' algorithms and views") {
    auto const r = make_range(3, 7).indices();
    CHECK(r.size() == 4);
    CHECK(r.front() == 3);
    CHECK(r.back() == 6);
    CHECK(r[2] == 5);
    CHECK(r.end() - r.begin() == 4);
    CHECK(*std::ranges::lower_bound(r, 5) == 5);
    std::vector<index_t> reversed(r.size());
    std::ranges::reverse_copy(r, reversed.begin());
    CHECK(reversed == std::vector<index_t>{6, 5, 4, 3});
    // temporaries piped into range-v3's views, as with its own iota
    CHECK((make_range(3, 7).indices() | ranges::views::filter([](index_t i) { return i % 2 == 0; }) |
           ranges::to<std::vector>()) == std::vector<index_t>{4, 6});
    CHECK((chunk{10, 3}.indices() | ranges::views::reverse | ranges::to<std::vector>()) ==
          std::vector<index_t>{12, 11, 10});
    CHECK(make_range(5, 5).indices().empty());
    auto const b = box<2>::from_extents({2, 3});
    CHECK(std::ranges::distance(b.indices(1)) == 3);
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
