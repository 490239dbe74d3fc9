// How a worker times its chunks: which ones it times, and how the time of the
// others is split between computing and waiting.
#include <loopsched/algorithm/parallel_for.hpp>
#include <loopsched/concepts.hpp>
#include <loopsched/policies.hpp>
#include <loopsched/space/box.hpp>
#include <loopsched/transport/in_process.hpp>

#include <doctest/doctest.h>

#include <chrono>
#include <vector>

using namespace loopsched;
using loopsched::detail::chunk_timing_sampler;
using loopsched::detail::send_time_estimate;

TEST_CASE("timing: short chunks are timed one in 16, the first and long ones always") {
    chunk_timing_sampler s(false);
    std::vector<bool> decisions;
    REQUIRE(s.wants(100));    // the first: nothing is known yet
    s.timed(100, 100 * 1e-9); // 1 ns per iteration: a 100-iteration chunk is short
    for (int k = 0; k < 32; ++k) {
        bool const timed = s.wants(100);
        decisions.push_back(timed);
        if (timed)
            s.timed(100, 100 * 1e-9);
        else
            s.untimed(100, 1e-6);
    }
    for (int k = 0; k < 32; ++k) CHECK_MESSAGE(decisions[static_cast<std::size_t>(k)] == (k % 16 == 15), "chunk ", k);
    CHECK(s.wants(6000)); // 6000 x 1 ns = 6 us: long enough to time
    s.timed(6000, 6000 * 1e-9);
    CHECK(s.wants(10000));
}

TEST_CASE("timing: with tracing or request-ahead every chunk is timed") {
    chunk_timing_sampler s(true);
    s.timed(1, 1e-9);
    for (int k = 0; k < 40; ++k) CHECK(s.wants(1));
}

TEST_CASE("timing: the typical send is the median of recent samples, deaf to a preempted one") {
    send_time_estimate e;
    CHECK(e.typical() == 0.0); // no sample yet
    e.add(2e-6);
    CHECK(e.typical() == 2e-6);
    e.add(4e-3); // preempted for 4 ms: a mean would jump 1000-fold
    e.add(1e-6);
    CHECK(e.typical() == 2e-6);
    // Once the window has moved on, only the recent samples count.
    for (std::size_t k = 0; k < send_time_estimate::window; ++k) e.add(3e-6);
    CHECK(e.typical() == 3e-6);
    for (std::size_t k = 0; k < send_time_estimate::window / 2; ++k) e.add(1e-3);
    CHECK(e.typical() == 3e-6); // a minority of slow sends
    e.add(1e-3);
    CHECK(e.typical() == 1e-3); // a majority: sending really is slow now
}

TEST_CASE("timing: an untimed chunk's cycle is split as the timed chunks' time per iteration says") {
    chunk_timing_sampler s(false);
    s.timed(10, 10e-6); // 1 us per iteration
    s.timed(30, 30e-6);
    s.untimed(20, 50e-6); // 20 iterations: 20 us computing, the rest waiting and sending
    s.untimed(5, 10e-6);  // 5 us computing
    worker_statistics w;
    w.compute_seconds = 40e-6;
    w.wait_seconds = 1e-6;
    s.settle(w, 1e-6); // two untimed requests' sending (2 us) is counted elsewhere
    CHECK(w.compute_seconds == doctest::Approx(40e-6 + 25e-6));
    CHECK(w.wait_seconds == doctest::Approx(1e-6 + (60e-6 - 2e-6 - 25e-6)));

    chunk_timing_sampler slow_sample(false); // computing is never made up beyond the cycle
    slow_sample.timed(1, 1.0);
    slow_sample.untimed(100, 1e-3);
    worker_statistics v;
    slow_sample.settle(v, 0.0);
    CHECK(v.compute_seconds == doctest::Approx(1e-3));
    CHECK(v.wait_seconds == doctest::Approx(0.0));
}

TEST_CASE("timing: a loop of short chunks still reports its computing and no more than its time") {
    // 3000 chunks of about 2 us each on a dedicated master's one worker: most go
    // untimed, their computing estimated from every 16th.
    auto spin = [](index_range const& part) {
        auto const until = std::chrono::steady_clock::now() + std::chrono::microseconds(2) * part.size();
        while (std::chrono::steady_clock::now() < until) {
        }
    };
    std::vector<loop_statistics> stats(2);
    double worker_call_seconds = 0.0; // the worker rank's whole call, on the runtime's clock
    in_process::run(2, [&](in_process::endpoint& t) {
        parallel_for_options o;
        o.master_computes = false;
        double const start = t.now();
        stats[static_cast<std::size_t>(t.rank())] = parallel_for(t, make_range(3000), css(1), spin, o).statistics;
        if (t.rank() == 1) worker_call_seconds = t.now() - start;
    });
    auto const& w = stats[0].workers.at(0);
    CHECK(w.chunks == 3000);
    CHECK(w.compute_seconds >= 0.5 * 3000 * 2e-6); // every chunk spins at least 2 us
    // Even when a sampled send was preempted (its mean then exceeds a whole
    // 2 us cycle), the three parts do not add up to more than the call took.
    CHECK(w.compute_seconds + w.wait_seconds + w.comm_seconds <= worker_call_seconds);
}
