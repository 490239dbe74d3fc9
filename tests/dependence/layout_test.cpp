// DOACROSS layouts: the library's choice of (u_c, u_s) for the four test
// problems, and an illegal choice named by its offending vector.
#include "../../examples/doacross_kernels.hpp"

#include <loopsched/dependence/layout.hpp>
#include <loopsched/dependence/uniform.hpp>
#include <loopsched/error.hpp>

#include <doctest/doctest.h>

#include <string>

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
