// The mappings as placement: who runs each unit, given the unit and the worker
// that asks; the concept's requirements; choosing a mapping by name.
#include <loopsched/adaptor/clamped.hpp>
#include <loopsched/adaptor/weighted.hpp>
#include <loopsched/any_policy.hpp>
#include <loopsched/dependence/tiling.hpp>
#include <loopsched/mapping/any_placement.hpp>
#include <loopsched/mapping/estimates.hpp>
#include <loopsched/mapping/mapping.hpp>
#include <loopsched/mapping/placement.hpp>
#include <loopsched/placement_spec.hpp>
#include <loopsched/policy/css.hpp>
#include <loopsched/policy/gss.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <limits>
#include <vector>

using namespace loopsched;

namespace {
template <LoopMapping M>
std::vector<std::size_t> owners(M const& m, std::size_t units, std::size_t workers, std::size_t asking = 0) {
    auto s = m.start(placement_info{workers, {}, units});
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < units; ++i) out.push_back(s.place(work_unit{i, 1}, request{asking, {}, {}}));
    return out;
}
struct no_start {
    bool ahead_of_time() const { return false; }
};
} // namespace

TEST_CASE("mapping: dynamic places each unit on the worker that asks, whatever its status") {
    auto s = dynamic_mapping{}.start(placement_info{4});
    CHECK(s.place(work_unit{0, 10}, request{2, {3.0, 1.0}, {}}) == 2);
    CHECK(s.place(work_unit{7, 1, 0.5}, request{0, {}, {}}) == 0);
    CHECK_FALSE(dynamic_mapping{}.ahead_of_time());
}

TEST_CASE("mapping: static block and cyclic fix every owner ahead of time") {
    CHECK(static_block_mapping{}.ahead_of_time());
    CHECK(static_cyclic_mapping{}.ahead_of_time());
    CHECK(owners(static_block_mapping{}, 8, 4, 3) == std::vector<std::size_t>{0, 0, 1, 1, 2, 2, 3, 3});
    CHECK(owners(static_cyclic_mapping{}, 8, 4, 3) == std::vector<std::size_t>{0, 1, 2, 3, 0, 1, 2, 3});
    CHECK(owners(static_block_mapping{}, 3, 4) == std::vector<std::size_t>{0, 1, 2}); // fewer units than workers
    CHECK(owners(static_block_mapping{}, 7, 3) == std::vector<std::size_t>{0, 0, 0, 1, 1, 2, 2});
    // Unit counts whose product with the workers would wrap still place in range.
    auto s = static_block_mapping{}.start(placement_info{8, {}, std::numeric_limits<std::size_t>::max()});
    CHECK(s.place(work_unit{std::numeric_limits<std::size_t>::max() - 1, 1}, request{}) == 7);
    CHECK(s.place(work_unit{0, 1}, request{}) == 0);
}

namespace {
/// A mapping of the user's: every unit to the last worker.
struct last_worker_mapping {
    struct state {
        std::size_t workers = 1;
        std::size_t place(work_unit const&, request const&) const { return workers - 1; }
    };
    bool ahead_of_time() const { return true; }
    state start(placement_info const& info) const { return {info.workers}; }
    friend bool operator==(last_worker_mapping, last_worker_mapping) = default;
};
} // namespace

TEST_CASE("mapping: any_mapping holds the user's mapping as it is") {
    any_mapping const m = last_worker_mapping{};
    CHECK(m.ahead_of_time());
    CHECK(m.name() == "custom");
    CHECK(m.target<last_worker_mapping>() != nullptr);
    CHECK(m.target<dynamic_mapping>() == nullptr);
    CHECK(owners(m, 4, 3) == std::vector<std::size_t>{2, 2, 2, 2});
    CHECK(m == any_mapping(last_worker_mapping{}));
    CHECK_FALSE(m == any_mapping(static_cyclic_mapping{}));
    any_placement const p = last_worker_mapping{}; // held as a loop's mapping
    REQUIRE(p.mapping() != nullptr);
    CHECK(p.mapping()->target<last_worker_mapping>() != nullptr);
}

TEST_CASE("mapping: any_mapping chooses by name and rejects an unknown one") {
    CHECK(parse_mapping("block").name() == "block");
    CHECK(owners(parse_mapping("cyclic"), 5, 2) == std::vector<std::size_t>{0, 1, 0, 1, 0});
    CHECK_FALSE(parse_mapping("dynamic").ahead_of_time());
    CHECK_THROWS_WITH_AS(parse_mapping("round"), doctest::Contains("mapping = round"), invalid_parameter);
}

TEST_CASE("mapping: the concepts name what a type misses") {
    static_assert(LoopMapping<dynamic_mapping> && LoopMapping<static_block_mapping> &&
                  LoopMapping<static_cyclic_mapping>);
    static_assert(LoopMapping<any_mapping>);
    static_assert(knows_whether_ahead_of_time<no_start> && !starts_a_loop_mapping_state<no_start> &&
                  !LoopMapping<no_start> && !Mapping<no_start>);
    static_assert(!Mapping<int> && !LoopMapping<int>);
}

TEST_CASE("mapping: one family, each engine's refinement of the same base") {
    // Every placement of the library is a Mapping: a value whose start(info) gives a state.
    static_assert(Mapping<dynamic_mapping> && Mapping<doacross_mapping> && Mapping<kazouris_placement> &&
                  Mapping<steal_placement> && Mapping<dlpt_placement> && Mapping<any_estimate_placement>);
    static_assert(TileMapping<doacross_mapping> && !LoopMapping<doacross_mapping>);
    static_assert(TreePlacement<kazouris_placement> && TreePlacement<april_placement> &&
                  TreePlacement<steal_placement> && !TreePlacement<dlpt_placement>);
    static_assert(EstimatePlacement<dlpt_placement> && EstimatePlacement<any_estimate_placement> &&
                  !EstimatePlacement<kazouris_placement>);
    static_assert(!TreePlacement<dynamic_mapping> && !TileMapping<dynamic_mapping>);
    static_assert(DividingPlacement<steal_placement>); // the former name
    // A tile mapping's state places tiles as the engine does: ACS by the powers in its placement_info.
    std::vector<distance_vector<2>> const deps{{1, 0}, {0, 1}};
    tiling<2> const tiles(box<2>::from_extents({8, 8}), deps, {2, 2});
    auto const acs = parse_doacross_mapping("acs");
    auto const even = acs.start(placement_info{2}).place(tiles);
    auto const uneven = acs.start(placement_info{2, {{3.0, 1.0}, {1.0, 1.0}}}).place(tiles);
    CHECK(even.owner == place_tiles(tiles, acs, 2).owner);
    CHECK(uneven.owner == place_tiles(tiles, acs, 2, std::vector<double>{3.0, 1.0}).owner);
    CHECK(even.owner != uneven.owner);
}

namespace {
/// A D_LPT-like state that declares its rules, and one with no hooks at all.
struct declares_rules {
    static constexpr hook_set hooks{.dlpt_rules = true};
    [[nodiscard]] bool dlpt_rules() const { return true; }
};
struct no_hooks {};
/// A type declared from outside, as for a type the user cannot edit.
struct their_policy {};
} // namespace

template <>
inline constexpr hook_set loopsched::declared_hooks<their_policy>{.min_chunk = true};

TEST_CASE("hooks: a type declares its optional members in the type or from outside") {
    static_assert(declared_hooks<declares_rules>.dlpt_rules && !declared_hooks<declares_rules>.cost);
    static_assert(!declared_hooks<no_hooks>.dlpt_rules && !declared_hooks<int>.min_chunk);
    static_assert(declared_hooks<their_policy>.min_chunk && !declared_hooks<their_policy>.cost);
    CHECK(detail::uses_dlpt_rules(declares_rules{}));
    CHECK_FALSE(detail::uses_dlpt_rules(no_hooks{}));
    CHECK(detail::uses_dlpt_rules(dlpt_placement{}.start(placement_info{})));
    CHECK(detail::min_chunk_of(gss(80)) == 80);
    CHECK(detail::min_chunk_of(clamped(css(3), 5, 9)) == 5);
    CHECK(detail::min_chunk_of(any_policy(gss(7))) == 7);
    CHECK(detail::min_chunk_of(css(3)) == 1);
}
