// The mappings as placement: who runs each unit, given the unit and the worker
// that asks; the concept's requirements; choosing a mapping by name.
#include <loopsched/mapping/mapping.hpp>
#include <loopsched/placement_spec.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <limits>
#include <vector>

using namespace loopsched;

namespace {
template <Mapping M>
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

TEST_CASE("mapping: any_mapping chooses by name and rejects an unknown one") {
    CHECK(parse_mapping("block").name() == "block");
    CHECK(owners(parse_mapping("cyclic"), 5, 2) == std::vector<std::size_t>{0, 1, 0, 1, 0});
    CHECK_FALSE(parse_mapping("dynamic").ahead_of_time());
    CHECK_THROWS_WITH_AS(parse_mapping("round"), doctest::Contains("mapping = round"), invalid_parameter);
}

TEST_CASE("mapping: the concept names what a type misses") {
    static_assert(Mapping<dynamic_mapping> && Mapping<static_block_mapping> && Mapping<static_cyclic_mapping>);
    static_assert(Mapping<any_mapping>);
    static_assert(knows_whether_ahead_of_time<no_start> && !starts_a_mapping_state<no_start> && !Mapping<no_start>);
    static_assert(!Mapping<int>);
}
