// Run-time errors outside spec strings: loops, requests, and parameters that only
// the loop can refute. Each names the parameter and its value.
#include <loopsched/error.hpp>
#include <loopsched/policies.hpp>
#include <loopsched/schedule.hpp>
#include <loopsched/space/box.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace loopsched;

namespace {
template <class F>
std::string failure(F&& f) {
    try {
        f();
    } catch (invalid_parameter const& e) {
        return e.parameter() + " = " + e.value();
    } catch (error const& e) {
        return e.what();
    }
    return "no error";
}
} // namespace

TEST_CASE("invalid loops are rejected before any chunk is handed out") {
    CHECK(failure([] { chunk_sequencer s(gss{}, loop_info{-5, 4, {}}); }) == "iterations = -5");
    CHECK(failure([] { chunk_sequencer s(gss{}, loop_info{10, 0, {}}); }) == "workers = 0");
    CHECK(failure([] { chunk_sequencer s(gss{}, loop_info{10, 2, {{1, 1}}}); }) == "status.size() = 1");
    CHECK(failure([] { chunk_sequencer s(dtss{}, loop_info{10, 2, {{1, 1}, {0, 1}}}); }) == "worker[1].power = 0");
    CHECK(failure([] {
              chunk_sequencer s(dtss{}, loop_info{10, 2, {{1, 0.5}, {1, 1}}});
          }) == "worker[0].run_queue = 0.5");
    CHECK(failure([] { chunk_sequencer s(wf({1, 2, 3}), loop_info{10, 2, {}}); }) == "wf weights count = 3");
}

TEST_CASE("invalid requests are rejected") {
    chunk_sequencer s(css(3), loop_info{10, 2, {}});
    CHECK(failure([&] { s.next({2, {}, {}}); }) == "request.worker = 2");
    CHECK(failure([&] { s.next({0, {-1, 1}, {}}); }) == "worker[0].power = -1");
    CHECK(failure([&] { s.next({1, {1, 1}, {-4, 0, 0}}); }) == "request.last.size = -4");
    CHECK(s.remaining() == 10); // nothing was handed out
}

TEST_CASE("constructors validate, naming the parameter") {
    CHECK(failure([] { css c(0); }) == "css chunk k = 0");
    CHECK(failure([] { gss g(-2); }) == "gss min chunk k = -2");
    CHECK(failure([] { tss t(1, 2); }) == "tss first chunk F = 1");
    CHECK(failure([] { fss f(-0.5); }) == "fss alpha = -0.5");
    CHECK(failure([] { fiss f(1); }) == "fiss stages sigma = 1");
    CHECK(failure([] { dtss d(1, 1, 0.0); }) == "dtss scale = 0");
    CHECK(failure([] { wf w({1.0, -1.0}); }) == "wf weight[1] = -1");
    CHECK(failure([] { rnd r(4, 2); }) == "rnd max = 2");
    CHECK(failure([] { (void)box<2>({0, 5}, {3, 4}); }) == "box upper[1] = 4");
}

TEST_CASE("a slice outside its box is rejected, naming the range") {
    auto const b = box<2>::from_extents({4, 6});
    CHECK(failure([&] { (void)b.slice(1, 2, 7); }) == "slice range = [2, 7)");
    CHECK(failure([&] { (void)b.slice(0, 3, 2); }) == "slice range = [3, 2)");
    CHECK(failure([&] { (void)b.slice(2, 0, 1); }) == "dimension = 2");
    CHECK(failure([&] { (void)b.extent(5); }) == "dimension = 5");
    CHECK(b.slice(1, 2, 6) == box<2>({0, 2}, {4, 6}));
}

TEST_CASE("a policy proposing a negative chunk is caught, not trusted") {
    struct broken {
        struct state {
            index_t propose(request const&) { return -3; }
            void commit(request const&, index_t) {}
        };
        state start(loop_info const&) const { return {}; }
    };
    chunk_sequencer s(broken{}, loop_info{10, 1, {}});
    CHECK(failure([&] { s.next({0, {}, {}}); }).find("negative chunk (-3)") != std::string::npos);
}

TEST_CASE("a policy that starves every worker is reported instead of looping") {
    struct stingy {
        struct state {
            index_t propose(request const&) { return 0; }
            void commit(request const&, index_t) {}
        };
        state start(loop_info const&) const { return {}; }
    };
    CHECK(failure([] {
              round_robin_schedule(stingy{}, loop_info{10, 3, {}});
          }).find("no worker received work") != std::string::npos);
}
