// DOACROSS layouts: the library's choice of (u_c, u_s) for the four test
// problems, an illegal choice named by its offending vector, and the pieces
// a (skewed) subchunk is run in.
#include "../../examples/doacross_kernels.hpp"

#include <loopsched/dependence/layout.hpp>
#include <loopsched/dependence/uniform.hpp>
#include <loopsched/error.hpp>
#include <loopsched/runtime/doacross/doacross_geometry.hpp>

#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

using namespace loopsched;

TEST_CASE("layout: the library's choice for the four test problems") {
    CHECK(choose_layout(kernels::heat::dependences{}, {60, 40}) == doacross_layout{1, 0, 1, 0});
    CHECK(choose_layout(kernels::heat::dependences{}, {40, 60}) == doacross_layout{0, 1, 1, 0});
    // (1,-1) forbids x as u_c; along u_s = x it is a look-ahead: skew 1.
    CHECK(choose_layout(kernels::floyd_steinberg::dependences{}, {50, 80}) == doacross_layout{0, 1, 1, 1});
    // Only l has no negative component; k is the largest extent left, (1,0,-1) skews it.
    CHECK(choose_layout(kernels::hydro::dependences{}, {30, 5, 100}) == doacross_layout{0, 2, 1, 1});
    CHECK(choose_layout(kernels::artificial::dependences{}, {64, 64}) == doacross_layout{1, 0, 8, 0});
    // skew = max ceil(-d_s / d_c): (2,-3) needs 2.
    CHECK(make_layout(dependence_set<2>{{2, -3}, {0, 1}}, 0, 1) == doacross_layout{0, 1, 2, 2});
}

TEST_CASE("layout: an illegal choice names the offending vector") {
    auto message = [](auto const& f) {
        try {
            f();
        } catch (invalid_parameter const& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    auto const fs = kernels::floyd_steinberg::dependences{};
    CHECK(message([&] { (void)make_layout(fs, 1, 0); }).find("(1,-1) has a negative component along u_c") !=
          std::string::npos);
    CHECK(message([&] {
              (void)make_layout(dependence_set<3>{{0, 1, -1}}, 0, 2);
          }).find("(0,1,-1) points back along u_s") != std::string::npos);
    CHECK(message([&] { (void)make_layout(fs, 0, 0); }).find("must differ from u_c") != std::string::npos);
    CHECK(message([&] { (void)make_layout(fs, 0, 2); }).find("u_s = 2") != std::string::npos);
    CHECK(message([] { (void)dependence_set<2>{{0, -1}}; }).find("(0,-1)") != std::string::npos);
}

TEST_CASE("layout: a chunk's subchunks, piece by piece, are span()'s ranges and hold every point once") {
    // for_each_piece computes the pieces' ranges itself and visits only the
    // non-empty ones; span() and part() are the definition it must agree with.
    for (index_t skew : {0, 1, 2, 3})
        for (index_t h : {1, 2, 5, 7})
            for (auto const& extents : {std::array<index_t, 2>{9, 13}, std::array<index_t, 2>{6, 1}}) {
                box<2> const space(box<2>::point{2, -3}, box<2>::point{2 + extents[0], -3 + extents[1]});
                detail::doacross_geometry<2> const geo(space, doacross_layout{0, 1, 1, skew}, h, 0);
                for (index_t a = 0; a < extents[0]; a += 4) {
                    index_t const b = std::min(extents[0], a + 4);
                    std::map<std::array<index_t, 2>, int> seen;
                    for (index_t t = 0; t < geo.tiles(b - a); ++t)
                        for (index_t c0 = a; c0 <= b; ++c0) {
                            std::vector<box<2>> got, expected;
                            geo.for_each_piece(a, t, c0, b, [&](box<2> const& piece) { got.push_back(piece); });
                            for (index_t c = c0; c < b; ++c) {
                                auto const [lo, hi] = geo.span(a, c, t);
                                if (lo < hi) expected.push_back(geo.part(c, c + 1, lo, hi));
                            }
                            if (skew == 0 && !expected.empty()) // one box for the whole tile
                                expected = {geo.part(c0, b, geo.span(a, a, t).first, geo.span(a, a, t).second)};
                            REQUIRE(got == expected);
                            if (c0 == a)
                                for (auto const& piece : got)
                                    for (index_t x = piece.lower()[0]; x < piece.upper()[0]; ++x)
                                        for (index_t y = piece.lower()[1]; y < piece.upper()[1]; ++y) ++seen[{x, y}];
                        }
                    CHECK(seen.size() == static_cast<std::size_t>((b - a) * extents[1]));
                    for (auto const& [point, times] : seen) {
                        CHECK(times == 1);
                        CHECK(space.slice(0, a, b).contains(point));
                    }
                }
            }
}
