// The runtime's own engines on the SimGrid transport: exactly-once and
// bit-identical results as on real transports, simulated times that follow
// the platform (speeds, links, background load), the error paths.
#include "../../examples/dnc_problems.hpp"
#include "../../examples/doacross_kernels.hpp"
#include "../../examples/uts.hpp"

#include <loopsched/adaptor/synchronized.hpp>
#include <loopsched/algorithm/divide_and_conquer.hpp>
#include <loopsched/algorithm/parallel_for.hpp>
#include <loopsched/algorithm/parallel_for_doacross.hpp>
#include <loopsched/algorithm/task_farm.hpp>
#include <loopsched/any_policy.hpp>
#include <loopsched/concepts.hpp>
#include <loopsched/error.hpp>
#include <loopsched/hierarchical.hpp>
#include <loopsched/mapping/dlpt.hpp>
#include <loopsched/policy/automatic.hpp>
#include <loopsched/space/box.hpp>
#include <loopsched/spec.hpp>
#include <loopsched/this_task.hpp>
#include <loopsched/transport/simgrid.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <numeric>
#include <optional>
#include <tuple>
#include <vector>

using namespace loopsched;

namespace {

/// 1 master + the given workers, all on 100 Mbit/s links.
sim::platform cluster(std::vector<double> const& worker_speeds, std::vector<int> const& background = {}) {
    sim::platform p;
    p.add({"master", 1e9, 12.5e6, 50e-6, 0});
    for (std::size_t k = 0; k < worker_speeds.size(); ++k)
        p.add({"w" + std::to_string(k + 1), worker_speeds[k], 12.5e6, 50e-6, background.empty() ? 0 : background[k]});
    return p;
}

/// A master and 4 equal workers, `count` of them (chosen by `seed`) failing
/// at random times in [0.02, 0.6] s.
sim::platform randomly_failing(int count, unsigned seed) {
    auto p = cluster({1e9, 1e9, 1e9, 1e9});
    std::mt19937 random(seed);
    std::vector<int> ranks{1, 2, 3, 4};
    std::shuffle(ranks.begin(), ranks.end(), random);
    std::uniform_real_distribution<double> when(0.02, 0.6);
    for (int i = 0; i < count; ++i) p.fail({.rank = ranks[static_cast<std::size_t>(i)], .at = when(random)});
    return p;
}

std::string testing_text(std::vector<int> const& ranks) {
    std::string out;
    for (int r : ranks) out += (out.empty() ? "" : ",") + std::to_string(r);
    return "{" + out + "}";
}

/// Every simulator of this program, made before any runs (SimGrid seals its
/// platform when the first simulation starts).
struct clusters {
    sim::simulator mixed{cluster({3e9, 1e9, 1e9, 2e9}, {0, 1, 0, 2})};
    sim::simulator equal{cluster({1e9, 1e9})};
    sim::simulator fast_slow{cluster({3e9, 1e9})};
    sim::simulator free_loaded{cluster({1e9, 1e9}, {0, 1})};
    sim::simulator three{cluster({2e9, 1e9, 1e9}, {0, 1, 0})};
    sim::simulator doacross{cluster({1e9, 0.5e9, 1e9}, {0, 1, 0})};
    sim::simulator plain{cluster({1e9, 1e9, 1e9})};
    sim::simulator four_one{cluster({4e9, 1e9, 1e9, 1e9})};
    sim::simulator nine{cluster({2e9, 1e9, 1e9, 1e9, 2e9, 1e9, 1e9, 1e9, 3e9}, {0, 0, 1, 0, 0, 0, 2, 0, 0})};
    sim::simulator sixty_four{cluster(std::vector<double>(64, 1e9))};
    // Three groups of four in rank order: four times, once and twice as fast.
    sim::simulator three_groups{cluster({4e9, 4e9, 4e9, 4e9, 1e9, 1e9, 1e9, 1e9, 2e9, 2e9, 2e9, 2e9})};
    sim::simulator many{cluster(std::vector<double>(511, 1e9))};
    sim::simulator most{cluster(std::vector<double>(1023, 1e9))};
    sim::simulator switched4{cluster({1e9, 1e9, 1e9})};
    sim::simulator shared4{cluster({1e9, 1e9, 1e9}).share_medium(12.5e6)};
    // Rank 1 10x slower from 0.25 s; rank 2 stopped from 0.1 to 0.3 s; rank 3 at half speed
    // for the first 0.1 s of every 0.2 s.
    sim::simulator perturbed{[] {
        auto p = cluster({1e9, 1e9, 1e9});
        p.perturb({.rank = 1, .from = 0.25, .slowdown = 10.0});
        p.perturb({.rank = 2, .from = 0.1, .until = 0.3, .slowdown = std::numeric_limits<double>::infinity()});
        p.perturb({.rank = 3, .slowdown = 2.0, .period = 0.2, .on = 0.1});
        return p;
    }()};
    // Rank 1 10x slower from 0.3 s: reissue's test.
    sim::simulator slowed{[] {
        auto p = cluster({1e9, 1e9, 1e9, 1e9});
        p.perturb({.rank = 1, .from = 0.3, .slowdown = 10.0});
        return p;
    }()};
    // Ranks 2 and 4's hosts fail at 0.3 and 0.7 s: the failure detector's test.
    sim::simulator failing{[] {
        auto p = cluster({1e9, 1e9, 1e9, 1e9});
        p.fail({.rank = 4, .at = 0.7});
        p.fail({.rank = 2, .at = 0.3});
        return p;
    }()};
    // A master and 4 workers; 1, 2 and all 4 workers' hosts fail at random times in the
    // first 0.6 s (seeded): failures at any moment, the root left alone at worst.
    sim::simulator random_failures[3] = {sim::simulator(randomly_failing(1, 11)), sim::simulator(randomly_failing(2, 12)),
                                         sim::simulator(randomly_failing(4, 13))};
    sim::simulator charged{cluster({1e9}), [] {
                               sim::simulation_options o;
                               o.charge_engine_time = true;
                               return o;
                           }()};
    // Rank 0's host 10x slower throughout, 5 us of CPU per message: a master
    // that slows its workers.
    sim::simulator slowed_root{[] {
                                   auto p = cluster({1e9, 1e9, 1e9, 1e9});
                                   p.perturb({.rank = 0, .slowdown = 10.0});
                                   return p;
                               }(),
                               [] {
                                   sim::simulation_options o;
                                   o.message_overhead = 5e-6;
                                   return o;
                               }()};
    // Remote atomics whose service at rank 0's interface (10 us) outlasts their latency.
    sim::simulator queued_atomics{cluster({1e9, 1e9}), [] {
                                      sim::simulation_options o;
                                      o.atomic_latency = 2e-6;
                                      o.atomic_service = 1e-5;
                                      return o;
                                  }()};
    sim::simulator rendezvous{cluster({1e9}), [] {
                                  sim::simulation_options o;
                                  o.rendezvous_bytes = 1000;
                                  o.rendezvous_round_trip = 1e-3;
                                  return o;
                              }()};
};
clusters& all() {
    static clusters c;
    return c;
}

bytes bytes_of(std::size_t n) { return bytes(n, std::byte{1}); }

double seconds_per_iteration(worker_statistics const& w) {
    return w.compute_seconds / static_cast<double>(w.iterations);
}

struct doall_outcome {
    loop_statistics root;
    std::vector<int> runs;
};

/// A DOALL loop of n iterations of `flops` each, on a dedicated master.
doall_outcome run_doall(sim::simulator& s, index_t n, any_policy const& policy, double flops,
                        bool master_computes = false, bool reissue = false) {
    doall_outcome out;
    out.runs.assign(static_cast<std::size_t>(n), 0);
    s.run([&](sim::transport& t) {
        parallel_for_options o;
        o.master_computes = master_computes;
        o.reissue = reissue;
        o.powers = s.layout().powers();
        o.run_queues = s.layout().run_queues();
        auto stats = parallel_for(
                t, make_range(n), policy,
                [&](index_range const& part) {
                    REQUIRE(part.size() > 0);
                    for (index_t i : part.indices()) out.runs[static_cast<std::size_t>(i)]++; // actors share one thread
                    t.compute(flops * static_cast<double>(part.size()));
                },
                o).statistics;
        if (t.rank() == 0) out.root = stats;
    });
    return out;
}

} // namespace

TEST_CASE("simgrid: every policy runs every iteration exactly once on a heterogeneous, loaded cluster") {
    auto& s = all().mixed;
    for (auto name : policy_names())
        for (std::string spec : {std::string(name), "w-" + std::string(name)}) {
            CAPTURE(spec);
            for (bool master_computes : {false, true}) {
                auto const r = run_doall(s, 997, parse_policy(spec), 1e6, master_computes);
                for (int c : r.runs) REQUIRE(c == 1);
                CHECK(r.root.iterations() == 997);
                CHECK(r.root.parallel_seconds > 0.0);
            }
        }
}

TEST_CASE("simgrid: without a master, every accepted policy runs each iteration once, the policy's chunks, any root") {
    auto& s = all().mixed;
    for (char const* spec : {"static", "ss", "css:chunk=9", "mfsc", "gss", "tss", "fss", "fac2", "fiss", "tfss",
                             "fsc:h=1e-4,sigma=1e-3", "rnd:seed=3"})
        for (int root : {0, 4}) {
            CAPTURE(spec);
            CAPTURE(root);
            std::vector<int> runs(1001, 0);
            gathered<double> at_root;
            s.run([&](sim::transport& t) {
                parallel_for_options o;
                o.masterless = true;
                o.root = root;
                o.trace = true;
                auto out = parallel_for(
                        t, make_range(1001), parse_policy(spec),
                        [&](index_range const& part, std::span<double> values) {
                            std::size_t j = 0;
                            for (index_t i : part.indices()) {
                                runs[static_cast<std::size_t>(i)]++; // actors share one thread
                                values[j++] = std::sqrt(static_cast<double>(i));
                            }
                            t.compute(1e5 * static_cast<double>(part.size()));
                        },
                        gather<double>{}, o);
                if (t.rank() == root) at_root = std::move(out);
            });
            for (int c : runs) REQUIRE(c == 1);
            REQUIRE(at_root.value.size() == 1001);
            for (std::size_t i = 0; i < 1001; ++i) REQUIRE(at_root.value[i] == std::sqrt(static_cast<double>(i)));
            std::vector<chunk> expected, ran;
            for (auto const& a : round_robin_schedule(parse_policy(spec), loop_info{1001, 5, {}})) expected.push_back(a.range);
            for (auto const& e : at_root.statistics.trace) ran.push_back(chunk{e.first, e.size});
            std::ranges::sort(ran, {}, &chunk::first);
            CHECK(ran == expected);
        }
}

TEST_CASE("simgrid: without a master, the trace's chunk times are the simulated ones, on one clock, whether the "
          "reports come straight or the rows up the tree") {
    auto& s = all().mixed;
    for (bool gathering : {true, false}) {
        CAPTURE(gathering);
        std::map<index_t, std::pair<double, double>> truth; // a chunk's first iteration: when it ran
        loop_statistics at_root;
        s.run([&](sim::transport& t) {
            parallel_for_options o;
            o.masterless = true;
            o.trace = true;
            auto const body = [&](index_range const& part) {
                double const begin = t.now();
                t.compute(1e5 * static_cast<double>(part.size() * (1 + part.lower()[0] % 7)));
                truth[part.lower()[0]] = {begin, t.now()};
            };
            auto const stats =
                    gathering ? parallel_for(t, make_range(1001), parse_policy("fss"),
                                             [&](index_range const& part, std::span<double>) { body(part); },
                                             gather<double>{}, o)
                                        .statistics
                              : parallel_for(t, make_range(1001), parse_policy("fss"), body, o).statistics;
            if (t.rank() == 0) at_root = stats;
        });
        REQUIRE(at_root.trace.size() == truth.size());
        // One clock: every chunk's traced time is its simulated time less the
        // same origin, to within the go's latency through the tree (two hops
        // here, tens of microseconds each). Aligning the clocks as the
        // reports came would put the chunks of ranks that reported while
        // rank 0 computed tens of milliseconds late.
        double lowest = 1e9, highest = -1e9;
        for (auto const& e : at_root.trace) {
            auto const& [begin, end] = truth.at(e.first);
            CHECK(e.end - e.start == doctest::Approx(end - begin).epsilon(1e-9));
            lowest = std::min(lowest, begin - e.start);
            highest = std::max(highest, begin - e.start);
        }
        CHECK(highest - lowest < 1e-3);
    }
}

TEST_CASE("simgrid: without a master, policies that depend on who claims run each iteration once, each chunk what "
          "the policy grants its claimant in the order of the claims") {
    auto& s = all().mixed;
    std::vector<double> const powers{1.0, 3.0, 1.0, 2.0, 0.5};
    for (char const* spec : {"w-gss", "w-fss", "wf", "dtss", "dfss", "dfiss", "dtfss"}) {
        CAPTURE(spec);
        std::vector<int> runs(1001, 0);
        gathered<double> at_root;
        s.run([&](sim::transport& t) {
            parallel_for_options o;
            o.masterless = true;
            o.trace = true;
            o.powers = powers;
            o.run_queues.assign(powers.size(), 1.0);
            auto out = parallel_for(
                    t, make_range(1001), parse_policy(spec),
                    [&](index_range const& part, std::span<double> values) {
                        std::size_t j = 0;
                        for (index_t i : part.indices()) {
                            runs[static_cast<std::size_t>(i)]++;
                            values[j++] = std::sqrt(static_cast<double>(i));
                        }
                        t.compute(1e5 * static_cast<double>(part.size()));
                    },
                    gather<double>{}, o);
            if (t.rank() == 0) at_root = std::move(out);
        });
        for (int c : runs) REQUIRE(c == 1);
        REQUIRE(at_root.value.size() == 1001);
        for (std::size_t i = 0; i < 1001; ++i) REQUIRE(at_root.value[i] == std::sqrt(static_cast<double>(i)));
        auto trace = at_root.statistics.trace;
        std::ranges::sort(trace, {}, [](auto const& e) { return e.first; });
        std::vector<worker_status> statuses;
        for (double p : powers) statuses.push_back(worker_status{p, 1.0});
        loop_info const info{1001, powers.size(), statuses};
        chunk_sequencer<any_policy> seq(parse_policy(spec), info);
        for (auto const& e : trace) {
            auto const k = static_cast<std::size_t>(e.rank);
            CHECK(seq.next(request{k, info.of(k), {}}) == std::optional(chunk{e.first, e.size}));
        }
    }
}

TEST_CASE("simgrid: with the root's host slowed, an automatic policy that tries loops without a master picks one") {
    any_policy const policy = parse_policy("auto:masterless=true,candidates=ss,key=simgrid_slowed_root");
    auto const* chooser = policy.target<automatic>();
    REQUIRE(chooser != nullptr);
    chooser->reset();
    std::vector<int> runs(2000, 0);
    all().slowed_root.run([&](sim::transport& t) {
        for (int execution = 0; execution < 4; ++execution)
            parallel_for(t, make_range(2000), policy, [&](index_range const& part) {
                for (index_t i : part.indices()) runs[static_cast<std::size_t>(i)]++;
                t.compute(1e5 * static_cast<double>(part.size()));
            });
    });
    for (int c : runs) REQUIRE(c == 4);
    auto const h = chooser->history();
    REQUIRE(h.candidates == std::vector<std::string>{"ss", "masterless ss"});
    REQUIRE(h.records.size() == 4);
    // Trials (the last choice first), then the faster: the loop without a master.
    CHECK(h.records[0].scheme == "masterless ss");
    CHECK(h.records[1].scheme == "ss");
    CHECK(h.records[0].seconds < 0.8 * h.records[1].seconds);
    for (std::size_t i = 2; i < 4; ++i) {
        CHECK(h.records[i].scheme == "masterless ss");
        CHECK(h.records[i].reason == selection_reason::best);
    }
}

TEST_CASE("simgrid: without a master, atomics queue at the counter host's interface, one service time each") {
    // 3 ranks claim 3,000 steps of empty iterations (and one past the end each):
    // at 10 us an atomic, rank 0's interface serves them one after another.
    double seconds = 0.0;
    all().queued_atomics.run([&](sim::transport& t) {
        parallel_for_options o;
        o.masterless = true;
        auto const stats = parallel_for(t, make_range(3000), parse_policy("ss"), [](index_range const&) {}, o).statistics;
        if (t.rank() == 0) seconds = stats.parallel_seconds;
    });
    double const serial = 3003 * 1e-5;
    CHECK(seconds >= serial);
    CHECK(seconds <= serial * 1.05);
}

TEST_CASE("simgrid: simulated time follows the hosts' speeds, links and load") {
    SUBCASE("two equal workers, two equal chunks: T_p = half the work plus two round trips") {
        auto& s = all().equal;
        auto const r = run_doall(s, 100, parse_policy("css:chunk=50"), 1e7);
        // 50 x 10 ms of work; messages cross two 50 us links (and a few bytes at 12.5 MB/s).
        CHECK(r.root.parallel_seconds == doctest::Approx(0.5).epsilon(0.01));
        CHECK(r.root.parallel_seconds > 0.5 + 2 * 100e-6);
    }
    SUBCASE("a host 3x as fast computes the same chunk in a third of the time") {
        auto& s = all().fast_slow;
        auto const r = run_doall(s, 100, parse_policy("css:chunk=10"), 1e7);
        CHECK(seconds_per_iteration(r.root.workers[0]) ==
              doctest::Approx(seconds_per_iteration(r.root.workers[1]) / 3.0).epsilon(1e-6));
    }
    SUBCASE("one competing process halves a host's speed, and the load-aware scheme sees Q = 2") {
        auto& s = all().free_loaded;
        auto const r = run_doall(s, 100, parse_policy("css:chunk=10"), 1e7);
        CHECK(seconds_per_iteration(r.root.workers[1]) ==
              doctest::Approx(2.0 * seconds_per_iteration(r.root.workers[0])).epsilon(1e-6));
        auto const d = run_doall(s, 1000, parse_policy("dtss"), 1e6);
        CHECK(d.root.workers[0].iterations > d.root.workers[1].iterations);
    }
    SUBCASE("the same simulation twice gives the same times (deterministic)") {
        auto& s = all().three;
        auto const a = run_doall(s, 500, parse_policy("w-fss"), 1e6);
        auto const b = run_doall(s, 500, parse_policy("w-fss"), 1e6);
        CHECK(a.root.parallel_seconds == b.root.parallel_seconds);
        for (std::size_t k = 0; k < a.root.workers.size(); ++k)
            CHECK(a.root.workers[k].iterations == b.root.workers[k].iterations);
    }
    SUBCASE("charged engine time starts with each run: the real time between two runs is not charged") {
        auto& s = all().charged;
        auto program = [&](sim::transport& t) {
            (void)parallel_for(t, make_range(100), parse_policy("ss"),
                               [&](index_range const& part) { t.compute(1e6 * static_cast<double>(part.size())); });
        };
        (void)s.run(program);
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        auto const second = s.run(program);
        REQUIRE(second.engine_seconds.size() == 2);
        for (double e : second.engine_seconds) CHECK(e < 0.1); // 0.3 s and more when the stopwatch ran on
    }
}

TEST_CASE("simgrid: a large message moves at the sender's first transport call after the clear-to-send (rendezvous)") {
    auto& s = all().rendezvous;
    // Rank 0 sends, then computes 1 s (1e9 flops on a 1e9 flop/s host) before it calls the transport again.
    auto arrival = [&](std::size_t bytes, bool receive_after, bool small_behind) {
        double at = 0.0;
        int first_tag = 0;
        s.run([&](sim::transport& t) {
            if (t.rank() == 0) {
                t.send(1, 1, bytes_of(bytes));
                if (small_behind) t.send(1, 2, bytes_of(8));
                t.compute(1e9);
                if (receive_after)
                    t.receive(1, 3); // a blocking receive moves it (MPI progresses)
                else
                    t.send(1, 3, bytes_of(8)); // so does a later send
            } else {
                double const start = t.now(); // the simulated clock runs on across runs
                message m = t.receive(0, any_tag);
                at = t.now() - start;
                first_tag = m.tag;
                if (small_behind) CHECK(t.receive(0, any_tag).tag == 2);
                if (receive_after)
                    t.send(0, 3, bytes_of(8));
                else
                    t.receive(0, 3);
            }
        });
        if (small_behind) CHECK(first_tag == 1); // the small message does not overtake the held one
        return at;
    };
    CHECK(arrival(999, false, false) < 0.01);                                 // eager: there within the link's latency
    CHECK(arrival(1000, false, false) == doctest::Approx(1.0).epsilon(0.01)); // after the sender's second of work
    CHECK(arrival(1000, false, true) == doctest::Approx(1.0).epsilon(0.01));
    CHECK(arrival(1000, true, false) == doctest::Approx(1.0).epsilon(0.01));
}

TEST_CASE("simgrid: on a shared medium two transfers between four hosts share its bandwidth") {
    // 1 -> 0 and 3 -> 2 at once, 1.25 MB each: switched, each crosses links of its own at
    // 12.5 MB/s (0.1 s); on one 12.5 MB/s medium they split it (0.2 s).
    auto both = [](sim::simulator& s) {
        double longest = 0.0;
        s.run([&](sim::transport& t) {
            double const start = t.now();
            if (t.rank() % 2 == 1) {
                t.send(t.rank() - 1, 1, bytes_of(1'250'000));
            } else {
                (void)t.receive(t.rank() + 1, 1);
                longest = std::max(longest, t.now() - start);
            }
        });
        return longest;
    };
    CHECK(both(all().switched4) == doctest::Approx(0.1).epsilon(0.02));
    CHECK(both(all().shared4) == doctest::Approx(0.2).epsilon(0.02));
    sim::platform p;
    CHECK_THROWS_WITH(p.share_medium(0.0), doctest::Contains("shared medium bandwidth = 0"));
}

TEST_CASE("simgrid: a host's speed changes mid-run as its perturbations say, in every run") {
    auto& s = all().perturbed;
    // Flops each rank computes from the run's start, and when it is done.
    auto finish_times = [&](std::vector<double> const& flops) {
        std::vector<double> done(flops.size());
        s.run([&](sim::transport& t) {
            double const start = t.now();
            t.compute(flops[static_cast<std::size_t>(t.rank())]);
            done[static_cast<std::size_t>(t.rank())] = t.now() - start;
        });
        return done;
    };
    for (int run = 0; run < 2; ++run) { // times count from each run's start
        auto const done = finish_times({0.0, 1e9, 0.5e9, 0.3e9});
        CHECK(done[1] == doctest::Approx(0.25 + 0.75e9 / 1e8).epsilon(1e-6)); // 10x slower after 0.25 s
        CHECK(done[2] == doctest::Approx(0.1 + 0.2 + 0.4).epsilon(1e-6));      // stopped for 0.2 s
        CHECK(done[3] == doctest::Approx(0.4).epsilon(1e-6)); // 0.05 + 0.1 Gflop in each 0.2 s
    }
    auto const& p = s.layout();
    CHECK(p.speed_at(1, 0.2) == 1e9);
    CHECK(p.speed_at(1, 0.3) == 1e8);
    CHECK(p.speed_at(2, 0.2) == 0.0);
    CHECK(p.speed_at(3, 0.45) == 0.5e9);
    CHECK(p.speed_at(3, 0.55) == 1e9);
    // The ideal over ranks 1-3, in Gflop/s: 2.5 to 0.1 s (rank 3 loaded), 2 to 0.2 s (rank 2
    // stopped), 1.5 to 0.25 s (rank 3 loaded again), 0.6 to 0.3 s (rank 1 slow), then 2.1.
    CHECK(p.ideal_seconds(0.45e9) == doctest::Approx(0.2).epsilon(1e-9));
    CHECK(p.ideal_seconds(0.6e9) == doctest::Approx(0.3 + 0.045e9 / 2.1e9).epsilon(1e-9));
    sim::platform bad = cluster({1e9});
    CHECK_THROWS_WITH(bad.perturb({.rank = 2}), doctest::Contains("perturbation rank = 2"));
    CHECK_THROWS_WITH(bad.perturb({.rank = 1, .slowdown = 0.5}), doctest::Contains("perturbation slowdown = 0.5"));
    CHECK_THROWS_WITH(bad.perturb({.rank = 1, .period = 1.0, .on = 2.0}), doctest::Contains("perturbation on = 2"));
    // A loop on the perturbed cluster still runs every iteration once.
    auto const r = run_doall(s, 1000, parse_policy("af"), 1e6);
    CHECK(std::ranges::all_of(r.runs, [](int k) { return k == 1; }));
}

TEST_CASE("simgrid: with reissue, a host 10x slower mid-chunk costs little more than the cluster without it") {
    auto& s = all().slowed;
    // 4,000 iterations of 1 ms on 4 workers; FSS's first chunks are 500 (0.5 s), and rank 1
    // slows at 0.3 s with 200 of its own left (2 s more at a tenth of its speed).
    double const without_rank_1 = 4.0 / 3.0;
    auto const plain = run_doall(s, 4000, parse_policy("fss"), 1e6);
    CHECK(plain.root.parallel_seconds > 2.0);
    for (std::string spec : {"fss", "af", "gss", "dtss"}) {
        CAPTURE(spec);
        auto const r = run_doall(s, 4000, parse_policy(spec), 1e6, false, true);
        CHECK(std::ranges::all_of(r.runs, [](int k) { return k >= 1; }));
        CHECK(r.root.reissued >= 1);
        CHECK(r.root.dropped >= 1);
        CHECK(r.root.parallel_seconds < 1.1 * without_rank_1);
    }
}

TEST_CASE("simgrid: hosts that fail mid-loop: with reissue every result arrives once, the lost ranks named") {
    auto& s = all().failing;
    // 4,000 iterations of 1 ms on 4 workers (1 s); rank 2 dies at 0.3 s, rank 4 at 0.7 s.
    std::vector<double> expected(4000);
    for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = 0.5 * static_cast<double>(i * i);
    std::vector<int> failed;
    auto run = [&](std::string const& spec, bool reissue, std::vector<std::string>& errors) {
        gathered<double> root;
        errors.assign(static_cast<std::size_t>(s.size()), "");
        auto const outcome = s.run([&](sim::transport& t) {
            parallel_for_options o;
            o.reissue = reissue;
            o.presumed_lost_after = 0.05;
            try {
                auto got = parallel_for(
                        t, make_range(4000), parse_policy(spec),
                        [&](index_range const& part, std::span<double> out) {
                            std::size_t j = 0;
                            for (index_t i : part.indices()) out[j++] = 0.5 * static_cast<double>(i * i);
                            t.compute(1e6 * static_cast<double>(part.size()));
                        },
                        gather<double>{}, o);
                if (t.rank() == 0) root = std::move(got);
            } catch (error const& e) {
                errors[static_cast<std::size_t>(t.rank())] = e.what();
            }
        });
        failed = outcome.failed_ranks;
        return root;
    };
    std::vector<std::string> errors;
    for (std::string spec : {"fss", "af", "dtss", "css:chunk=400"}) {
        CAPTURE(spec);
        auto const r = run(spec, true, errors);
        CHECK(failed == std::vector<int>{2, 4});
        CHECK(std::ranges::all_of(errors, [](auto const& e) { return e.empty(); }));
        MESSAGE(spec << ": " << r.statistics.parallel_seconds << " s, " << r.statistics.reissued << " re-issued");
        CHECK(r.value == expected); // bit-identical, each iteration's once
        CHECK(r.statistics.lost == std::vector<int>{2, 4});
        // The ideal, with the root computing too and nothing the lost hosts began lost: 1.0 s.
        CHECK(r.statistics.parallel_seconds < 1.3);
    }
    // Without reissue the work a lost rank held is gone: every survivor throws the same error.
    (void)run("fss", false, errors);
    CHECK(failed == std::vector<int>{2}); // the loop ended before rank 4's host failed
    for (int rank : {0, 1, 3}) {
        CAPTURE(rank);
        CHECK_MESSAGE(errors[static_cast<std::size_t>(rank)].find("rank 2 was presumed lost: silent for 0.05 s") !=
                              std::string::npos,
                      errors[static_cast<std::size_t>(rank)]);
    }
    // A failure names its host and time.
    sim::platform bad = cluster({1e9});
    CHECK_THROWS_WITH(bad.fail({.rank = 3}), doctest::Contains("failure rank = 3"));
    CHECK_THROWS_WITH(bad.fail({.rank = 1, .at = -1.0}), doctest::Contains("failure at = -1"));
    bad.fail({.rank = 1, .at = 1.0});
    CHECK_THROWS_WITH(bad.fail({.rank = 1, .at = 2.0}), doctest::Contains("fails twice"));
    CHECK_THROWS_WITH(bad.fail({.rank = 0, .at = 2.0}), doctest::Contains("at least one host that never fails"));
}

TEST_CASE("simgrid: a DOACROSS loop on simulated hosts gives the sequential loop's bytes") {
    auto& s = all().doacross;
    box<2> const space({0, 0}, {64, 90});
    auto const expected = kernels::raw_bytes(kernels::sequential<kernels::floyd_steinberg>(space));
    for (char const* spec : {"s-css", "sw-tss", "dmps-dtss:h=7", "s-gss:h=auto"}) {
        CAPTURE(spec);
        std::vector<char> got;
        s.run([&](sim::transport& t) {
            doacross_options o;
            o.powers = s.layout().powers();
            o.run_queues = s.layout().run_queues();
            auto fields = kernels::floyd_steinberg::fields();
            typename kernels::floyd_steinberg::body real{space};
            auto result = parallel_for_doacross(
                    t, space, kernels::floyd_steinberg::dependences{}, parse_policy(spec), std::get<0>(fields),
                    std::get<1>(fields),
                    [&](box<2> const& part, auto& a, auto& b) {
                        real(part, a, b);
                        t.compute(300.0 * static_cast<double>(part.size()));
                    },
                    gather<>{}, o);
            if (t.rank() == 0) got = kernels::raw_bytes(result.value);
        });
        CHECK(got == expected);
    }
}

TEST_CASE("simgrid: divide and conquer gives the sequential result with every placement, faster on faster hosts") {
    auto& s = all().mixed;
    using examples::uneven_tree;
    auto const expected = sequential_divide_and_conquer(uneven_tree::node{}, uneven_tree{10});
    for (char const* placement : {"kazouris", "april", "steal", "steal-half"})
        for (bool master_computes : {true, false}) {
            CAPTURE(placement);
            CAPTURE(master_computes);
            std::uint64_t got = 0;
            double seconds = 0.0;
            s.run([&](sim::transport& t) {
                dnc_options o;
                o.placement = placement;
                o.master_computes = master_computes;
                o.powers = s.layout().powers();
                o.run_queues = s.layout().run_queues();
                struct timed : uneven_tree { // every leaf costs 1e6 flops of simulated time
                    sim::transport* t;
                    [[nodiscard]] std::uint64_t solve(node const& p) const {
                        t->compute(1e6);
                        return uneven_tree::solve(p);
                    }
                };
                timed ops{{10}, &t};
                auto out = divide_and_conquer(t, uneven_tree::node{}, ops, o);
                if (t.rank() == 0) {
                    got = out.value;
                    seconds = out.statistics.parallel_seconds;
                }
            });
            CHECK(got == expected);
            CHECK(seconds > 0.0);
        }
}

namespace {
/// 256 leaves, a quarter of them (a block, as a fractal's inside is) 12
/// times dearer: a slow worker's dear leaf takes 0.12 s. Its leaves compute in
/// `slices`, calling this_task::poll() between them when `polls`.
struct blocky {
    sim::transport* t;
    int slices = 1;
    bool polls = false;
    struct node {
        std::uint32_t level = 0, index = 0;
    };
    [[nodiscard]] bool is_leaf(node const& p) const { return p.level == 8; }
    [[nodiscard]] std::uint64_t solve(node const& p) const {
        bool const dear = p.index >= 96 && p.index < 160;
        for (int i = 0; i < slices; ++i) {
            t->compute((dear ? 1.2e8 : 1e7) / slices);
            if (polls) this_task::poll();
        }
        return examples::uneven_tree::mix(p.index + 1);
    }
    [[nodiscard]] std::vector<node> divide(node const& p) const {
        return {{p.level + 1, p.index * 2}, {p.level + 1, p.index * 2 + 1}};
    }
    [[nodiscard]] std::uint64_t combine(node const&, std::span<std::uint64_t> r) const {
        return examples::uneven_tree::mix(r[0] * 31 + r[1]);
    }
    [[nodiscard]] static std::uint64_t expected() {
        std::vector<std::uint64_t> level(256);
        for (std::uint32_t i = 0; i < 256; ++i) level[i] = examples::uneven_tree::mix(i + 1);
        for (; level.size() > 1;) {
            std::vector<std::uint64_t> up(level.size() / 2);
            for (std::size_t i = 0; i < up.size(); ++i)
                up[i] = examples::uneven_tree::mix(level[2 * i] * 31 + level[2 * i + 1]);
            level = std::move(up);
        }
        return level[0];
    }
    static constexpr double ideal_on_4_1_1_1 = (64 * 1.2e8 + 192 * 1e7) / 7e9; // seconds
};

/// The blocky tree on speeds 4:1:1:1 under a placement (Kazouris's scheme by default): its parallel time.
double blocky_on_4_1_1_1(blocky const& shape, char const* placement = "kazouris") {
    auto& s = all().four_one;
    std::uint64_t got = 0;
    double seconds = 0.0;
    s.run([&](sim::transport& t) {
        dnc_options o;
        o.placement = placement;
        o.master_computes = false;
        o.powers = s.layout().powers();
        o.run_queues = s.layout().run_queues();
        blocky ops = shape; // each rank's own, charging its own host
        ops.t = &t;
        auto out = divide_and_conquer(t, blocky::node{}, ops, o);
        if (t.rank() == 0) {
            got = out.value;
            seconds = out.statistics.parallel_seconds;
        }
    });
    CHECK(got == blocky::expected());
    return seconds;
}
} // namespace

TEST_CASE("simgrid: kazouris on speeds 4:1:1:1: an idle fast worker asks several slow donors, not one busy with a long "
          "leaf") {
    // A donor answers only between leaves here. Asking one donor, the fast
    // worker waited on dear leaves while the other slow workers had tasks to give.
    double const seconds = blocky_on_4_1_1_1(blocky{});
    // One donor asked at a time: 2.80 times the ideal; three at once: 1.42.
    CHECK(seconds <= 1.6 * blocky::ideal_on_4_1_1_1);
}

TEST_CASE("simgrid: stealing on speeds 4:1:1:1: a slower thief's steal is sized by speeds") {
    // A victim gives a slower thief only tasks it would finish about when the
    // victim finishes the rest (not over twice its share of the load, as
    // Kazouris's transfers): a dear subtree stolen late by a slow worker
    // otherwise ends the run long after the others.
    for (char const* placement : {"steal", "steal-half"}) {
        CAPTURE(placement);
        double const seconds = blocky_on_4_1_1_1(blocky{}, placement);
        CAPTURE(seconds / blocky::ideal_on_4_1_1_1);
        // Unsized: 1.466 times the ideal for both; sized: 1.321 (steal) and 1.358 (steal-half);
        // and with a waiting worker keeping its next task from thieves no faster: 1.256 and 1.182.
        CHECK(seconds <= 1.4 * blocky::ideal_on_4_1_1_1);
    }
}

TEST_CASE("simgrid: leaves that call this_task::poll answer transfers while they run") {
    // The same tree, its leaves in 12 slices: with a poll between slices a
    // slow donor answers in a twelfth of a dear leaf, not after all of it.
    double const sliced = blocky_on_4_1_1_1(blocky{nullptr, 12, false});
    double const polled = blocky_on_4_1_1_1(blocky{nullptr, 12, true});
    CAPTURE(sliced / blocky::ideal_on_4_1_1_1);
    CAPTURE(polled / blocky::ideal_on_4_1_1_1);
    // 1.204 and 1.095 times the ideal
    CHECK(polled < 0.95 * sliced);
    CHECK(polled <= 1.15 * blocky::ideal_on_4_1_1_1);
}

TEST_CASE("simgrid: divide and conquer on 512 and 1,024 workers with 1 MiB stacks: exact, waits bounded by the tree") {
    // Before waiting problems ran only deeper tasks, transfers arriving at
    // waiting workers nested without bound: 785 nested waits at 512 workers
    // under kazouris on this tree, and a stack overflow at 1,024.
    using examples::uts_tree;
    uts_tree const u = uts_tree::named("T1-medium"); // 8 levels
    std::uint64_t const nodes = u.count(u.root());
    for (auto* s : {&all().many, &all().most})
        for (char const* placement : {"kazouris", "april", "steal", "steal-half"}) {
            CAPTURE(s->layout().powers().size());
            CAPTURE(placement);
            std::uint64_t counted = 0, waits = 0;
            s->run([&](sim::transport& t) {
                dnc_options o;
                o.placement = placement;
                struct timed : examples::uts_search { // nodes cost simulated time, charged 30 at a time
                    sim::transport* t = nullptr;
                    mutable int pending = 0;
                    void charge() const {
                        if (++pending < 30) return;
                        t->compute(pending * 3.5e4);
                        pending = 0;
                    }
                    [[nodiscard]] std::uint64_t solve(examples::uts_node const&) const {
                        charge();
                        return 1;
                    }
                    [[nodiscard]] auto divide(examples::uts_node const& n) const {
                        charge();
                        return uts_search::divide(n);
                    }
                };
                timed ops;
                ops.tree = u;
                ops.t = &t;
                auto out = divide_and_conquer(t, u.root(), ops, o);
                if (t.rank() == 0) {
                    counted = out.value;
                    for (auto const& w : out.workers) waits = std::max(waits, w.peak_waits);
                }
            });
            CHECK(counted == nodes);
            CHECK(waits <= 8);
        }
}

TEST_CASE("simgrid: hierarchical loops and task farms run everything once, results as a sequential run") {
    auto& s = all().nine;
    for (std::string spec : {"fss/af", "dtss/fss", "w-fss/ss"})
        for (std::size_t group : {std::size_t{0}, std::size_t{3}})
            for (bool compute : {false, true}) {
                CAPTURE(spec);
                CAPTURE(group);
                CAPTURE(compute);
                std::vector<int> runs(1999, 0);
                loop_statistics root;
                s.run([&](sim::transport& t) {
                    auto h = parse_hierarchy(spec);
                    h.group_size = group;
                    h.sub_masters_compute = compute;
                    parallel_for_options o;
                    o.powers = s.layout().powers();
                    o.run_queues = s.layout().run_queues();
                    auto stats = parallel_for(
                            t, make_range(1999), h,
                            [&](index_range const& part) {
                                REQUIRE(part.size() > 0);
                                for (index_t i : part.indices()) runs[static_cast<std::size_t>(i)]++;
                                t.compute(1e6 * static_cast<double>(part.size()));
                            },
                            o).statistics;
                    if (t.rank() == 0) root = stats;
                });
                for (int c : runs) REQUIRE(c == 1);
                CHECK(root.iterations() == 1999);
                CHECK(root.groups.size() >= 2);
            }
    for (std::string scheme : {"ss/ss", "fss/af", "kazouris/kazouris", "ss/dlpt"})
        for (bool compute : {false, true}) {
            CAPTURE(scheme);
            CAPTURE(compute);
            std::vector<int> runs(301, 0);
            std::vector<double> results;
            s.run([&](sim::transport& t) {
                task_farm_options o;
                auto levels = parse_farm_hierarchy(scheme);
                levels.group_size = 3;
                levels.sub_masters_compute = compute;
                o.placement = levels;
                o.expected_tasks = 301;
                o.powers = s.layout().powers();
                o.run_queues = s.layout().run_queues();
                auto out = task_farm<int>(
                        t,
                        [](auto& farm) {
                            for (int i = 0; i < 301; ++i) farm.submit(i);
                        },
                        [&](int const& i) {
                            runs[static_cast<std::size_t>(i)]++;
                            t.compute(1e6 * (i % 4 + 1));
                            return std::sqrt(static_cast<double>(i));
                        },
                        o);
                if (t.rank() == 0) results = std::move(out.value);
            });
            REQUIRE(results.size() == 301);
            for (int i = 0; i < 301; ++i) {
                REQUIRE(runs[static_cast<std::size_t>(i)] == 1);
                REQUIRE(results[static_cast<std::size_t>(i)] == std::sqrt(static_cast<double>(i)));
            }
        }
}

namespace {
/// 2,560 exponential task costs of mean 1e7 flops (10 ms at 1 Gflop/s), seeded: deterministic.
std::vector<double> exponential_costs() {
    std::vector<double> cost(2560);
    std::mt19937 random(7);
    std::exponential_distribution<double> exponential(1.0 / 1e7);
    for (auto& c : cost) c = exponential(random);
    return cost;
}
} // namespace

TEST_CASE("simgrid: a two-level farm: groups pass results on in batches, move work only once the root waits, "
          "and between groups under Kazouris") {
    // 64 workers in groups of 8, 40 exponential 10 ms tasks each (seeded): deterministic.
    auto& s = all().sixty_four;
    std::vector<double> const cost = exponential_costs();
    double const ideal = std::accumulate(cost.begin(), cost.end(), 0.0) / (64 * 1e9);
    for (std::string scheme : {"ss/ss", "ss/kazouris", "kazouris/ss"}) {
        CAPTURE(scheme);
        std::vector<int> runs(cost.size(), 0);
        std::vector<int> results;
        loop_statistics root;
        std::size_t moved = 0;
        s.run([&](sim::transport& t) {
            task_farm_options o;
            auto levels = parse_farm_hierarchy(scheme);
            levels.group_size = 8;
            o.placement = levels;
            o.master_computes = false;
            auto out = task_farm<int>(
                    t,
                    [&](auto& farm) {
                        for (int i = 0; i < static_cast<int>(cost.size()); ++i) farm.submit(i);
                    },
                    [&](int const& i) {
                        runs[static_cast<std::size_t>(i)]++;
                        t.compute(cost[static_cast<std::size_t>(i)]);
                        return i;
                    },
                    o);
            if (t.rank() == 0) {
                root = out.statistics;
                results = std::move(out.value);
                moved = out.moved;
            }
        });
        REQUIRE(results.size() == cost.size());
        for (std::size_t i = 0; i < cost.size(); ++i) {
            REQUIRE(runs[i] == 1);
            REQUIRE(results[i] == static_cast<int>(i));
        }
        REQUIRE(root.groups.size() == 8);
        if (scheme == "ss/ss") {
            // A sub-master passes its results on once its queue is down to as many: the root
            // refills several places per message (one per task before: 2,560 grants).
            for (auto const& g : root.groups) CHECK(3 * g.chunks < g.iterations);
            CHECK(moved == 0);
        } else if (scheme == "ss/kazouris") {
            // 1.30 x the ideal; 1.70 when a group moved work among its workers while
            // the root still sent it tasks.
            CHECK(root.parallel_seconds < 1.4 * ideal);
            CHECK(moved == 0);
        } else {
            // Kazouris between groups: a group about to starve gets queued tasks from the
            // one estimated to finish last, through its sub-master: 1.27 x the ideal
            // (1,040 tasks moved), 1.39 when no work moved between groups.
            CHECK(moved > 0);
            CHECK(root.parallel_seconds < 1.33 * ideal);
        }
        CHECK(root.parallel_seconds > ideal);
    }
}

TEST_CASE("simgrid: producers in groups: each group makes its share by power; equal shares leave a group late "
          "unless groups lend their tasks") {
    // 12 workers in three computing groups of four, speeds 4:1:2 by group; 1,400 tasks of 1e7 flops.
    auto& s = all().three_groups;
    int const n = 1400;
    double const ideal = n * 1e7 / (4 * (4e9 + 1e9 + 2e9));
    auto makespan = [&](std::string const& scheme, bool by_power, bool lend, std::uint64_t cycles = 1) {
        std::vector<int> runs(static_cast<std::size_t>(n), 0);
        std::vector<std::uint64_t> first_of(3, 0), made(3, 0);
        std::vector<std::vector<int>> values(3);
        loop_statistics root;
        s.run([&](sim::transport& t) {
            task_farm_options o;
            auto levels = parse_farm_hierarchy(scheme);
            levels.group_size = 4;
            levels.sub_masters_compute = true;
            o.placement = levels;
            o.producers_in_groups = true;
            o.lend_between_groups = lend;
            o.powers = s.layout().powers();
            std::optional<std::size_t> group;
            auto out = task_farm<int>(
                    t,
                    [&](auto& farm) {
                        auto const count = static_cast<std::uint64_t>(n);
                        std::uint64_t first = farm.group() * count / farm.groups(),
                                      last = (farm.group() + 1) * count / farm.groups();
                        if (by_power) std::tie(first, last) = farm.share(count);
                        group = farm.group();
                        first_of[farm.group()] = first;
                        made[farm.group()] = last - first;
                        for (std::uint64_t c = 0; c < cycles; ++c) { // a work cycle: its tasks, then all their results
                            for (auto i = first + c * (last - first) / cycles; i < first + (c + 1) * (last - first) / cycles;
                                 ++i)
                                farm.submit(static_cast<int>(i));
                            if (c + 1 < cycles) farm.wait_all();
                        }
                    },
                    [&](int const& i) {
                        runs[static_cast<std::size_t>(i)]++;
                        t.compute(1e7);
                        return i;
                    },
                    o);
            if (group) values[*group] = std::move(out.value);
            if (t.rank() == 0) root = out.statistics;
        });
        for (int r : runs) REQUIRE(r == 1);
        REQUIRE(root.groups.size() == 3);
        // Each group's results, lent tasks' included, on its sub-master in creation order.
        for (std::size_t g = 0; g < 3; ++g) {
            REQUIRE(values[g].size() == made[g]);
            for (std::size_t i = 0; i < made[g]; ++i) REQUIRE(values[g][i] == static_cast<int>(first_of[g] + i));
        }
        if (by_power) { // 4:1:2 of 1,400
            CHECK(made[0] == 800);
            CHECK(made[1] == 200);
            CHECK(made[2] == 400);
        }
        return root.parallel_seconds / ideal;
    };
    {
        double const shared = makespan("ss/kazouris", true, false), equal = makespan("ss/kazouris", false, false);
        CHECK(shared > 1.0);
        CHECK(shared < 1.1); // 1.021
        CHECK(equal > 1.5);  // 2.361: the slow group's third of the tasks, 7/3 of the ideal
    }
    // A group whose producer returned and whose queue ran dry asks another
    // group; under Kazouris a busy worker there sends it tasks, under SS its
    // sub-master does from its queue.
    double const shared = makespan("ss/kazouris", true, true), equal = makespan("ss/kazouris", false, true);
    CAPTURE(shared);
    CAPTURE(equal);
    CHECK(shared < 1.1); // 1.021
    CHECK(equal < 1.2);  // 1.126 (2.361 without lending)
    double const ss_equal = makespan("ss/ss", false, false), ss_lent = makespan("ss/ss", false, true);
    CAPTURE(ss_equal);
    CAPTURE(ss_lent);
    CHECK(ss_lent < 0.5 * ss_equal); // 1.632 against 3.742 (1.601 with shares by power)
    // Four work cycles (wait_all after each quarter): a group whose cycle's last tasks
    // still run borrows meanwhile, a task for each idle worker; its producer's next
    // cycle does not wait for them, and each group's ids stay its producer's own.
    double const cycles_equal = makespan("ss/kazouris", false, false, 4),
                 cycles_equal_lent = makespan("ss/kazouris", false, true, 4);
    double const ss_cycles = makespan("ss/ss", false, false, 4), ss_cycles_lent = makespan("ss/ss", false, true, 4);
    double const cycles_shared = makespan("ss/kazouris", true, false, 4),
                 cycles_shared_lent = makespan("ss/kazouris", true, true, 4);
    CAPTURE(cycles_equal);
    CAPTURE(cycles_equal_lent);
    CAPTURE(ss_cycles);
    CAPTURE(ss_cycles_lent);
    CAPTURE(cycles_shared);
    CAPTURE(cycles_shared_lent);
    CHECK(cycles_equal_lent < 0.9 * cycles_equal);   // 2.022 against 2.401
    CHECK(ss_cycles_lent < 0.8 * ss_cycles);         // 2.792 against 3.762 (4.213 before groups borrowed in cycles)
    CHECK(cycles_shared_lent < 1.05 * cycles_shared); // 1.064 against 1.045: shares by power leave little to move
}

TEST_CASE("simgrid: a flat Kazouris farm's makespan on exponential tasks, to the hundredth") {
    // The same 2,560 exponential tasks on 64 workers, one level. A worker asks for work
    // once it holds fewer than d = 2 tasks (Kazouris's (2)); a change to who asks or who
    // gives moves this makespan, which no exactly-once check would notice.
    auto& s = all().sixty_four;
    std::vector<double> const cost = exponential_costs();
    double const ideal = std::accumulate(cost.begin(), cost.end(), 0.0) / (64 * 1e9);
    std::vector<int> runs(cost.size(), 0);
    loop_statistics root;
    std::size_t moved = 0;
    s.run([&](sim::transport& t) {
        task_farm_options o;
        o.placement = "kazouris";
        o.master_computes = false;
        auto out = task_farm<int>(
                t, [&](auto& farm) { for (int i = 0; i < static_cast<int>(cost.size()); ++i) farm.submit(i); },
                [&](int const& i) {
                    runs[static_cast<std::size_t>(i)]++;
                    t.compute(cost[static_cast<std::size_t>(i)]);
                    return i;
                },
                o);
        if (t.rank() == 0) {
            root = out.statistics;
            moved = out.moved;
        }
    });
    for (int r : runs) REQUIRE(r == 1);
    // 1.136 x the ideal with 315 tasks moved. Asking only once a worker holds nothing (a
    // rule meant for groups, briefly applied to flat farms) gave the same makespan here
    // with 263 moved, so both are checked.
    CHECK(root.parallel_seconds / ideal == doctest::Approx(1.136).epsilon(0.01));
    CHECK(moved >= 300);
    CHECK(moved <= 330);
}

namespace {

/// A farm of n 1 ms tasks on simulator `s` (a dedicated master): each task's
/// result, on the root, must be its own; returns the root's table, or the
/// errors every rank threw.
loop_statistics run_robust_farm(sim::simulator& s, std::string const& scheme, int n, bool reissue,
                                double lost_after, std::vector<std::string>& errors) {
    loop_statistics root;
    std::vector<double> results;
    errors.assign(static_cast<std::size_t>(s.size()), "");
    s.run([&](sim::transport& t) {
        task_farm_options o;
        o.placement = scheme;
        o.master_computes = false;
        o.expected_tasks = static_cast<std::size_t>(n);
        o.reissue = reissue;
        o.presumed_lost_after = lost_after;
        try {
            auto out = task_farm<int>(
                    t, [&](auto& farm) { for (int i = 0; i < n; ++i) farm.submit(i); },
                    [&](int const& i) {
                        t.compute(1e6);
                        return std::sqrt(static_cast<double>(i));
                    },
                    o);
            if (t.rank() == 0) {
                root = out.statistics;
                results = std::move(out.value);
            }
        } catch (error const& e) {
            errors[static_cast<std::size_t>(t.rank())] = e.what();
        }
    });
    if (!errors[0].empty()) return root;
    REQUIRE(results.size() == static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) REQUIRE(results[static_cast<std::size_t>(i)] == std::sqrt(static_cast<double>(i)));
    return root;
}

} // namespace

TEST_CASE("simgrid: task farms with reissue: a host 10x slower mid-run, hosts that fail") {
    std::vector<std::string> errors;
    SUBCASE("rank 1 10x slower from 0.3 s: within 1.1x of the cluster without it") {
        double const never = std::numeric_limits<double>::infinity();
        for (std::string scheme : {"ss", "kazouris", "fss"}) {
            CAPTURE(scheme);
            // The cluster without rank 1 (its three others, the same links), the same scheme:
            // ss's round trip per 1 ms task is its own cost, not the slow host's.
            double const without_rank_1 = run_robust_farm(all().plain, scheme, 4000, false, never, errors)
                                                  .parallel_seconds;
            auto const r = run_robust_farm(all().slowed, scheme, 4000, true, never, errors);
            MESSAGE(scheme << ": " << r.parallel_seconds << " s against " << without_rank_1 << " s, " << r.reissued
                           << " re-issued, " << r.dropped << " dropped");
            CHECK(r.parallel_seconds < 1.1 * without_rank_1);
            CHECK(r.reissued >= 1);
        }
    }
    SUBCASE("ranks 2 and 4 fail: with reissue every result once and the lost ranks named; without, one error") {
        for (std::string scheme : {"ss", "kazouris"}) {
            CAPTURE(scheme);
            auto const r = run_robust_farm(all().failing, scheme, 4000, true, 0.05, errors);
            for (auto const& e : errors) CHECK_MESSAGE(e.empty(), e);
            CHECK(r.lost == std::vector<int>{2, 4});
            // The ideal of what survives: 1.5 s (4 s of work, the master idle); ss pays a round
            // trip per 1 ms task (1.27x its ideal on three hosts that never fail).
            CHECK(r.parallel_seconds < 1.45 * 1.5);
            (void)run_robust_farm(all().failing, scheme, 4000, false, 0.05, errors);
            for (int rank : {0, 1, 3}) {
                CAPTURE(rank);
                CHECK_MESSAGE(errors[static_cast<std::size_t>(rank)].find("rank 2 was presumed lost") !=
                                      std::string::npos,
                              errors[static_cast<std::size_t>(rank)]);
            }
        }
    }
}

TEST_CASE("simgrid: 1, 2 and every worker's host failing at random times: loops and farms complete") {
    // 4,000 iterations (or tasks) of 1 ms; the root computes, so the loop ends whoever is lost.
    std::vector<double> expected(4000);
    for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = std::sqrt(static_cast<double>(i));
    for (auto& s : all().random_failures)
        for (bool farm : {false, true})
            for (std::string scheme : {"fss", "ss", "af"}) {
                if (!farm && scheme == "ss") continue;
                CAPTURE(farm);
                CAPTURE(scheme);
                CAPTURE(s.layout().failures().size());
                std::vector<double> got;
                loop_statistics table;
                auto const outcome = s.run([&](sim::transport& t) {
                    auto body = [&](index_t i) {
                        t.compute(1e6);
                        return std::sqrt(static_cast<double>(i));
                    };
                    if (farm) {
                        task_farm_options o;
                        o.placement = scheme;
                        o.expected_tasks = 4000;
                        o.reissue = true;
                        o.presumed_lost_after = 0.05;
                        auto out = task_farm<int>(
                                t, [](auto& f) { for (int i = 0; i < 4000; ++i) f.submit(i); },
                                [&](int const& i) { return body(i); }, o);
                        if (t.rank() == 0) {
                            got = std::move(out.value);
                            table = out.statistics;
                        }
                    } else {
                        parallel_for_options o;
                        o.reissue = true;
                        o.presumed_lost_after = 0.05;
                        auto out = parallel_for(
                                t, make_range(4000), parse_policy(scheme),
                                [&](index_range const& part, std::span<double> values) {
                                    std::size_t j = 0;
                                    for (index_t i : part.indices()) values[j++] = body(i);
                                },
                                gather<double>{}, o);
                        if (t.rank() == 0) {
                            got = std::move(out.value);
                            table = out.statistics;
                        }
                    }
                });
                CHECK(got == expected); // every result once, bit-identical
                // Lost: failed while the master waited for them (one that failed after its
                // last word failed but was never missed).
                for (int r : table.lost) CHECK(std::ranges::count(outcome.failed_ranks, r) == 1);
                CHECK(!outcome.failed_ranks.empty());
                MESSAGE(scheme << (farm ? " farm " : " loop ") << table.parallel_seconds << " s; failed "
                               << testing_text(outcome.failed_ranks) << ", lost " << testing_text(table.lost));
            }
}

TEST_CASE("simgrid: errors") {
    SUBCASE("a body that throws on one rank makes every rank throw remote_error, and the simulation ends") {
        auto& s = all().plain;
        int caught = 0;
        CHECK_THROWS_AS(s.run([&](sim::transport& t) {
            try {
                parallel_for(t, make_range(100), parse_policy("css:chunk=5"), [&](index_range const& part) {
                    t.compute(1e6);
                    if (t.rank() == 2 && part.lower()[0] >= 50) throw std::runtime_error("boom");
                });
            } catch (remote_error const& e) {
                ++caught;
                CHECK(e.origin_rank() == 2);
                throw;
            }
        }),
                        remote_error);
        CHECK(caught == 4);
    }
    SUBCASE("bad platforms are rejected with the parameter's name") {
        sim::platform p;
        CHECK_THROWS_WITH(p.add({"x", -1.0, 1e6, 0.0, 0}), doctest::Contains("host x speed = -1"));
        CHECK_THROWS_WITH(p.add({"x", 1e9, 0.0, 0.0, 0}), doctest::Contains("host x bandwidth = 0"));
        CHECK_THROWS_WITH(p.add({"x", 1e9, 1e6, 0.0, -2}), doctest::Contains("host x background = -2"));
        p.add({"x", 1e9, 1e6, 0.0, 0});
        CHECK_THROWS_WITH(p.add({"x", 1e9, 1e6, 0.0, 0}), doctest::Contains("host name = x"));
        CHECK_THROWS_WITH(sim::simulator(sim::platform{}), doctest::Contains("platform size = 0"));
        (void)all();
        all().plain.run([](sim::transport&) {});
        CHECK_THROWS_WITH(sim::simulator(cluster({1e9})), doctest::Contains("before the first run"));
    }
}
