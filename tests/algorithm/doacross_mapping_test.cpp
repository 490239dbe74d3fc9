// parallel_for_doacross under the static mappings of Ciorba (SDS and the
// chain mappings) on the in-process transport: the four test problems
// bit-identical to their sequential loops on 1-4 ranks, the tiling's cover and
// placement orders, and errors.
#include "../../examples/doacross_kernels.hpp"

#include <loopsched/algorithm/parallel_for_doacross.hpp>
#include <loopsched/dependence/uniform.hpp>
#include <loopsched/mapping/doacross_mapping.hpp>
#include <loopsched/options.hpp>
#include <loopsched/placement_spec.hpp>
#include <loopsched/space/box.hpp>
#include <loopsched/space/window.hpp>
#include <loopsched/transport/in_process.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using namespace loopsched;

namespace {

template <class K>
void check_mapped(int ranks, box<K::rank> const& space, doacross_mapping const& mapping, doacross_options options = {}) {
    auto const expected = kernels::raw_bytes(kernels::sequential<K>(space));
    std::vector<char> got;
    index_t iterations = 0;
    in_process::run(ranks, [&](in_process::endpoint& t) {
        auto r = kernels::run<K>(t, space, mapping, options);
        if (t.rank() == options.root) {
            got = kernels::raw_bytes(r.value);
            iterations = r.statistics.iterations();
        }
    });
    INFO(K::name, " on ", ranks, " ranks with ", mapping.name());
    CHECK(got == expected);
    if (ranks > 1) CHECK(iterations == space.size()); // every point once
}

} // namespace

TEST_CASE("doacross mapping: the four problems equal their sequential loops under SDS, cyclic, CPS and ACS") {
    for (char const* name : {"sds", "cyclic", "cps", "acs"})
        for (int ranks : {1, 2, 3, 4}) {
            auto const m = parse_doacross_mapping(name);
            check_mapped<kernels::heat>(ranks, box<2>::from_extents({23, 37}), m);
            check_mapped<kernels::floyd_steinberg>(ranks, box<2>::from_extents({29, 31}), m);
            check_mapped<kernels::hydro>(ranks, box<3>::from_extents({17, 5, 26}), m);
            check_mapped<kernels::artificial>(ranks, box<2>::from_extents({40, 45}), m);
        }
}

TEST_CASE("doacross mapping: given tiles, one-point tiles, an offset box, a dedicated master, no gather") {
    check_mapped<kernels::heat>(3, box<2>::from_extents({23, 37}), parse_doacross_mapping("sds", {4, 9}));
    check_mapped<kernels::floyd_steinberg>(4, box<2>::from_extents({12, 13}), parse_doacross_mapping("cps", {1, 1}));
    check_mapped<kernels::hydro>(3, box<3>::from_extents({9, 5, 11}), parse_doacross_mapping("acs", {2, 1, 4}));
    doacross_options dedicated;
    dedicated.master_computes = false;
    check_mapped<kernels::heat>(3, box<2>::from_extents({20, 20}), parse_doacross_mapping("sds"), dedicated);
    doacross_options other_root;
    other_root.root = 2;
    check_mapped<kernels::floyd_steinberg>(3, box<2>::from_extents({20, 21}), parse_doacross_mapping("cyclic"),
                                           other_root);
    // Without gather every rank still runs its tiles once, and the root holds no fields.
    std::atomic<index_t> points{0};
    in_process::run(3, [&](in_process::endpoint& t) {
        auto const r = parallel_for_doacross(
                t, box<2>::from_extents({15, 16}), uniform<vec{1, 0}, vec{0, 1}>{}, parse_doacross_mapping("sds"),
                make_field<int>([](auto const&) { return 0; }),
                [&](box<2> const& part, window<int, 2>&) { points += part.size(); });
        CHECK(r.array().values().empty());
    });
    CHECK(points == 15 * 16);
}

TEST_CASE("doacross mapping: a box away from the origin, with a vector pointing back, equals its sequential loop") {
    box<2> const space({3, 5}, {30, 41});
    auto body = [space](box<2> const& part, window<std::uint32_t, 2>& a) {
        auto at = [&](index_t i, index_t j) { return space.contains({i, j}) ? a(i, j) : std::uint32_t{7}; };
        for (index_t i = part.lower()[0]; i < part.upper()[0]; ++i)
            for (index_t j = part.lower()[1]; j < part.upper()[1]; ++j)
                a(i, j) = 3u * at(i - 1, j) + at(i, j - 1) + 5u * at(i - 1, j + 1) + static_cast<std::uint32_t>(i * j);
    };
    auto const initial = [](box<2>::point const& p) { return static_cast<std::uint32_t>(p[0] + 2 * p[1]); };
    window<std::uint32_t, 2> expected(space);
    expected.fill(space, initial);
    body(space, expected);
    for (char const* name : {"sds", "cps", "acs", "cyclic"})
        for (int ranks : {2, 3}) {
            std::vector<std::uint32_t> got;
            in_process::run(ranks, [&](in_process::endpoint& t) {
                auto r = parallel_for_doacross(t, space, uniform<vec{1, 0}, vec{0, 1}, vec{1, -1}>{},
                                               parse_doacross_mapping(name, {2, 3}), make_field<std::uint32_t>(initial),
                                               body, gather<>{});
                if (t.rank() == 0) got.assign(r.array().values().begin(), r.array().values().end());
            });
            INFO(name, " on ", ranks, " ranks");
            CHECK(got == std::vector<std::uint32_t>(expected.values().begin(), expected.values().end()));
        }
}

TEST_CASE("tiling: tiles cover the space once, skewed where a vector points back; placements respect dependences") {
    std::vector<distance_vector<2>> const fs{{0, 1}, {1, -1}, {1, 0}, {1, 1}};
    tiling<2> const t(box<2>::from_extents({10, 12}), fs, {3, 4});
    CHECK(t.skew() == std::array<index_t, 2>{0, 1});
    // Every tile dependence is non-negative, and every point lies in exactly one tile's parts.
    for (auto const& d : t.dependences()) CHECK((d[0] >= 0 && d[1] >= 0 && (d[0] > 0 || d[1] > 0)));
    std::set<std::array<index_t, 2>> seen;
    for (std::size_t tile = 0; tile < t.size(); ++tile)
        t.for_each_part(tile, [&](box<2> const& part) {
            for (index_t i = part.lower()[0]; i < part.upper()[0]; ++i)
                for (index_t j = part.lower()[1]; j < part.upper()[1]; ++j) {
                    CHECK(seen.insert({i, j}).second);
                    CHECK(t.tile_of({i, j}) == tile);
                }
        });
    CHECK(seen.size() == 120);
    // Each point's sources lie in its own tile or in one of its tile's sources.
    for (index_t i = 0; i < 10; ++i)
        for (index_t j = 0; j < 12; ++j)
            for (auto const& d : fs) {
                std::array<index_t, 2> const src{i - d[0], j - d[1]};
                if (!t.space().contains(src)) continue;
                auto const here = t.tile_of({i, j}), there = t.tile_of(src);
                auto const sources = t.sources(here);
                CHECK((here == there || std::ranges::find(sources, there) != sources.end()));
            }
    // Every worker's order runs a tile after its sources on the same worker.
    for (char const* name : {"sds", "cyclic", "cps", "acs"})
        for (std::size_t workers : {1u, 2u, 3u, 5u}) {
            auto const p = place_tiles(t, parse_doacross_mapping(name), workers);
            std::size_t placed = 0;
            for (std::size_t w = 0; w < workers; ++w) {
                std::set<std::size_t> done;
                for (std::size_t tile : p.order[w]) {
                    CHECK(p.owner[tile] == w);
                    for (std::size_t s : t.sources(tile))
                        if (p.owner[s] == w) CHECK(done.contains(s));
                    done.insert(tile);
                    ++placed;
                }
            }
            CHECK(placed == t.size());
        }
}

TEST_CASE("doacross mapping: bad input names the parameter, on every rank") {
    CHECK_THROWS_WITH_AS(parse_doacross_mapping("wavefront"), doctest::Contains("mapping"), error);
    auto run_bad = [](doacross_mapping const& m, doacross_options o = {}) {
        in_process::run(2, [&](in_process::endpoint& t) {
            (void)kernels::run<kernels::heat>(t, box<2>::from_extents({8, 8}), m, o);
        });
    };
    CHECK_THROWS_WITH_AS(run_bad(parse_doacross_mapping("sds", {0, -2})), doctest::Contains("mapping tile[1]"), error);
    CHECK_THROWS_WITH_AS(run_bad(parse_doacross_mapping("sds", {2})), doctest::Contains("mapping tile"), error);
    doacross_options deterministic;
    deterministic.deterministic = true;
    CHECK_THROWS_WITH_AS(run_bad(parse_doacross_mapping("cps"), deterministic),
                         doctest::Contains("options.deterministic"), error);
    std::vector<distance_vector<3>> const back{{0, 1, -1}};
    CHECK_THROWS_WITH_AS(tiling<3>(box<3>::from_extents({4, 4, 4}), back, {2, 2, 2}),
                         doctest::Contains("dependence vector = (0,1,-1)"), error);
    // A body that throws fails every rank with its message.
    CHECK_THROWS_WITH_AS(in_process::run(3,
                                         [&](in_process::endpoint& t) {
                                             (void)parallel_for_doacross(
                                                     t, box<2>::from_extents({12, 12}), uniform<vec{1, 0}, vec{0, 1}>{},
                                                     parse_doacross_mapping("sds"),
                                                     make_field<int>([](auto const&) { return 0; }),
                                                     [](box<2> const& part, window<int, 2>&) {
                                                         if (part.lower()[0] > 6) throw std::runtime_error("tile body");
                                                     },
                                                     gather<>{});
                                         }),
                         doctest::Contains("tile body"), std::exception);
}
