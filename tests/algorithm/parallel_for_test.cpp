// parallel_for's protocol on the in-process transport: every iteration exactly
// once, results equal to a sequential run, every policy, the error paths.
#include <loopsched/algorithm/parallel_for.hpp>
#include <loopsched/any_policy.hpp>
#include <loopsched/concepts.hpp>
#include <loopsched/departure.hpp>
#include <loopsched/error.hpp>
#include <loopsched/mapping/mapping.hpp>
#include <loopsched/options.hpp>
#include <loopsched/policies.hpp>
#include <loopsched/runtime/core/calibration.hpp>
#include <loopsched/runtime/core/trace.hpp>
#include <loopsched/space/box.hpp>
#include <loopsched/spec.hpp>
#include <loopsched/transport/in_process.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
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
                options).statistics;
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

/// A loop on `t` right after whatever ran before it: every iteration once.
bool check_loop_here(in_process::endpoint& t) {
    auto out = parallel_for(
            t, make_range(300), gss{},
            [](index_range const& part, std::span<index_t> v) {
                std::size_t j = 0;
                for (index_t i : part.indices()) v[j++] = i;
            },
            gather<index_t>{1});
    bool ok = out.statistics.iterations() == 300;
    if (t.rank() == 0)
        for (index_t i = 0; ok && i < 300; ++i) ok = out.value[static_cast<std::size_t>(i)] == i;
    return ok;
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
        for (bool computes : {true, false})
            for (int variant : {0, 1, 2}) {                   // plain, request-ahead, deterministic
                if (failing_rank == 0 && !computes) continue; // a dedicated master runs no body
                CAPTURE(failing_rank);
                CAPTURE(computes);
                CAPTURE(variant);
                std::vector<std::string> caught(3);
                std::vector<int> origins(3, -1);
                parallel_for_options o;
                o.master_computes = computes;
                o.request_ahead = variant == 1 ? 0.5 : 0.0;
                o.deterministic = variant == 2;
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

namespace {

/// Runs an empty loop of 100 iterations on `ranks` threads, rank r with
/// `options_of(r)`, and checks that every rank fails naming `parameter`.
template <class Options>
void expect_every_rank_fails(int ranks, any_policy const& policy, Options&& options_of, std::string const& parameter,
                             any_mapping const& mapping = dynamic_mapping{}) {
    std::vector<std::string> names(static_cast<std::size_t>(ranks));
    in_process::run(ranks, [&](in_process::endpoint& t) {
        try {
            parallel_for(
                    t, make_range(100), policy, mapping, [](index_range const&) {}, options_of(t.rank()));
        } catch (invalid_parameter const& e) {
            names[static_cast<std::size_t>(t.rank())] = e.parameter();
        }
    });
    for (auto const& n : names) CHECK(n == parameter);
}

} // namespace

TEST_CASE("parallel_for: invalid arguments fail on every rank before any message") {
    auto expect_all_fail = [](parallel_for_options o, any_policy const& p, std::string const& parameter) {
        expect_every_rank_fails(3, p, [&](int) { return o; }, parameter);
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
    parallel_for_options bad_ahead;
    bad_ahead.request_ahead = 1.0;
    expect_all_fail(bad_ahead, gss{}, "options.request_ahead");
    parallel_for_options bad_queue;
    bad_queue.run_queues = {1.0, 0.5, 1.0};
    expect_all_fail(bad_queue, gss{}, "options.run_queues[1]");
}

namespace {

/// Runs a gathering loop of n iterations (3 values each) on `ranks` threads;
/// checks the root's values against a sequential run and returns its result.
gathered<double> check_gathered(int ranks, index_t n, any_policy const& policy, parallel_for_options options = {}) {
    std::vector<gathered<double>> out(static_cast<std::size_t>(ranks));
    in_process::run(ranks, [&](in_process::endpoint& t) {
        out[static_cast<std::size_t>(t.rank())] = parallel_for(
                t, make_range(n), policy,
                [](index_range const& part, std::span<double> values) {
                    REQUIRE(values.size() == static_cast<std::size_t>(part.size()) * 3);
                    std::size_t j = 0;
                    for (index_t i : part.indices())
                        for (int v = 0; v < 3; ++v) values[j++] = work(i) + v;
                },
                gather<double>{3}, options);
    });
    auto const& root = out[static_cast<std::size_t>(options.root)];
    REQUIRE(root.value.size() == static_cast<std::size_t>(n) * 3);
    for (index_t i = 0; i < n; ++i)
        for (int v = 0; v < 3; ++v) REQUIRE(root.value[static_cast<std::size_t>(i * 3 + v)] == work(i) + v);
    for (int r = 0; r < ranks; ++r)
        if (r != options.root) CHECK(out[static_cast<std::size_t>(r)].value.empty());
    CHECK(root.statistics.iterations() == n);
    return root;
}

} // namespace

TEST_CASE("parallel_for with gather: root holds every iteration's values, for every policy and mode") {
    for (auto name : policy_names())
        for (double ahead : {0.0, 0.5})
            for (bool computes : {true, false}) {
                CAPTURE(name);
                CAPTURE(ahead);
                CAPTURE(computes);
                if (name == trees::name && ahead > 0.0) continue; // refused (the request-ahead test)
                parallel_for_options o;
                o.request_ahead = ahead;
                o.master_computes = computes;
                check_gathered(3, 1501, parse_policy(name), o);
            }
    parallel_for_options o;
    o.root = 1;
    check_gathered(4, 999, parse_policy("w-fss"), o);
    check_gathered(1, 100, parse_policy("gss"), {});
    check_gathered(4, 2, parse_policy("ss"), {});
    check_gathered(3, 0, parse_policy("tss"), {});
}

TEST_CASE("parallel_for: request-ahead keeps exactly-once on every policy") {
    for (auto name : policy_names()) {
        CAPTURE(name);
        parallel_for_options o;
        o.request_ahead = 0.25;
        if (name == trees::name) { // a TreeS request means "my chunk is done": refused, named
            CHECK_THROWS_WITH(check_loop(3, 1000, parse_policy(name), o), doctest::Contains("options.request_ahead"));
            continue;
        }
        check_loop(4, 1000, parse_policy(name), o);
        o.request_ahead = 0.9; // the request leaves before the chunk starts for small chunks
        check_loop(3, 1000, parse_policy("w-" + std::string(name)), o);
    }
}

TEST_CASE("parallel_for: deterministic mode gives the same assignment on every run") {
    for (std::string spec : {"gss", "dtss", "af", "awf-b", "w-fss", "rnd"})
        for (bool computes : {true, false}) {
            CAPTURE(spec);
            CAPTURE(computes);
            parallel_for_options o;
            o.deterministic = true;
            o.master_computes = computes;
            o.trace = true;
            o.powers = {1.0, 2.0, 0.5, 1.5};
            auto assignment = [&] {
                auto s = check_loop(4, 2000, parse_policy(spec), o);
                std::vector<std::tuple<int, index_t, index_t>> a;
                for (auto const& e : s.trace) a.emplace_back(e.rank, e.first, e.size);
                std::ranges::sort(a, {}, [](auto const& x) { return std::get<1>(x); });
                return a;
            };
            auto const first = assignment();
            CHECK(!first.empty());
            for (int run = 0; run < 3; ++run) CHECK(assignment() == first);
        }
}

TEST_CASE("parallel_for: the trace holds every chunk once, within the loop's time") {
    for (bool computes : {true, false}) {
        parallel_for_options o;
        o.trace = true;
        o.master_computes = computes;
        o.request_ahead = 0.5;
        auto s = check_loop(3, 3000, parse_policy("fss"), o);
        CHECK(static_cast<index_t>(s.trace.size()) == s.chunks());
        std::vector<int> covered(3000, 0);
        for (auto const& e : s.trace) {
            CHECK(e.size > 0);
            CHECK(e.end >= e.start);
            CHECK(e.start >= -0.01); // clocks of one machine: offsets of microseconds at most
            CHECK(e.end <= s.parallel_seconds + 0.01);
            for (index_t i = e.first; i < e.first + e.size; ++i) covered[static_cast<std::size_t>(i)]++;
        }
        for (int c : covered) CHECK(c == 1);
        std::ostringstream json, svg;
        write_chrome_trace(json, s);
        write_svg_gantt(svg, s);
        CHECK(json.str().find("\"ph\":\"X\"") != std::string::npos);
        CHECK(svg.str().find("<rect") != std::string::npos);
        CHECK(svg.str().find("</svg>") != std::string::npos);
    }
}

TEST_CASE("parallel_for: emulated powers slow a rank down by sleeping") {
    // The body sleeps rather than spins: on a 2-core machine running other tests
    // beside this one, three spinning threads made the scheduler, not the
    // emulation, decide who got the next chunk (CI saw 50 chunks against 50).
    parallel_for_options o;
    o.powers = {1.0, 1.0, 0.25};
    o.emulate_powers = true;
    o.master_computes = false;
    o.run_queues = {1.0, 1.0, 1.0};
    std::vector<std::atomic<int>> runs(120);
    std::vector<double> body_seconds(3, 0.0); // each rank writes only its own entry
    loop_statistics s;
    in_process::run(3, [&](in_process::endpoint& t) {
        auto& mine = body_seconds[static_cast<std::size_t>(t.rank())];
        auto r = parallel_for(
                t, make_range(120), css(2),
                [&](index_range const& part) {
                    double const start = t.now(); // the clock the runtime measures with
                    for (index_t i : part.indices()) runs[static_cast<std::size_t>(i)]++;
                    std::this_thread::sleep_for(std::chrono::microseconds(500));
                    mine += t.now() - start;
                },
                o).statistics;
        if (t.rank() == 0) s = r;
    });
    for (auto& r : runs) CHECK(r == 1);
    REQUIRE(s.workers.size() == 2);
    // The mechanism, whatever the machine's load: a sleep never falls short and an
    // overshoot is only credited against later sleeps, so rank 2 spends at least
    // V_max / V_2 = 4 times its body's time (less the sending of its requests).
    CHECK(s.workers[1].compute_seconds >= 3.5 * body_seconds[2]);
    // The effect: the quarter-speed rank gets far fewer chunks of a self-scheduled loop.
    CHECK(s.workers[1].chunks < s.workers[0].chunks);
}

TEST_CASE("parallel_for: run-queue lengths reach load-aware policies") {
    // With Q = 4 on rank 2, DTSS gives it A = floor(10 / 4) = 2 against 10: its
    // first chunk is a fifth of rank 1's.
    parallel_for_options o;
    o.master_computes = false;
    o.run_queues = {1.0, 1.0, 4.0};
    o.deterministic = true;
    o.trace = true;
    auto s = check_loop(3, 10000, parse_policy("dtss"), o);
    index_t first1 = 0, first2 = 0;
    for (auto const& e : s.trace) {
        if (e.rank == 1 && first1 == 0) first1 = e.size;
        if (e.rank == 2 && first2 == 0) first2 = e.size;
    }
    CHECK(first1 > 0);
    CHECK(first2 * 4 < first1);
    CHECK(read_run_queue() >= 1.0);
}

TEST_CASE("measure_powers: every rank gets the same powers, the slowest at 1") {
    // Repeated, with any root: a rank's messages must never overtake another
    // rank's hello at the coordinator (CI once caught that in 1 of many runs).
    for (int round = 0; round < 40; ++round) {
        int const ranks = 2 + round % 3, root = round % ranks;
        CAPTURE(round);
        std::vector<std::vector<double>> got(static_cast<std::size_t>(ranks));
        in_process::run(ranks, [&](in_process::endpoint& t) {
            got[static_cast<std::size_t>(t.rank())] = measure_powers(t, root);
        });
        for (auto const& g : got) REQUIRE(g == got[0]);
        CHECK(got[0].size() == static_cast<std::size_t>(ranks));
        CHECK(*std::ranges::min_element(got[0]) == 1.0);
        for (double v : got[0]) CHECK(v >= 1.0);
    }
}

namespace {
/// A loop mapping of the user's, fixed ahead of time: unit i to worker P - 1 - (i mod P).
struct reverse_cyclic_mapping {
    struct state {
        std::size_t workers = 1;
        std::size_t place(work_unit const& u, request const&) const { return workers - 1 - u.index % workers; }
    };
    bool ahead_of_time() const { return true; }
    state start(placement_info const& info) const { return {info.workers}; }
    std::string spec() const { return "reverse-cyclic"; }
    friend bool operator==(reverse_cyclic_mapping, reverse_cyclic_mapping) = default;
};
static_assert(LoopMapping<reverse_cyclic_mapping>);
} // namespace

TEST_CASE("parallel_for: static mappings run every chunk once, with no master, any root") {
    // The library's two, and one of the user's held by any_mapping as they are.
    for (auto mapping : {any_mapping(static_block_mapping{}), any_mapping(static_cyclic_mapping{}),
                         any_mapping(reverse_cyclic_mapping{})})
        for (std::string spec : {"static", "css:chunk=13", "gss", "w-fss", "af"})
            for (int ranks : {1, 2, 3, 4})
                for (int root : {0, ranks - 1})
                    for (bool computes : {true, false}) {
                        CAPTURE(mapping.name());
                        CAPTURE(spec);
                        CAPTURE(ranks);
                        CAPTURE(root);
                        CAPTURE(computes);
                        index_t const n = 1003;
                        std::vector<std::atomic<int>> runs(n);
                        std::vector<gathered<double>> out(static_cast<std::size_t>(ranks));
                        parallel_for_options o;
                        o.root = root;
                        o.master_computes = computes;
                        o.trace = true;
                        o.powers.assign(static_cast<std::size_t>(ranks), 1.0);
                        o.powers[0] = 2.0;
                        in_process::run(ranks, [&](in_process::endpoint& t) {
                            out[static_cast<std::size_t>(t.rank())] = parallel_for(
                                    t, make_range(n), parse_policy(spec), mapping,
                                    [&](index_range const& part, std::span<double> v) {
                                        std::size_t j = 0;
                                        for (index_t i : part.indices()) {
                                            runs[static_cast<std::size_t>(i)]++;
                                            v[j++] = work(i);
                                        }
                                    },
                                    gather<double>{1}, o);
                        });
                        for (auto& r : runs) REQUIRE(r == 1);
                        auto const& at_root = out[static_cast<std::size_t>(root)];
                        REQUIRE(at_root.value.size() == static_cast<std::size_t>(n));
                        for (index_t i = 0; i < n; ++i) REQUIRE(at_root.value[static_cast<std::size_t>(i)] == work(i));
                        for (auto const& each : out) {
                            CHECK(each.statistics.iterations() == n);
                            CHECK(each.statistics.workers.size() ==
                                  static_cast<std::size_t>(computes || ranks == 1 ? ranks : ranks - 1));
                        }
                        CHECK(static_cast<index_t>(at_root.statistics.trace.size()) == at_root.statistics.chunks());
                    }
}

TEST_CASE("parallel_for: a static loop's body that throws fails every rank") {
    for (int failing : {0, 1, 2}) {
        std::vector<int> origins(3, -1);
        in_process::run(3, [&](in_process::endpoint& t) {
            try {
                parallel_for(t, make_range(3000), css(10), static_cyclic_mapping{}, [&](index_range const&) {
                    std::this_thread::sleep_for(std::chrono::microseconds(50));
                    if (t.rank() == failing) throw std::runtime_error("static boom");
                });
            } catch (remote_error const& e) {
                origins[static_cast<std::size_t>(t.rank())] = e.origin_rank();
            }
            CHECK(check_loop_here(t));
        });
        for (int o : origins) CHECK(o == failing);
    }
}

namespace {

/// A gathering loop on `ranks` threads, rank `slow` sleeping `pause` per
/// iteration; `runs` counts each iteration's runs. Returns every rank's outcome.
std::vector<gathered<double>> run_with_slow_rank(int ranks, index_t n, any_policy const& policy, int slow,
                                                 std::chrono::microseconds pause, parallel_for_options const& o,
                                                 std::vector<std::atomic<int>>& runs) {
    std::vector<gathered<double>> out(static_cast<std::size_t>(ranks));
    in_process::run(ranks, [&](in_process::endpoint& t) {
        out[static_cast<std::size_t>(t.rank())] = parallel_for(
                t, make_range(n), policy,
                [&](index_range const& part, std::span<double> values) {
                    REQUIRE(part.size() > 0);
                    std::size_t j = 0;
                    for (index_t i : part.indices()) {
                        if (t.rank() == slow) std::this_thread::sleep_for(pause);
                        runs[static_cast<std::size_t>(i)]++;
                        values[j++] = work(i);
                    }
                },
                gather<double>{1}, o);
    });
    return out;
}

/// With reissue: results on the root equal a sequential run (each iteration's
/// once, whichever copy won), every iteration ran at least once, and every rank
/// got the same counts of copies.
loop_statistics check_reissued(int ranks, index_t n, any_policy const& policy, int slow,
                               std::chrono::microseconds pause, parallel_for_options o = {}) {
    o.reissue = true;
    std::vector<std::atomic<int>> runs(static_cast<std::size_t>(n));
    auto const out = run_with_slow_rank(ranks, n, policy, slow, pause, o, runs);
    auto const& root = out[static_cast<std::size_t>(o.root)];
    REQUIRE(root.value.size() == static_cast<std::size_t>(n));
    for (index_t i = 0; i < n; ++i) {
        REQUIRE(runs[static_cast<std::size_t>(i)] >= 1);
        REQUIRE(root.value[static_cast<std::size_t>(i)] == work(i));
    }
    for (auto const& r : out) {
        CHECK(r.statistics.reissued == root.statistics.reissued);
        CHECK(r.statistics.dropped == root.statistics.dropped);
    }
    CHECK(root.statistics.iterations() >= n); // copies count where they ran
    return root.statistics;
}

} // namespace

TEST_CASE("parallel_for with reissue: a slow rank's chunk is copied to idle ranks, results once as a sequential run") {
    SUBCASE("a rank 1,000x slower: its first chunk is copied, the copy wins, its own is cancelled") {
        for (bool computes : {false, true}) {
            CAPTURE(computes);
            parallel_for_options o;
            o.master_computes = computes;
            // FSS's first batch: 400 / (2 x 3 or 4) iterations each; rank 1's take 1 ms each.
            auto const s = check_reissued(4, 400, parse_policy("fss"), 1, std::chrono::microseconds(1000), o);
            CHECK(s.reissued >= 1);
            CHECK(s.dropped >= 1);
            CHECK(s.parallel_seconds < 0.05); // far less than the 67 ms of rank 1's chunk
        }
    }
    SUBCASE("every policy, computing and dedicated master, any root: exactly-once results with copies at the end") {
        for (auto name : policy_names())
            for (bool computes : {true, false}) {
                CAPTURE(name);
                CAPTURE(computes);
                parallel_for_options o;
                o.master_computes = computes;
                o.root = computes ? 0 : 2;
                if (name == trees::name) { // TreeS moves work its own way: refused, named
                    CHECK_THROWS_WITH(check_reissued(3, 501, parse_policy(name), 1, std::chrono::microseconds(20), o),
                                      doctest::Contains("options.reissue"));
                    continue;
                }
                check_reissued(3, 501, parse_policy(name), 1, std::chrono::microseconds(20), o);
            }
    }
    SUBCASE("a loop without results: every iteration runs, the copies are counted") {
        std::vector<std::atomic<int>> runs(300);
        parallel_for_options o;
        o.reissue = true;
        std::vector<loop_statistics> stats(3);
        in_process::run(3, [&](in_process::endpoint& t) {
            stats[static_cast<std::size_t>(t.rank())] = parallel_for(
                    t, make_range(300), gss{},
                    [&](index_range const& part) {
                        for (index_t i : part.indices()) {
                            if (t.rank() == 2) std::this_thread::sleep_for(std::chrono::microseconds(500));
                            runs[static_cast<std::size_t>(i)]++;
                        }
                    },
                    o).statistics;
        });
        for (auto const& r : runs) REQUIRE(r >= 1);
        CHECK(stats[0].reissued >= 1);
        CHECK(stats[1].reissued == stats[0].reissued);
    }
    SUBCASE("what reissue cannot go with fails on every rank, named") {
        auto expect_all_fail = [](parallel_for_options o, std::string const& parameter,
                                  any_mapping const& mapping = dynamic_mapping{}) {
            o.reissue = true;
            expect_every_rank_fails(3, gss{}, [&](int) { return o; }, parameter, mapping);
        };
        parallel_for_options ahead;
        ahead.request_ahead = 0.5;
        expect_all_fail(ahead, "options.request_ahead");
        parallel_for_options fixed;
        fixed.deterministic = true;
        expect_all_fail(fixed, "options.deterministic");
        expect_all_fail({}, "options.reissue", static_block_mapping{});
    }
}

TEST_CASE("parallel_for with a failure detector: a rank that stalls past presumed_lost_after") {
    // Rank 1's first body call stalls 1 s, silent; the master presumes it lost after 0.2 s
    // (wide margins: under ThreadSanitizer a thread may not run for tens of milliseconds).
    auto run = [](parallel_for_options o, std::vector<std::string>& errors, std::vector<std::atomic<int>>& runs) {
        o.presumed_lost_after = 0.2;
        std::vector<gathered<double>> out(3);
        errors.assign(3, "");
        in_process::run(3, [&](in_process::endpoint& t) {
            bool stalled = false;
            try {
                out[static_cast<std::size_t>(t.rank())] = parallel_for(
                        t, make_range(2000), parse_policy("fss"),
                        [&](index_range const& part, std::span<double> values) {
                            if (t.rank() == 1 && !std::exchange(stalled, true))
                                std::this_thread::sleep_for(std::chrono::seconds(1));
                            std::size_t j = 0;
                            for (index_t i : part.indices()) {
                                std::this_thread::sleep_for(std::chrono::microseconds(20));
                                runs[static_cast<std::size_t>(i)]++;
                                values[j++] = work(i);
                            }
                        },
                        gather<double>{1}, o);
            } catch (error const& e) {
                errors[static_cast<std::size_t>(t.rank())] = e.what();
            }
            CHECK(check_loop_here(t));
        });
        return out;
    };
    std::vector<std::string> errors;
    SUBCASE("with reissue its chunk goes to another: results once, as a sequential run, the rank named lost") {
        std::vector<std::atomic<int>> runs(2000);
        parallel_for_options o;
        o.reissue = true;
        auto const out = run(o, errors, runs);
        for (auto const& e : errors) CHECK(e.empty());
        REQUIRE(out[0].value.size() == 2000);
        for (index_t i = 0; i < 2000; ++i) {
            REQUIRE(runs[static_cast<std::size_t>(i)] >= 1);
            REQUIRE(out[0].value[static_cast<std::size_t>(i)] == work(i));
        }
        for (auto const& r : out) CHECK(r.statistics.lost == std::vector<int>{1}); // rank 1 too, once back
    }
    SUBCASE("without, every rank throws the same error, the stalled one once it is back") {
        std::vector<std::atomic<int>> runs(2000);
        (void)run({}, errors, runs);
        for (auto const& e : errors)
            CHECK_MESSAGE(e.find("rank 1 was presumed lost: silent for 0.2 s (options.presumed_lost_after) "
                                 "while it held work") != std::string::npos,
                          e);
    }
    SUBCASE("no loss, no change: heartbeats keep a slow worker in the loop") {
        std::vector<std::atomic<int>> runs(2000);
        parallel_for_options o;
        o.presumed_lost_after = 0.2;
        auto const out = run_with_slow_rank(3, 2000, parse_policy("css:chunk=1000"), 1, std::chrono::microseconds(400),
                                            o, runs); // rank 1's chunk takes 0.4 s or more, twice the silence
        for (auto const& r : out) CHECK(r.statistics.lost.empty());
        for (index_t i = 0; i < 2000; ++i) REQUIRE(runs[static_cast<std::size_t>(i)] == 1);
    }
    SUBCASE("what it cannot go with fails on every rank, named") {
        auto expect_all_fail = [](parallel_for_options o, std::string const& parameter,
                                  any_mapping const& mapping = dynamic_mapping{}) {
            if (o.presumed_lost_after == std::numeric_limits<double>::infinity()) o.presumed_lost_after = 1.0;
            expect_every_rank_fails(3, gss{}, [&](int) { return o; }, parameter, mapping);
        };
        parallel_for_options fixed;
        fixed.deterministic = true;
        expect_all_fail(fixed, "options.deterministic");
        expect_all_fail({}, "options.presumed_lost_after", static_block_mapping{});
        parallel_for_options zero;
        zero.presumed_lost_after = 0.0;
        expect_all_fail(zero, "options.presumed_lost_after");
    }
}

namespace {

/// A gathering loop on `ranks` threads in which rank `leaver` calls leave() in
/// its first body call, or its first past `from` of the loop (from 0.5: a middle
/// chunk; 0.875: one of the last, if it gets one): every iteration runs exactly
/// once (reissue off) or at least once (on), the root's values equal a
/// sequential run, and every rank's table names the rank that left.
void check_departure(int ranks, index_t n, any_policy const& policy, int leaver, double from,
                     parallel_for_options o) {
    CAPTURE(ranks);
    CAPTURE(leaver);
    std::vector<std::atomic<int>> runs(static_cast<std::size_t>(n));
    std::vector<gathered<double>> out(static_cast<std::size_t>(ranks));
    departure away;
    in_process::run(ranks, [&](in_process::endpoint& t) {
        parallel_for_options mine = o;
        if (t.rank() == leaver) mine.leaving = &away;
        out[static_cast<std::size_t>(t.rank())] = parallel_for(
                t, make_range(n), policy,
                [&](index_range const& part, std::span<double> values) {
                    REQUIRE(part.size() > 0);
                    std::size_t j = 0;
                    for (index_t i : part.indices()) {
                        if (t.rank() == leaver) std::this_thread::sleep_for(std::chrono::microseconds(50));
                        runs[static_cast<std::size_t>(i)]++;
                        values[j++] = work(i);
                    }
                    if (t.rank() == leaver && static_cast<double>(part.lower()[0]) >= from * static_cast<double>(n))
                        away.leave(); // effective when this step ends
                },
                gather<double>{1}, mine);
    });
    auto const& root = out[static_cast<std::size_t>(o.root)];
    REQUIRE(root.value.size() == static_cast<std::size_t>(n));
    for (index_t i = 0; i < n; ++i) {
        if (o.reissue)
            REQUIRE(runs[static_cast<std::size_t>(i)] >= 1);
        else
            REQUIRE(runs[static_cast<std::size_t>(i)] == 1);
        CAPTURE(i);
        REQUIRE(root.value[static_cast<std::size_t>(i)] == work(i));
    }
    // It leaves at its next step: not at all if the step that asked ended its last chunk.
    auto const& left = root.statistics.departed;
    CHECK((left.empty() || left == std::vector<int>{leaver}));
    // Its first step is never a whole chunk here; with reissue, a copy may finish its chunk first.
    if (from == 0.0 && !o.reissue) CHECK(left == std::vector<int>{leaver});
    for (auto const& r : out) CHECK(r.statistics.departed == left);
}

} // namespace

TEST_CASE("parallel_for: a worker that leaves gives back its unfinished work; results as a sequential run") {
    for (bool reissue : {false, true})
        for (double from : {0.0, 0.5, 0.875})
            for (std::string spec : {"fss", "gss", "css:chunk=7", "af"}) {
                CAPTURE(reissue);
                CAPTURE(from);
                CAPTURE(spec);
                parallel_for_options o;
                o.reissue = reissue;
                o.departures = true;
                o.master_computes = false;
                check_departure(4, 600, parse_policy(spec), 2, from, o); // a worker of a dedicated master
                o.master_computes = true;
                check_departure(3, 600, parse_policy(spec), 1, from, o); // beside a computing master
                check_departure(3, 600, parse_policy(spec), 0, from, o); // the root's own worker
            }
    SUBCASE("the last worker to leave fails the loop on every rank, named") {
        std::vector<std::string> what(2);
        departure away;
        in_process::run(2, [&](in_process::endpoint& t) {
            parallel_for_options o;
            o.master_computes = false;
            o.departures = true;
            if (t.rank() == 1) o.leaving = &away;
            try {
                parallel_for(
                        t, make_range(100), gss{}, [&](index_range const&) { away.leave(); }, o);
            } catch (error const& e) {
                what[static_cast<std::size_t>(t.rank())] = e.what();
            }
        });
        for (auto const& w : what) CHECK(w.find("every worker left the loop") != std::string::npos);
    }
    SUBCASE("departures need what reissue needs, and a rank that may leave needs departures") {
        departure away;
        auto expect_all_fail = [&](parallel_for_options o, std::string const& parameter) {
            expect_every_rank_fails(
                    2, gss{},
                    [&](int rank) {
                        parallel_for_options mine = o;
                        if (rank == 1) mine.leaving = &away;
                        return mine;
                    },
                    parameter);
        };
        parallel_for_options ahead;
        ahead.departures = true;
        ahead.request_ahead = 0.5;
        expect_all_fail(ahead, "options.request_ahead");
        expect_all_fail({}, "options.departures");
    }
}

namespace {

/// A gathering TreeS loop on `ranks` threads, rank `slow` sleeping `pause` per
/// iteration: every iteration once, results on the root equal a sequential
/// run, and every rank got the same count of partner splits.
loop_statistics check_trees(int ranks, index_t n, any_policy const& policy, int slow, std::chrono::microseconds pause,
                            parallel_for_options o = {}) {
    std::vector<std::atomic<int>> runs(static_cast<std::size_t>(n));
    auto const out = run_with_slow_rank(ranks, n, policy, slow, pause, o, runs);
    auto const& root = out[static_cast<std::size_t>(o.root)];
    REQUIRE(root.value.size() == static_cast<std::size_t>(n));
    for (index_t i = 0; i < n; ++i) {
        REQUIRE(runs[static_cast<std::size_t>(i)] == 1);
        REQUIRE(root.value[static_cast<std::size_t>(i)] == work(i)); // bit-identical
    }
    for (auto const& r : out) CHECK(r.statistics.partner_splits == root.statistics.partner_splits);
    CHECK(root.statistics.iterations() == n); // a split's iterations count where they ran
    return root.statistics;
}

} // namespace

TEST_CASE("parallel_for with TreeS: idle workers take half of a partner's chunk; results once as a sequential run") {
    SUBCASE("a slow rank's share is split among the others") {
        for (bool computes : {false, true}) {
            CAPTURE(computes);
            parallel_for_options o;
            o.master_computes = computes;
            o.root = computes ? 0 : 3;
            // Even shares of 400 over 3 or 4 workers; rank 1's iterations take 500 us: its share alone 50-67 ms.
            auto const s = check_trees(4, 400, trees{}, 1, std::chrono::microseconds(500), o);
            CHECK(s.partner_splits >= 2);
            auto const slow = std::ranges::find(s.workers, 1, &worker_statistics::rank);
            REQUIRE(slow != s.workers.end());
            CHECK(slow->iterations < 400 / static_cast<index_t>(s.workers.size()));
            CHECK(s.parallel_seconds < 0.045);
        }
    }
    SUBCASE("shares by power: the first grants follow the powers") {
        parallel_for_options o;
        o.powers = {1.0, 3.0, 1.0};
        o.trace = true;
        auto const s = check_trees(3, 500, trees(trees::shares::power), -1, {}, o);
        // The shares are cut at 1/5 and 4/5 and granted at the loop's opening in worker order: each
        // rank's first chunk (the trace is in order of start) begins there, whatever it later gave away.
        std::vector<index_t> first(3, -1);
        for (auto const& e : s.trace)
            if (first[static_cast<std::size_t>(e.rank)] < 0) first[static_cast<std::size_t>(e.rank)] = e.first;
        CHECK(first == std::vector<index_t>{0, 100, 400});
    }
    SUBCASE("1 to 5 ranks, any root, computing and dedicated master, W over the shares") {
        for (int ranks : {1, 2, 3, 5})
            for (bool computes : {true, false})
                for (std::string spec : {"trees", "trees:shares=power", "w-trees"}) {
                    CAPTURE(ranks);
                    CAPTURE(computes);
                    CAPTURE(spec);
                    parallel_for_options o;
                    o.master_computes = computes;
                    o.root = ranks - 1;
                    o.powers.assign(static_cast<std::size_t>(ranks), 1.0);
                    o.powers[0] = 2.0;
                    check_trees(ranks, 1237, parse_policy(spec), 0, std::chrono::microseconds(30), o);
                }
    }
    SUBCASE("fewer iterations than workers, and an empty loop") {
        check_trees(4, 2, trees{}, 0, std::chrono::microseconds(100));
        check_trees(3, 0, trees{}, -1, {});
    }
    SUBCASE("what TreeS cannot go with fails on every rank, named") {
        auto expect_all_fail = [](parallel_for_options o, std::string const& parameter,
                                  any_mapping const& mapping = dynamic_mapping{}) {
            expect_every_rank_fails(3, trees{}, [&](int) { return o; }, parameter, mapping);
        };
        parallel_for_options fixed;
        fixed.deterministic = true;
        expect_all_fail(fixed, "options.deterministic");
        parallel_for_options copies;
        copies.reissue = true;
        expect_all_fail(copies, "options.reissue");
        parallel_for_options leaving;
        leaving.departures = true;
        expect_all_fail(leaving, "options.departures");
        expect_all_fail({}, "policy", static_block_mapping{});
    }
}
