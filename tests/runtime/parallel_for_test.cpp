// parallel_for's protocol on the in-process transport: every iteration exactly
// once, results equal to a sequential run, every policy, the error paths.
#include <loopsched/loopsched.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

using namespace loopsched;

namespace {

double work(index_t i) { return std::sin(0.001 * static_cast<double>(i)) * static_cast<double>(i % 97); }

/// Runs a loop of n iterations on `ranks` threads; checks exactly-once and the
/// results against a sequential run; returns the root's statistics.
loop_statistics check_loop(int ranks, index_t n, any_policy const& policy, parallel_for_options options = {}) {
    std::vector<std::atomic<int>> runs(static_cast<std::size_t>(n));
    std::vector<double> result(static_cast<std::size_t>(n), 0.0);
    std::vector<loop_statistics> stats(static_cast<std::size_t>(ranks));
    in_process::run(ranks, [&](in_process::endpoint& t) {
        stats[static_cast<std::size_t>(t.rank())] = parallel_for(
            t, make_range(n), policy,
            [&](index_range const& part) {
                REQUIRE(part.size() > 0);
                for (index_t i : part.indices()) {
                    runs[static_cast<std::size_t>(i)]++;
                    result[static_cast<std::size_t>(i)] = work(i);
                }
            },
            options);
    });
    for (index_t i = 0; i < n; ++i) {
        REQUIRE(runs[static_cast<std::size_t>(i)] == 1);
        REQUIRE(result[static_cast<std::size_t>(i)] == work(i)); // bit-identical
    }
    for (auto const& s : stats) { // every rank got the same table
        CHECK(s.iterations() == n);
        CHECK(s.workers.size() == stats[0].workers.size());
    }
    return stats[static_cast<std::size_t>(options.root)];
}

} // namespace

TEST_CASE("parallel_for: every policy, 1 to 4 ranks, computing and dedicated master") {
    for (auto name : policy_names())
        for (std::string spec : {std::string(name), "w-" + std::string(name)})
            for (int ranks : {1, 2, 3, 4})
                for (bool computes : {true, false}) {
                    CAPTURE(spec);
                    CAPTURE(ranks);
                    CAPTURE(computes);
                    parallel_for_options o;
                    o.master_computes = computes;
                    o.powers.assign(static_cast<std::size_t>(ranks), 1.0);
                    if (ranks > 1) o.powers[1] = 2.5;
                    auto s = check_loop(ranks, 1237, parse_policy(spec), o);
                    CHECK(s.workers.size() == static_cast<std::size_t>(computes || ranks == 1 ? ranks : ranks - 1));
                }
}

TEST_CASE("parallel_for: statistics count what each worker ran") {
    auto s = check_loop(3, 1000, parse_policy("css:chunk=10"), {});
    index_t chunks = 0;
    for (auto const& w : s.workers) chunks += w.chunks;
    CHECK(chunks == 100);
    CHECK(s.parallel_seconds > 0.0);
}

TEST_CASE("parallel_for: more workers than iterations, and an empty loop") {
    check_loop(4, 2, parse_policy("ss"));
    check_loop(4, 0, parse_policy("gss"));
    check_loop(3, 1, parse_policy("fss"));
}

TEST_CASE("parallel_for: any root rank") {
    parallel_for_options o;
    o.root = 2;
    check_loop(4, 500, parse_policy("tss"), o);
    o.master_computes = false;
    check_loop(4, 500, parse_policy("tss"), o);
}

TEST_CASE("parallel_for: a 2-D box is cut along the chosen dimension") {
    auto space = box<2>::from_extents({30, 40});
    for (std::size_t dim : {0u, 1u}) {
        std::vector<std::atomic<int>> seen(30 * 40);
        parallel_for_options o;
        o.dimension = dim;
        in_process::run(3, [&](in_process::endpoint& t) {
            parallel_for(
                t, space, gss{},
                [&](box<2> const& part) {
                    CHECK(part.extent(1 - dim) == space.extent(1 - dim)); // whole extent along the other dimension
                    for (index_t i : part.indices(0))
                        for (index_t j : part.indices(1)) seen[static_cast<std::size_t>(i * 40 + j)]++;
                },
                o);
        });
        for (auto& s : seen) CHECK(s == 1);
    }
}

TEST_CASE("parallel_for: a body that throws on one rank makes every rank throw remote_error") {
    for (int failing_rank : {0, 1, 2})
        for (bool computes : {true, false}) {
            if (failing_rank == 0 && !computes) continue; // a dedicated master runs no body
            CAPTURE(failing_rank);
            CAPTURE(computes);
            std::vector<std::string> caught(3);
            std::vector<int> origins(3, -1);
            parallel_for_options o;
            o.master_computes = computes;
            in_process::run(3, [&](in_process::endpoint& t) {
                try {
                    parallel_for(
                        t, make_range(700), css(7),
                        [&](index_range const&) {
                            // Slow enough that every rank gets a chunk before the loop ends.
                            std::this_thread::sleep_for(std::chrono::milliseconds(1));
                            if (t.rank() == failing_rank) throw std::runtime_error("bad pixel");
                        },
                        o);
                } catch (remote_error const& e) {
                    caught[static_cast<std::size_t>(t.rank())] = e.original_message();
                    origins[static_cast<std::size_t>(t.rank())] = e.origin_rank();
                }
            });
            for (int r = 0; r < 3; ++r) {
                CHECK(caught[static_cast<std::size_t>(r)] == "bad pixel");
                CHECK(origins[static_cast<std::size_t>(r)] == failing_rank);
            }
        }
}

TEST_CASE("parallel_for: invalid arguments fail on every rank before any message") {
    auto expect_all_fail = [](parallel_for_options o, any_policy const& p, std::string const& parameter) {
        std::vector<std::string> names(3);
        in_process::run(3, [&](in_process::endpoint& t) {
            try {
                parallel_for(t, make_range(100), p, [](index_range const&) {}, o);
            } catch (invalid_parameter const& e) {
                names[static_cast<std::size_t>(t.rank())] = e.parameter();
            }
        });
        for (auto const& n : names) CHECK(n == parameter);
    };
    parallel_for_options bad_root;
    bad_root.root = 3;
    expect_all_fail(bad_root, gss{}, "options.root");
    parallel_for_options bad_powers;
    bad_powers.powers = {1.0, 2.0};
    expect_all_fail(bad_powers, gss{}, "options.powers count");
    parallel_for_options bad_dim;
    bad_dim.dimension = 1;
    expect_all_fail(bad_dim, gss{}, "options.dimension");
    expect_all_fail({}, wf({1.0, 2.0}), "wf weights count"); // 3 workers, 2 weights
}
