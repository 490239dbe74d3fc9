// parallel_for_doacross on the in-process transport: the four test problems
// bit-identical to their sequential loops for many policies, intervals and
// rank counts; layouts chosen and given; work while waiting; errors.
#include "../../examples/doacross_kernels.hpp"

#include <loopsched/adaptor/synchronized.hpp>
#include <loopsched/adaptor/weighted.hpp>
#include <loopsched/algorithm/parallel_for_doacross.hpp>
#include <loopsched/any_policy.hpp>
#include <loopsched/dependence/layout.hpp>
#include <loopsched/dependence/uniform.hpp>
#include <loopsched/error.hpp>
#include <loopsched/options.hpp>
#include <loopsched/policies.hpp>
#include <loopsched/runtime/core/trace.hpp>
#include <loopsched/space/box.hpp>
#include <loopsched/space/window.hpp>
#include <loopsched/spec.hpp>
#include <loopsched/transport/in_process.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

using namespace loopsched;

namespace {

/// Runs kernel K on `ranks` in-process ranks and checks the root's fields
/// against the sequential loop, byte for byte; returns the root's result.
template <class K>
void check_kernel(int ranks, box<K::rank> const& space, any_policy const& policy, doacross_options options = {}) {
    auto const expected = kernels::raw_bytes(kernels::sequential<K>(space));
    std::vector<char> got;
    index_t iterations = 0;
    std::size_t chunk_dim = 0;
    in_process::run(ranks, [&](in_process::endpoint& t) {
        auto r = kernels::run<K>(t, space, policy, options);
        if (t.rank() == options.root) {
            got = kernels::raw_bytes(r.value);
            iterations = r.statistics.iterations();
            chunk_dim = r.layout.chunk_dim;
        }
    });
    INFO(K::name, " on ", ranks, " ranks with ", policy.spec());
    CHECK(got == expected);
    CHECK(iterations == space.extent(chunk_dim)); // every u_c position handed out once
    if (options.dimension) CHECK(chunk_dim == *options.dimension);
}

} // namespace

TEST_CASE("parallel_for_doacross: the four problems equal their sequential loops, many policies and intervals") {
    std::vector<std::string> const specs = {"s-css",        "s-css:chunk=1,h=1",
                                            "s-tss:h=3",    "s-gss:h=7",
                                            "s-fss:h=auto", "sw-tss",
                                            "sw-gss:h=2m",  "dmps-css:chunk=4,h=5",
                                            "dmps-tss:h=9", "dmps-dtss:h=11",
                                            "s-af",         "s-w-fac2:h=1",
                                            "s-static:h=6", "s-awf-b"};
    for (int ranks : {1, 2, 3, 4})
        for (auto const& spec : specs) {
            auto const policy = parse_policy(spec);
            check_kernel<kernels::heat>(ranks, box<2>::from_extents({23, 37}), policy);
            check_kernel<kernels::floyd_steinberg>(ranks, box<2>::from_extents({29, 31}), policy);
            check_kernel<kernels::hydro>(ranks, box<3>::from_extents({17, 5, 26}), policy);
            check_kernel<kernels::artificial>(ranks, box<2>::from_extents({30, 41}), policy);
        }
}

TEST_CASE("parallel_for_doacross: an output field written before it is read needs no initial values") {
    // Floyd-Steinberg's pixels are written, never read: make_field<std::uint8_t>() leaves
    // them unfilled on every rank (the window's storage comes uninitialised), and the
    // gathered image still equals the sequential one.
    using K = kernels::floyd_steinberg;
    auto const space = box<2>::from_extents({41, 37});
    auto const expected = kernels::raw_bytes(kernels::sequential<K>(space));
    for (int ranks : {1, 2, 4})
        for (std::string const spec : {"s-css:chunk=3,h=4", "sw-gss", "s-tss:h=auto"}) {
            std::vector<char> got;
            in_process::run(ranks, [&](in_process::endpoint& t) {
                auto r = parallel_for_doacross(t, space, K::dependences{}, parse_policy(spec),
                                               make_field<float>(&K::no_error), make_field<std::uint8_t>(),
                                               K::body{space}, gather<>{});
                if (t.rank() == 0) got = kernels::raw_bytes(r.value);
            });
            INFO(ranks, " ranks, ", spec);
            CHECK(got == expected);
            // Decided at run time: the pixels' initializer in an empty std::optional
            // (not filled); Heat's, which its body reads one row ahead, in a full one
            // (filled: unfilled, the result would differ).
            std::vector<char> decided, heat;
            auto const heat_space = box<2>::from_extents({23, 37});
            in_process::run(ranks, [&](in_process::endpoint& t) {
                auto r = parallel_for_doacross(t, space, K::dependences{}, parse_policy(spec),
                                               make_field<float>(&K::no_error),
                                               make_field<std::uint8_t>(std::optional<decltype(&K::black)>()),
                                               K::body{space}, gather<>{});
                doacross_options o;
                o.input_halo = kernels::heat::input_halo;
                auto h = parallel_for_doacross(t, heat_space, kernels::heat::dependences{}, parse_policy(spec),
                                               make_field<double>(std::optional(&kernels::heat::initial)),
                                               kernels::heat::body{heat_space}, gather<>{}, o);
                if (t.rank() == 0) {
                    decided = kernels::raw_bytes(r.value);
                    heat = kernels::raw_bytes(h.value);
                }
            });
            CHECK(decided == expected);
            CHECK(heat == kernels::raw_bytes(kernels::sequential<kernels::heat>(heat_space)));
        }
}

TEST_CASE("parallel_for_doacross: a worker's T_comp + T_wait fit in T_p, h=auto's measurements included") {
    // Before the loop the root measures the link and times the body (h=auto);
    // a worker's waiting then is not waiting inside the loop, which T_p times.
    for (char const* spec : {"s-tss:h=auto", "sw-tss:h=auto", "s-css:chunk=40,h=8"}) {
        CAPTURE(spec);
        loop_statistics stats;
        std::optional<interval_model> model;
        index_t h = 0;
        in_process::run(3, [&](in_process::endpoint& t) {
            doacross_options o;
            o.master_computes = false;
            // The root times the body before the loop (h=auto): slowly here,
            // so that the workers wait long for their first chunk.
            auto const space = box<2>::from_extents({400, 600});
            auto body = [&, inner = kernels::floyd_steinberg::body{space}](box<2> const& part, auto&... fields) {
                if (t.rank() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
                inner(part, fields...);
            };
            auto r = kernels::run_with<kernels::floyd_steinberg>(t, space, parse_policy(spec), body, o);
            if (t.rank() == 0) {
                stats = std::move(r.statistics);
                model = r.model;
                h = r.interval;
            } else {
                CHECK(!r.model); // the model is the root's
            }
        });
        // h=auto reports the model it measured; its h is the one that ran, and it predicts a time.
        CHECK(model.has_value() == std::string_view(spec).ends_with("h=auto"));
        if (model) {
            CHECK(static_cast<index_t>(std::round(model->optimal())) == h);
            CHECK(model->predicted_seconds(static_cast<double>(h)) > 0.0);
        }
        REQUIRE(stats.workers.size() == 2);
        for (auto const& w : stats.workers) {
            CAPTURE(w.rank);
            CHECK(w.compute_seconds + w.wait_seconds <= 1.25 * stats.parallel_seconds + 0.02);
        }
    }
}

TEST_CASE("parallel_for_doacross: S-A and SW-A for every policy of the catalogue") {
    for (auto name : policy_names())
        for (std::string prefix : {"s-", "sw-"}) {
            auto const policy = parse_policy(prefix + std::string(name) + ":h=3");
            if (name == trees::name) { // its partner splits would cut a pipeline's chunks: refused, named
                CHECK_THROWS_WITH(check_kernel<kernels::heat>(2, box<2>::from_extents({10, 10}), policy),
                                  doctest::Contains("is TreeS"));
                continue;
            }
            check_kernel<kernels::floyd_steinberg>(3, box<2>::from_extents({33, 27}), policy);
            check_kernel<kernels::hydro>(4, box<3>::from_extents({19, 5, 17}), policy);
        }
}

TEST_CASE("parallel_for_doacross: dedicated master, another root, chosen dimensions, uneven powers") {
    doacross_options dedicated;
    dedicated.master_computes = false;
    check_kernel<kernels::heat>(3, box<2>::from_extents({40, 30}), parse_policy("s-tss:h=4"), dedicated);
    check_kernel<kernels::floyd_steinberg>(4, box<2>::from_extents({40, 30}), parse_policy("s-gss:h=3"), dedicated);
    doacross_options last_root;
    last_root.root = 2;
    check_kernel<kernels::hydro>(3, box<3>::from_extents({20, 5, 20}), parse_policy("sw-fss"), last_root);
    // h = auto with one worker has no model optimum: the default interval runs.
    check_kernel<kernels::heat>(2, box<2>::from_extents({30, 40}), parse_policy("s-tss:h=auto"), dedicated);
    doacross_options chosen; // the library would pick u_s = 0 here; the user asks for u_c = 0
    chosen.dimension = 0;
    chosen.sync_dimension = 1;
    check_kernel<kernels::heat>(3, box<2>::from_extents({30, 40}), parse_policy("s-fss:h=5"), chosen);
    check_kernel<kernels::artificial>(4, box<2>::from_extents({40, 40}), parse_policy("s-tss:h=2"), chosen);
    doacross_options powers;
    powers.powers = {1.0, 0.5, 1.0};
    powers.run_queues = {1.0, 2.0, 1.0};
    check_kernel<kernels::artificial>(3, box<2>::from_extents({50, 50}), parse_policy("sw-css:chunk=9,h=5"), powers);
    powers.emulate_powers = true;
    check_kernel<kernels::heat>(3, box<2>::from_extents({50, 20}), parse_policy("dmps-dtss:h=6"), powers);
}

TEST_CASE("parallel_for_doacross: a box with an offset, empty and one-wide spaces, compile-time policies") {
    box<2> const offset({5, -3}, {25, 30});
    check_kernel<kernels::floyd_steinberg>(3, box<2>::from_extents({1, 40}), parse_policy("s-css:chunk=1"));
    check_kernel<kernels::heat>(3, box<2>::from_extents({40, 1}), parse_policy("s-tss"));
    check_kernel<kernels::heat>(3, box<2>::from_extents({0, 10}), parse_policy("s-tss"));
    // Body over a box that does not start at the origin: the windows use the loop's indices.
    std::vector<double> par, seq;
    auto init = [](box<2>::point const& p) { return static_cast<double>(p[0] - 2 * p[1]); };
    auto body = [](box<2> const& part, window<double, 2>& a) {
        for (index_t i = part.lower()[0]; i < part.upper()[0]; ++i)
            for (index_t j = part.lower()[1]; j < part.upper()[1]; ++j)
                a(i, j) = 0.5 * (a.contains({i - 1, j}) ? a(i - 1, j) : 1.0) + 0.25 * (j > -3 ? a(i, j - 1) : 2.0) +
                          a(i, j);
    };
    uniform<vec{1, 0}, vec{0, 1}> deps;
    for (int ranks : {1, 3})
        in_process::run(ranks, [&](in_process::endpoint& t) {
            auto r = parallel_for_doacross(t, offset, deps, synchronized(weighted(fss{}), sync_interval::fixed(4)),
                                           make_field<double>(init), body, gather<>{});
            if (t.rank() == 0) (ranks == 1 ? seq : par).assign(r.array().values().begin(), r.array().values().end());
        });
    CHECK(seq.size() == static_cast<std::size_t>(offset.size()));
    CHECK(par == seq);
}

TEST_CASE("parallel_for_doacross: dependences that never cross chunks need no messages") {
    // (0,1) only: with u_c = 0 nothing reaches back across a chunk (reach 0).
    auto body = [](box<2> const& part, window<double, 2>& a) {
        for (index_t i = part.lower()[0]; i < part.upper()[0]; ++i)
            for (index_t j = part.lower()[1]; j < part.upper()[1]; ++j)
                a(i, j) = 0.5 * (j > 0 ? a(i, j - 1) : 1.0) + a(i, j);
    };
    auto init = [](box<2>::point const& p) { return static_cast<double>(p[0] % 5); };
    box<2> const space = box<2>::from_extents({40, 60});
    uniform<vec{0, 1}> deps;
    CHECK(choose_layout(deps, {40, 60}).reach == 0);
    std::vector<double> seq, par;
    for (int ranks : {1, 3})
        in_process::run(ranks, [&](in_process::endpoint& t) {
            auto r = parallel_for_doacross(t, space, deps, parse_policy("s-gss:h=7"), make_field<double>(init), body, gather<>{});
            if (t.rank() == 0) (ranks == 1 ? seq : par).assign(r.array().values().begin(), r.array().values().end());
        });
    CHECK(par == seq);
}

TEST_CASE("parallel_for_doacross: every point runs exactly once, results stay on the ranks without gather") {
    box<2> const space = box<2>::from_extents({31, 27});
    std::vector<std::atomic<int>> runs(static_cast<std::size_t>(space.size()));
    doacross_options options;
    options.trace = true;
    std::size_t events = 0;
    in_process::run(4, [&](in_process::endpoint& t) {
        auto r = parallel_for_doacross(
                t, space, uniform<vec{1, 1}, vec{0, 2}>{}, parse_policy("s-gss:h=2"),
                make_field<int>([](auto const&) { return 0; }),
                [&](box<2> const& part, window<int, 2>& a) {
                    REQUIRE(part.size() > 0);
                    a.for_each_point(part, [&](auto const& p) {
                        ++runs[static_cast<std::size_t>(p[0] * 27 + p[1])];
                        a[p] = 1;
                    });
                },
                options);
        CHECK(r.array().values().empty());
        if (t.rank() == 0) events = r.statistics.trace.size();
    });
    for (auto const& n : runs) REQUIRE(n == 1);
    CHECK(events > 0);
}

namespace {

/// What a run with one slow rank shows: the iterations each rank ran and the
/// widest subchunk (trace event) of each rank.
struct slow_rank_run {
    std::vector<index_t> iterations, widest;
};

/// Kernel K with rank `slow` sleeping `pause` per subchunk (20 times longer
/// than the others): the other ranks,
/// behind it in the pipeline, stall and take the next chunk while they wait.
/// Checks the result against the sequential loop byte for byte.
template <class K>
slow_rank_run run_with_a_slow_rank(int ranks, int slow, box<K::rank> const& space, std::string const& spec, bool extend,
                                   std::chrono::microseconds pause) {
    auto const expected = kernels::raw_bytes(kernels::sequential<K>(space));
    std::vector<char> got;
    slow_rank_run out;
    doacross_options options;
    options.input_halo = K::input_halo;
    options.extend_when_waiting = extend;
    options.trace = true;
    in_process::run(ranks, [&](in_process::endpoint& t) {
        typename K::body const body{space};
        auto const slowed = [&](box<K::rank> const& part, auto&... arrays) {
            // The others pause too, briefly: the loop must last until every rank has joined.
            std::this_thread::sleep_for(t.rank() == slow ? pause : pause / 20);
            body(part, arrays...);
        };
        auto r = std::apply(
                [&](auto const&... f) {
                    return parallel_for_doacross(t, space, typename K::dependences{}, parse_policy(spec), f..., slowed,
                                                 gather<>{}, options);
                },
                K::fields());
        if (t.rank() == 0) {
            got = kernels::raw_bytes(r.value);
            out.widest.assign(static_cast<std::size_t>(ranks), 0);
            for (auto const& w : r.statistics.workers) out.iterations.push_back(w.iterations);
            for (auto const& e : r.statistics.trace)
                out.widest[static_cast<std::size_t>(e.rank)] =
                        std::max(out.widest[static_cast<std::size_t>(e.rank)], e.size);
        }
    });
    INFO(K::name, " on ", ranks, " ranks with ", spec, extend ? ", extending" : ", one chunk at a time");
    CHECK(got == expected);
    return out;
}

} // namespace

TEST_CASE("parallel_for_doacross: a rank stalled behind a slower one takes the next chunk too, results unchanged") {
    using namespace std::chrono_literals;
    // Chunks of 8 on two ranks, rank 1 far slower. One chunk at a time, no
    // subchunk is wider than a chunk; extending, rank 0 joins the next chunk
    // to the one it is stalled on, and runs subchunks over both.
    box<2> const space = box<2>::from_extents({40, 64});
    auto const strict = run_with_a_slow_rank<kernels::heat>(2, 1, space, "s-css:chunk=8,h=4", false, 2ms);
    REQUIRE(strict.iterations.size() == 2);
    CHECK(strict.widest[0] <= 8);
    CHECK(strict.widest[1] <= 8);
    auto const extended = run_with_a_slow_rank<kernels::heat>(2, 1, space, "s-css:chunk=8,h=4", true, 2ms);
    REQUIRE(extended.iterations.size() == 2);
    INFO("iterations ", extended.iterations[0], " and ", extended.iterations[1], ", widest ", extended.widest[0],
         " and ", extended.widest[1]);
    CHECK(extended.iterations[0] + extended.iterations[1] == strict.iterations[0] + strict.iterations[1]);
    CHECK(extended.iterations[0] > extended.iterations[1]);
    CHECK(extended.widest[0] > 8);
    CHECK(extended.widest[1] <= 8); // the slow rank never stalls
    // With skew (Floyd-Steinberg): the joined chunk's subchunks are shifted per position.
    auto const fs = run_with_a_slow_rank<kernels::floyd_steinberg>(2, 1, box<2>::from_extents({36, 60}),
                                                                   "s-css:chunk=4,h=3", true, 2ms);
    CHECK(fs.widest[0] > 4);
    // In three dimensions (Hydro), on more ranks, with a slow root, with
    // weighting and DMPS: whatever is joined, the results stay exact.
    run_with_a_slow_rank<kernels::hydro>(3, 1, box<3>::from_extents({30, 5, 24}), "s-tss:h=4", true, 1ms);
    run_with_a_slow_rank<kernels::artificial>(4, 0, box<2>::from_extents({40, 48}), "sw-gss:h=5", true, 1ms);
    run_with_a_slow_rank<kernels::heat>(4, 3, box<2>::from_extents({30, 50}), "dmps-dtss:h=3", true, 1ms);
}

TEST_CASE("parallel_for_doacross: errors fail every rank, policies without S are refused") {
    box<2> const space = box<2>::from_extents({30, 30});
    for (int failing : {0, 1, 2})
        for (bool computes : {true, false}) {
            if (!computes && failing == 0) continue;
            std::vector<std::string> seen(3);
            doacross_options options;
            options.master_computes = computes;
            CHECK_THROWS_AS(in_process::run(3,
                                            [&](in_process::endpoint& t) {
                                                try {
                                                    (void)parallel_for_doacross(
                                                            t, space, uniform<vec{1, 0}, vec{0, 1}>{},
                                                            parse_policy("s-css:chunk=2,h=3"),
                                                            make_field<double>([](auto const&) { return 0.0; }),
                                                            [&](box<2> const&, window<double, 2>&) {
                                                                // Slow enough that every rank gets chunks before the
                                                                // loop ends.
                                                                std::this_thread::sleep_for(
                                                                        std::chrono::microseconds(200));
                                                                if (t.rank() == failing)
                                                                    throw std::runtime_error("boom");
                                                            },
                                                            options);
                                                } catch (remote_error const& e) {
                                                    seen[static_cast<std::size_t>(t.rank())] = e.original_message();
                                                    CHECK(e.origin_rank() == failing);
                                                    throw;
                                                }
                                            }),
                            remote_error);
            for (auto const& s : seen) CHECK(s == "boom");
        }
    in_process::run(2, [&](in_process::endpoint& t) {
        CHECK_THROWS_WITH_AS(kernels::run<kernels::heat>(t, box<2>::from_extents({5, 5}), parse_policy("tss")),
                             doctest::Contains("needs the synchronization adaptor"), invalid_parameter);
        doacross_options bad;
        bad.dimension = 1;
        CHECK_THROWS_AS(kernels::run<kernels::heat>(t, box<2>::from_extents({5, 5}), parse_policy("s-tss"), bad),
                        invalid_parameter);
        bad.sync_dimension = 1;
        CHECK_THROWS_AS(kernels::run<kernels::heat>(t, box<2>::from_extents({5, 5}), parse_policy("s-tss"), bad),
                        invalid_parameter);
        bad.sync_dimension = 0;
        bad.input_halo = -1;
        CHECK_THROWS_AS(parallel_for_doacross(t, box<2>::from_extents({5, 5}), kernels::heat::dependences{},
                                              parse_policy("s-tss"), make_field<double>(&kernels::heat::initial),
                                              kernels::heat::body{}, bad),
                        invalid_parameter);
    });
}

TEST_CASE("parallel_for_doacross: h and the input halo at the limit of index_t still give the sequential result") {
    auto const space = box<2>::from_extents({30, 40});
    auto const expected = kernels::raw_bytes(kernels::sequential<kernels::heat>(space));
    index_t const most = std::numeric_limits<index_t>::max();
    for (int ranks : {2, 3}) {
        std::vector<std::vector<char>> got(2);
        in_process::run(ranks, [&](in_process::endpoint& t) {
            auto a =
                    kernels::run<kernels::heat>(t, space, any_policy(synchronized(css(4), sync_interval::fixed(most))));
            doacross_options halo;
            halo.input_halo = most;
            auto b = kernels::run<kernels::heat>(t, space, parse_policy("s-css:chunk=4,h=3"), halo);
            if (t.rank() == 0) {
                got[0] = kernels::raw_bytes(a.value);
                got[1] = kernels::raw_bytes(b.value);
                CHECK(a.interval == most);
            }
        });
        CHECK(got[0] == expected);
        CHECK(got[1] == expected);
    }
}
