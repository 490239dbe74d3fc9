// Ciorba's model of the optimal synchronization interval against its Table 5.11.
#include <loopsched/adaptor/interval_model.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace loopsched;

TEST_CASE("interval model: Ciorba Table 5.11's constants give the thesis's optimal h") {
    // Exp #1, kids: c_d = 99 us, c_c = 0.69 us, c_p = 0.526 us, U_s = 20000, U_c = 10000, P = 10.
    interval_costs const kids{99e-6, 0.69e-6};
    CHECK(optimal_interval(kids, 0.526e-6, 20000, 10000, 10, 1) == doctest::Approx(28.9).epsilon(0.002));
    CHECK(optimal_interval(kids, 0.526e-6, 20000, 10000, 10, 4) == doctest::Approx(57.6).epsilon(0.002));
    CHECK(optimal_interval(kids, 0.526e-6, 20000, 10000, 10, 8) == doctest::Approx(81.1).epsilon(0.002));
    // Exp #2, twins: c_c = 0.65 us, c_p = 0.319 us, U_s = 16000, U_c = 8000, P = 6.
    interval_costs const twins{99e-6, 0.65e-6};
    CHECK(optimal_interval(twins, 0.319e-6, 16000, 8000, 6, 1) == doctest::Approx(38.5).epsilon(0.002));
    CHECK(optimal_interval(twins, 0.319e-6, 16000, 8000, 6, 4) == doctest::Approx(76.8).epsilon(0.002));
    CHECK(optimal_interval(twins, 0.319e-6, 16000, 8000, 6, 8) == doctest::Approx(108.1).epsilon(0.002));
    // 4.11 with one class is 4.6; with Chen & Xue's split (5 twins V 1223, 5 kids V 776, c_p per type) about 33.
    worker_class const one[] = {{10, 0.526e-6, 1000}};
    CHECK(optimal_interval(kids, 20000, one) == doctest::Approx(optimal_interval(kids, 0.526e-6, 20000, 10000, 10)));
    worker_class const mixed[] = {{5, 0.319e-6, 1223}, {5, 0.526e-6, 776}};
    CHECK(optimal_interval(interval_costs{99e-6, 0.69e-6}, 20000, mixed) == doctest::Approx(33.2).epsilon(0.01));
    CHECK_THROWS_AS(optimal_interval(kids, 0.0, 20000, 10000, 1), invalid_parameter); // nothing pays for a message
}
