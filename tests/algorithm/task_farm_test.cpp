// task_farm on the in-process transport: every task once, results equal to a
// sequential run, every scheme, work cycles, user types, priorities, stopping
// early, failures; and the cost model's fit against hand-computed numbers.
#include <loopsched/algorithm/task_farm.hpp>
#include <loopsched/serialization.hpp>
#include <loopsched/spec.hpp>
#include <loopsched/this_task.hpp>
#include <loopsched/transport/in_process.hpp>

#include "../support/farm_checks.hpp"
#include "../support/user_placement.hpp"

#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

using namespace loopsched;

namespace {

/// A task of uneven cost: its result depends only on its input.
double compute(int task) {
    double x = 0.0;
    for (int i = 0; i < (task % 7 + 1) * 200; ++i) x += std::sin(0.001 * (task + i));
    return x;
}

struct farm_run {
    std::vector<double> results;
    std::vector<std::uint64_t> cancelled;
    loop_statistics statistics;
};

/// n tasks on `ranks` threads; checks each ran once and its result is the sequential one.
farm_run check_farm(int ranks, int n, task_farm_options const& o) {
    std::vector<std::atomic<int>> runs(static_cast<std::size_t>(n));
    farm_run root;
    std::mutex m;
    in_process::run(ranks, [&](in_process::endpoint& t) {
        auto out = task_farm<int>(
                t,
                [&](auto& farm) {
                    for (int i = 0; i < n; ++i) farm.submit(i);
                },
                [&](int const& i) {
                    runs[static_cast<std::size_t>(i)]++;
                    return compute(i);
                },
                o);
        CHECK(out.statistics.iterations() == n);
        if (t.rank() == o.root) {
            std::lock_guard lock(m);
            root = {std::move(out.value), std::move(out.cancelled), std::move(out.statistics)};
        }
    });
    REQUIRE(root.results.size() == static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        REQUIRE(runs[static_cast<std::size_t>(i)] == 1);
        REQUIRE(root.results[static_cast<std::size_t>(i)] == compute(i)); // bit-identical
    }
    return root;
}

/// A task of 0.3 ms (busy), so that emulated speeds are not lost in timer noise.
int spin(int const& i) {
    auto const end = std::chrono::steady_clock::now() + std::chrono::microseconds(300);
    while (std::chrono::steady_clock::now() < end) {
    }
    return i;
}

} // namespace

/// Whether options of type O have a `deterministic` to set (the task algorithms' do not).
template <class O>
concept settable_deterministic = requires(O& o) {
    o.deterministic = true;
};

TEST_CASE("task_farm: every scheme, 1 to 4 ranks, computing and dedicated master") {
    for (std::string scheme :
         {"kazouris", "ss", "fss", "gss", "af", "w-fss", "tss", "dlpt", "random", "round-robin", "objects", "messages"})
        for (int ranks : {1, 2, 3, 4})
            for (bool computes : {true, false}) {
                CAPTURE(scheme);
                CAPTURE(ranks);
                CAPTURE(computes);
                task_farm_options o;
                o.placement = scheme;
                o.master_computes = computes;
                o.expected_tasks = 157;
                o.root = ranks - 1;
                check_farm(ranks, 157, o);
            }
}

TEST_CASE("task_farm: D_LPT places by estimates on speeds 4:1:1; round robin deals in turn") {
    for (std::string scheme : {"dlpt", "round-robin"}) {
        CAPTURE(scheme);
        task_farm_options o;
        o.placement = scheme;
        o.powers = {1.0, 4.0, 1.0, 1.0};
        o.emulate_powers = true;
        o.master_computes = false;
        loop_statistics stats;
        in_process::run(4, [&](in_process::endpoint& t) {
            auto out = task_farm<int>(
                    t,
                    [](auto& farm) {
                        for (int i = 0; i < 120; ++i) farm.submit(i, task_hints{1.0});
                    },
                    spin, o);
            if (t.rank() == 0) {
                for (int i = 0; i < 120; ++i) REQUIRE(out.value[static_cast<std::size_t>(i)] == i);
                stats = out.statistics;
            }
        });
        REQUIRE(stats.workers.size() == 3);
        if (scheme == "round-robin") {
            for (auto const& w : stats.workers) CHECK(w.iterations == 40);
        } else { // the fast worker: 4/6 of the work ideally; D_LPT's first placement alone gives it 80 tasks
            CHECK(stats.workers[0].iterations >= 60);
        }
    }
}

TEST_CASE("task_farm: a user's own placement, by value, on 1 to 4 ranks") {
    for (int ranks : {1, 2, 3, 4}) {
        CAPTURE(ranks);
        task_farm_options o;
        o.placement = testing::least_work_placement{};
        o.root = ranks - 1;
        check_farm(ranks, 157, o);
    }
    task_farm_options o;
    o.placement = parse_placement("random:seed=7"); // a library placement by value, from its spec
    check_farm(3, 100, o);
}

namespace {
/// A farm as a placement's state sees it, set by hand: 4 workers of shares
/// 0.4, 0.2, 0.2, 0.2, each holding `held[k]` tasks, 40 queued.
struct fixed_farm final : farm_view {
    std::vector<std::size_t> held_by{0, 1, 2, 0};
    bool ready = false;
    std::size_t next = 2;
    std::size_t workers() const override { return 4; }
    worker_status status(std::size_t k) const override { return {k == 0 ? 2.0 : 1.0, 1.0}; }
    double share(std::size_t k) const override { return k == 0 ? 0.4 : 0.2; }
    std::size_t held(std::size_t k) const override { return held_by[k]; }
    std::size_t limit(std::size_t, std::size_t per_worker) const override { return per_worker; }
    std::size_t queued() const override { return 40; }
    std::size_t held_total() const override { return 3; }
    bool modelled() const override { return ready; }
    double work_left() const override { return 86.0; }
    bool more_coming() const override { return false; }
    std::optional<std::size_t> next_below(std::size_t) override { return next; }
};
} // namespace

TEST_CASE("task_farm: farm placements' grants on a farm set by hand") {
    fixed_farm farm;
    farm_info info;
    info.workers = 4;
    info.initial_tasks = 3;
    info.idle_below = 2;
    // Kazouris before the model: fill up to f = 3, and a new task goes round robin at once.
    auto kazouris = kazouris_placement{}.start(info);
    CHECK(kazouris.grant(farm, 0).tasks == 3);
    CHECK(kazouris.grant(farm, 2).tasks == 1);
    CHECK(kazouris.place_new(farm) == std::optional<std::size_t>(2));
    CHECK((kazouris.idle_below() == 2 && kazouris.moves_work() && kazouris.largest_first()));
    // After it: the worker's share of the work left, at most twice its share of the 43 tasks left.
    farm.ready = true;
    CHECK(kazouris.grant(farm, 0).tasks == 35); // ceil(2 x 0.4 x 43)
    CHECK(kazouris.grant(farm, 0).work == doctest::Approx(0.4 * 86.0));
    CHECK(kazouris.grant(farm, 1).tasks == 18);
    CHECK_FALSE(kazouris.place_new(farm).has_value());
    // SS: one task, idle below one; a chunk policy: its chunks over the 40 tasks (fss: 40 / (2 x 4) = 5).
    CHECK(self_scheduling_placement{}.start(info).grant(farm, 0).tasks == 1);
    info.units = 40;
    auto fss_chunks = chunked_placement{parse_policy("fss")}.start(info);
    CHECK(fss_chunks.grant(farm, 0).tasks == 5);
    CHECK(fss_chunks.grant(farm, 3).tasks == 5);
    // The user's: half its share of the queue; and two at a time.
    CHECK(testing::half_share_placement{}.start(info).grant(farm, 0).tasks == 8); // 40 x 0.4 / 2
    CHECK(testing::half_share_placement{}.start(info).grant(farm, 1).tasks == 4);
    CHECK(testing::steal_or_pairs_placement{}.start(info).grant(farm, 1).tasks == 1); // holds 1 of 2
    CHECK(testing::steal_or_pairs_placement{}.start(info).grant(farm, 3).tasks == 2);
}

TEST_CASE("task_farm: a user's own FarmPlacement, and one type that is a farm's and a tree's") {
    for (int ranks : {1, 2, 3, 4})
        for (bool computes : {true, false}) {
            CAPTURE(ranks);
            CAPTURE(computes);
            task_farm_options o;
            o.master_computes = computes;
            o.root = ranks - 1;
            o.placement = testing::half_share_placement{};
            check_farm(ranks, 157, o);
            o.placement = testing::steal_or_pairs_placement{};
            check_farm(ranks, 157, o);
        }
    // Its grants, as the farm's master asks them.
    any_placement const mine = testing::half_share_placement{};
    CHECK(mine.places_farms());
    CHECK(mine.spec() == "half-share");
    CHECK(mine.tree_decisions(placement_info{}, true) == nullptr); // no tree's: divide and conquer refuses it
    CHECK(any_placement(testing::steal_or_pairs_placement{}).places_farms());
    CHECK(any_placement(testing::steal_or_pairs_placement{}).tree_decisions(placement_info{}, true) != nullptr);
}

TEST_CASE("task_farm: this_task::estimate reaches the master under dlpt and is ignored elsewhere") {
    for (char const* scheme : {"dlpt", "kazouris", "ss"}) {
        CAPTURE(scheme);
        std::atomic<int> heard{0};
        task_farm_options o;
        o.placement = scheme;
        in_process::run(3, [&](in_process::endpoint& t) {
            auto out = task_farm<int>(
                    t,
                    [](auto& farm) {
                        for (int i = 0; i < 60; ++i) farm.submit(i, task_hints{static_cast<double>(i % 7 + 1)});
                    },
                    [&](int const& i) {
                        if (this_task::estimate(0.5)) ++heard; // half a unit left, whatever it was
                        return compute(i);
                    },
                    o);
            if (t.rank() == 0)
                for (int i = 0; i < 60; ++i) CHECK(out.value[static_cast<std::size_t>(i)] == compute(i));
        });
        CHECK((heard.load() > 0) == (std::string_view(scheme) == "dlpt"));
    }
}

TEST_CASE("task_farm: this_task::poll from long tasks, with redistribution: every task once") {
    for (char const* scheme : {"kazouris", "ss", "dlpt"}) {
        CAPTURE(scheme);
        task_farm_options o;
        o.placement = scheme;
        o.poll_interval = 1e-6;
        in_process::run(4, [&](in_process::endpoint& t) {
            auto out = task_farm<int>(
                    t,
                    [](auto& farm) {
                        for (int i = 0; i < 80; ++i) farm.submit(i, task_hints{static_cast<double>(i % 5 + 1)});
                    },
                    [&](int const& i) {
                        for (int k = 0; k < 20; ++k) this_task::poll(); // transfers answered mid-task
                        return compute(i);
                    },
                    o);
            if (t.rank() == 0) {
                REQUIRE(out.value.size() == 80);
                for (int i = 0; i < 80; ++i) CHECK(out.value[static_cast<std::size_t>(i)] == compute(i));
            }
        });
    }
}

TEST_CASE("task_farm: speeds and load from every reply, a slow worker, tracing") {
    task_farm_options o;
    o.powers = {1.0, 4.0, 1.0};
    o.emulate_powers = true;
    o.load_aware = true;
    o.master_computes = false;
    o.trace = true;
    loop_statistics stats;
    in_process::run(3, [&](in_process::endpoint& t) {
        auto out = task_farm<int>(
                t,
                [](auto& farm) {
                    for (int i = 0; i < 120; ++i) farm.submit(i);
                },
                spin, o);
        if (t.rank() == 0) {
            for (int i = 0; i < 120; ++i) REQUIRE(out.value[static_cast<std::size_t>(i)] == i);
            stats = out.statistics;
        }
    });
    CHECK(stats.trace.size() == 120); // one event per task
    // The fast worker (rank 1) ran more tasks than the slow one (rank 2).
    CHECK(stats.workers[0].iterations > stats.workers[1].iterations);
}

namespace {

/// `cycles` work cycles of `per_cycle` tasks on 3 ranks (the producer waits
/// for each cycle's results before it makes the next), rank 2 five times as
/// slow as rank 1 though both claim V = 1: every task once, results in order.
/// Returns how many tasks moved between workers.
std::size_t moved_from_slow_rank(int cycles, int per_cycle, bool computes) {
    int const n = cycles * per_cycle;
    std::vector<std::atomic<int>> runs(static_cast<std::size_t>(n));
    std::size_t moved = 0;
    in_process::run(3, [&](in_process::endpoint& t) {
        task_farm_options o;
        o.master_computes = computes;
        auto out = task_farm<int>(
                t,
                [&](auto& farm) {
                    for (int cycle = 0; cycle < cycles; ++cycle) {
                        for (int i = 0; i < per_cycle; ++i) farm.submit(cycle * per_cycle + i);
                        if (cycles > 1) farm.wait_all();
                    }
                },
                [&](int const& i) {
                    runs[static_cast<std::size_t>(i)]++;
                    std::this_thread::sleep_for(std::chrono::microseconds(t.rank() == 2 ? 2500 : 500));
                    return i;
                },
                o);
        if (t.rank() == 0) {
            for (int i = 0; i < n; ++i) REQUIRE(out.value[static_cast<std::size_t>(i)] == i);
            moved = out.moved;
        }
    });
    for (auto const& r : runs) REQUIRE(r == 1);
    return moved;
}

} // namespace

TEST_CASE("task_farm: redistribution moves queued tasks from a worker slower than its power says") {
    // Rank 2's share was too large: once the master's queue is empty the idle rank 1 takes from it.
    for (bool computes : {false, true}) {
        CAPTURE(computes);
        CHECK(moved_from_slow_rank(1, 60, computes) > 0);
    }
}

TEST_CASE("task_farm: inside a work cycle, an idle worker takes queued tasks from a busy one") {
    // While the producer waits for a cycle's results (wait_all) nothing new comes: rank 1 takes from rank 2.
    for (bool computes : {false, true}) {
        CAPTURE(computes);
        CHECK(moved_from_slow_rank(3, 40, computes) > 0);
    }
}

TEST_CASE("task_farm: an unknown number of tasks in work cycles, each cycle's tasks made from the last's results") {
    for (int ranks : {1, 2, 3}) {
        std::vector<double> sequential{1.0};
        for (int cycle = 0; cycle < 4; ++cycle) {
            std::vector<double> next;
            for (double v : sequential)
                for (int k = 0; k < 3; ++k) next.push_back(std::sqrt(v + k));
            sequential = next;
        }
        in_process::run(ranks, [&](in_process::endpoint& t) {
            std::vector<double> last;
            auto out = task_farm<double>(
                    t,
                    [&](auto& farm) {
                        std::vector<double> current{1.0};
                        for (int cycle = 0; cycle < 4; ++cycle) {
                            std::uint64_t const first = farm.results().size();
                            for (double v : current)
                                for (int k = 0; k < 3; ++k) farm.submit(v + k);
                            farm.wait_all();
                            auto const all = farm.results();
                            REQUIRE(all.size() == first + current.size() * 3);
                            current.assign(all.begin() + static_cast<std::ptrdiff_t>(first), all.end());
                        }
                        last = current;
                    },
                    [](double const& v) { return std::sqrt(v); });
            if (t.rank() == 0) {
                CHECK(last == sequential);
                CHECK(out.value.size() == 3 + 9 + 27 + 81);
            }
            CHECK(out.statistics.iterations() == 3 + 9 + 27 + 81);
        });
    }
}

namespace {
struct job {
    std::string name;
    std::vector<double> data;
    template <class Archive>
    void serialize(Archive& a, unsigned) {
        a& name& data;
    }
};
std::string summarize(job const& j) {
    return j.name + ":" + std::to_string(std::accumulate(j.data.begin(), j.data.end(), 0.0));
}
} // namespace

TEST_CASE("task_farm: user types (strings, vectors, structs), the size as cost measure, a callback") {
    for (int ranks : {2, 3}) {
        std::vector<job> jobs;
        for (int i = 0; i < 40; ++i)
            jobs.push_back({"job" + std::to_string(i), std::vector<double>(static_cast<std::size_t>(i * 5 + 1), i)});
        in_process::run(ranks, [&](in_process::endpoint& t) {
            std::vector<std::string> got(jobs.size());
            std::vector<int> times(jobs.size(), 0);
            task_farm<job>(
                    t,
                    [&](auto& farm) {
                        farm.on_result([&](std::uint64_t id, std::string&& s) {
                            got[id] = std::move(s);
                            ++times[id];
                        });
                        for (auto const& j : jobs) farm.submit(j);
                    },
                    [](job const& j) { return summarize(j); });
            if (t.rank() == 0)
                for (std::size_t i = 0; i < jobs.size(); ++i) {
                    CHECK(times[i] == 1);
                    CHECK(got[i] == summarize(jobs[i]));
                }
        });
    }
}

TEST_CASE("task_farm: a priority overrides the order") {
    // One worker, self-scheduling: task 0 holds the worker until all are
    // submitted, so the queue decides the rest: task 10 (priority 1) first.
    std::vector<int> order;
    in_process::run(2, [&](in_process::endpoint& t) {
        task_farm_options o;
        o.placement = "ss";
        o.master_computes = false;
        task_farm<int>(
                t,
                [&](auto& farm) {
                    for (int i = 0; i < 10; ++i) farm.submit(i);
                    farm.submit(10, task_hints{.cost = std::nullopt, .priority = 1.0});
                },
                [&](int const& i) {
                    if (i == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
                    order.push_back(i); // one worker thread writes
                    return i;
                },
                o);
    });
    CHECK(order == std::vector<int>{0, 10, 1, 2, 3, 4, 5, 6, 7, 8, 9});
}

TEST_CASE("task_farm: user cost estimates order a worker's tasks, largest first once the model is fitted") {
    for (int ranks : {2, 3, 4}) {
        CAPTURE(ranks);
        task_farm_options o;
        o.master_computes = false;
        std::vector<std::atomic<int>> runs(300);
        in_process::run(ranks, [&](in_process::endpoint& t) {
            auto out = task_farm<int>(
                    t,
                    [&](auto& farm) {
                        for (int i = 0; i < 300; ++i) farm.submit(i, task_hints{.cost = double(300 - i)});
                    },
                    [&](int const& i) {
                        runs[static_cast<std::size_t>(i)]++;
                        return compute(300 - i);
                    },
                    o);
            if (t.rank() == 0)
                for (int i = 0; i < 300; ++i) REQUIRE(out.value[static_cast<std::size_t>(i)] == compute(300 - i));
        });
        for (auto const& r : runs) REQUIRE(r == 1);
    }
}

TEST_CASE("task_farm: stop after a number of results; the rest is cancelled, said, never run") {
    for (int ranks : {1, 2, 4}) {
        CAPTURE(ranks);
        std::vector<std::atomic<int>> runs(500);
        in_process::run(ranks, [&](in_process::endpoint& t) {
            task_farm_options o;
            o.stop_after_results = 20;
            bool saw_stop = false;
            auto out = task_farm<int>(
                    t,
                    [&](auto& farm) {
                        for (int i = 0; i < 500; ++i) {
                            farm.submit(i);
                            if (i % 50 == 49) farm.wait_all();
                            saw_stop = saw_stop || farm.stopping();
                        }
                    },
                    [&](int const& i) {
                        runs[static_cast<std::size_t>(i)]++;
                        std::this_thread::sleep_for(std::chrono::microseconds(200));
                        return i;
                    },
                    o);
            if (t.rank() == 0) {
                CHECK(saw_stop);
                std::size_t const delivered = testing::check_ran_or_cancelled(runs, out);
                CHECK(delivered >= 20);
                CHECK(delivered < 500);
            }
        });
    }
}

TEST_CASE("task_farm: a time limit stops the farm") {
    std::atomic<int> ran = 0;
    in_process::run(2, [&](in_process::endpoint& t) {
        task_farm_options o;
        o.time_limit = 0.05;
        auto out = task_farm<int>(
                t,
                [&](auto& farm) {
                    for (int i = 0; i < 2000; ++i) farm.submit(i);
                },
                [&](int const& i) {
                    ++ran;
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                    return i;
                },
                o);
        if (t.rank() == 0) {
            CHECK(!out.cancelled.empty());
            CHECK(out.cancelled.size() + static_cast<std::size_t>(ran.load()) == 2000);
        }
    });
}

TEST_CASE("task_farm: a throwing task makes every rank throw remote_error") {
    for (int ranks : {1, 2, 3, 4}) {
        CAPTURE(ranks);
        std::atomic<int> threw = 0;
        in_process::run(ranks, [&](in_process::endpoint& t) {
            try {
                task_farm<int>(
                        t,
                        [](auto& farm) {
                            for (int i = 0; i < 100; ++i) farm.submit(i);
                        },
                        [](int const& i) {
                            if (i == 37) throw std::runtime_error("task 37 failed");
                            return i;
                        });
            } catch (remote_error const& e) {
                CHECK(std::string(e.what()).find("task 37 failed") != std::string::npos);
                ++threw;
            }
        });
        CHECK(threw == ranks);
    }
}

TEST_CASE("task_farm: a throwing producer makes every rank throw") {
    std::atomic<int> threw = 0;
    in_process::run(3, [&](in_process::endpoint& t) {
        try {
            task_farm<int>(
                    t,
                    [](auto& farm) {
                        farm.submit(1);
                        throw std::runtime_error("no more input");
                    },
                    [](int const& i) { return i; });
        } catch (remote_error const& e) {
            CHECK(std::string(e.what()).find("no more input") != std::string::npos);
            ++threw;
        }
    });
    CHECK(threw == 3);
}

namespace {

/// A one-task farm with options `o` on 3 ranks (rank `leaver`, if any, with
/// a departure in options.leaving): every rank throws invalid_parameter naming `parameter`.
void rejects(task_farm_options const& o, std::string const& parameter, int leaver = -1) {
    departure d;
    std::atomic<int> threw = 0;
    in_process::run(3, [&](in_process::endpoint& t) {
        task_farm_options mine = o;
        if (t.rank() == leaver) mine.leaving = &d;
        try {
            task_farm<int>(
                    t, [](auto& farm) { farm.submit(1); }, [](int const& i) { return i; }, mine);
        } catch (invalid_parameter const& e) {
            CHECK(e.parameter() == parameter);
            ++threw;
        }
    });
    CHECK(threw == 3);
}

} // namespace

TEST_CASE("task_farm: bad options are rejected on every rank, naming the parameter") {
    task_farm_options o;
    o.initial_tasks = 0;
    rejects(o, "options.initial_tasks");
    o = {};
    o.placement = "fss";
    rejects(o, "options.expected_tasks");
    o = {};
    o.transfer_gain = 1.5;
    rejects(o, "options.transfer_gain");
    o = {};
    o.placement = testing::work_first_placement{}; // a tree's dividing placement: a farm divides nothing
    rejects(o, "options.placement");
    o = {};
    o.placement = "ss/kazouris"; // two levels: the root serves its groups only
    o.master_computes = true;
    rejects(o, "options.master_computes");
    // Tasks finish in no fixed order: a farm's options have no `deterministic` to set.
    static_assert(!settable_deterministic<task_farm_options>);
    static_assert(settable_deterministic<parallel_for_options>); // the concept can hold
    o = {};
    o.placement = "steal"; // divide-and-conquer's
    rejects(o, "options.placement");
    o = {};
    o.placement = "trees"; // TreeS splits a DOALL loop's running chunks
    o.expected_tasks = 1;
    rejects(o, "options.placement");
    o = {};
    o.placement = "nope";
    rejects(o, "options.placement");
    o = {};
    o.placement = "block"; // a DOALL loop's mapping
    rejects(o, "options.placement");
    o = {};
    o.placement = "ss/"; // two levels, one missing
    rejects(o, "options.placement");
    o = {};
    auto levels = parse_farm_hierarchy("ss/ss");
    levels.message_seconds = -1.0;
    o.placement = levels;
    rejects(o, "hierarchical.message_seconds");
    o = {};
    o.placement = "fss";
    o.expected_tasks = 5; // one task is submitted
    rejects(o, "options.expected_tasks");
    // The former name still chooses, one release long, and its errors name it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    o = {};
    o.scheme = "nope";
    rejects(o, "options.scheme");
    o = {};
    o.placement = "nope";
    o.scheme = "ss";
    std::atomic<int> ran = 0;
    in_process::run(2, [&](in_process::endpoint& t) {
        auto out = task_farm<int>(
                t, [](auto& farm) { farm.submit(1); }, [](int const& i) { return i + 1; }, o);
        if (t.rank() == 0 && out.value == std::vector<int>{2}) ++ran;
    });
    CHECK(ran == 1);
#pragma GCC diagnostic pop

    std::atomic<int> threw = 0;
    in_process::run(2, [&](in_process::endpoint& t) {
        task_farm_options differs;
        differs.idle_below = t.rank() == 0 ? 2 : 3;
        try {
            task_farm<int>(
                    t, [](auto& farm) { farm.submit(1); }, [](int const& i) { return i; }, differs);
        } catch (invalid_parameter const&) {
            ++threw;
        }
    });
    CHECK(threw == 2);
}

TEST_CASE("task_farm: cost model, the document's fit on hand-computed numbers") {
    detail::farm_cost_model m(10, 4);
    // cost = 2 heur + 1 on heur 1..3: not ready before r = 4 replies.
    for (std::uint64_t id = 0; id < 3; ++id) m.add(id, double(id + 1), 2.0 * double(id + 1) + 1.0);
    CHECK(!m.ready());
    CHECK(m.total(10.0, 2.0) == 2.0); // one unit per task until then
    m.add(3, 4.0, 9.0);
    REQUIRE(m.ready());
    // 4 samples: ends of 2 points: old (1.5, 4), new (3.5, 8): lambda 2; H 2.5, NC 6.
    CHECK(m.lambda() == doctest::Approx(2.0));
    CHECK(m.h() == doctest::Approx(2.5));
    CHECK(m.nc() == doctest::Approx(6.0));
    CHECK(m.estimate(10.0) == doctest::Approx(21.0));
    // Fill the window with ids 4..9 (cost 5 per task, flat), then: points of 3 at each end.
    for (std::uint64_t id = 4; id < 10; ++id) m.add(id, double(id + 1), 5.0);
    // samples by id: costs 3,5,7,9,5,5,5,5,5,5 on heur 1..10: old (2, 5), new (9, 5): lambda 0.
    CHECK(m.lambda() == doctest::Approx(0.0));
    CHECK(m.nc() == doctest::Approx(5.4));
    // A newer reply pushes out the oldest; one older than the whole window is not fitted.
    m.add(10, 11.0, 8.0); // window ids 1..10: costs 5,7,9,5,5,5,5,5,5,8
    CHECK(m.nc() == doctest::Approx(5.9));
    // The ends (7 and 6, a slope of -1/7) differ by less than three standard
    // errors of the residuals (about 1.5 each): noise, so no slope.
    CHECK(m.lambda() == 0.0);
    m.add(0, 1.0, 1000.0);
    CHECK(m.nc() == doctest::Approx(5.9));
    // A trend well above its noise keeps its slope: cost = 2 heur +- 0.1.
    detail::farm_cost_model trend(10, 4);
    for (std::uint64_t id = 0; id < 10; ++id)
        trend.add(id, double(id), 2.0 * double(id) + (id % 2 == 0 ? 0.1 : -0.1));
    CHECK(trend.lambda() == doctest::Approx(2.0).epsilon(0.05));
    // Equal costs up to chance (the ends 1.0 and 1.6 apart by 0.6, residuals
    // about 0.5): no slope, every task estimated at the mean.
    detail::farm_cost_model chance(10, 4);
    double const chance_costs[] = {1.5, 0.5, 1.0, 1.0, 0.2, 1.8, 0.9, 1.1, 2.0, 1.7};
    for (std::uint64_t id = 0; id < 10; ++id) chance.add(id, double(id), chance_costs[id]);
    CHECK(chance.lambda() == 0.0);
    CHECK(chance.estimate(1000.0) == doctest::Approx(chance.nc()));
    // No estimate below the cheapest time in the window, nor a sum of k below k times it.
    detail::farm_cost_model falling(10, 2);
    falling.add(0, 1.0, 10.0);
    falling.add(1, 2.0, 5.0);
    CHECK(falling.lambda() == doctest::Approx(-5.0));
    CHECK(falling.estimate(10.0) == 5.0);
    CHECK(falling.total(30.0, 3.0) == 15.0);
    CHECK(falling.estimate(1.0) == doctest::Approx(10.0));
    // A donor estimates its tasks as the master does, floor included: a task
    // queued long before the window is not free to give away.
    detail::farm_transfer const ask{1.0, 0, 0, falling.lambda(), falling.h(), falling.nc(), 1, falling.least()};
    CHECK(ask.estimate(10.0) == doctest::Approx(falling.estimate(10.0)));
    CHECK(ask.estimate(1.0) == doctest::Approx(falling.estimate(1.0)));
    CHECK(detail::farm_transfer{}.estimate(10.0) == 1.0); // before the model: one unit per task
    // A falling slope with one very cheap sample (an exponential window's
    // minimum): tasks past the window's newest end are estimated at the
    // line's value there, not at the cheapest sample. Else the queued tasks
    // (all past that end) came out at a fiftieth of the held ones, and one
    // idle worker's share of the total was hundreds of them.
    detail::farm_cost_model steep(10, 4);
    double const steep_costs[] = {20.0, 18.0, 17.0, 12.0, 11.0, 9.0, 8.0, 6.0, 4.0, 0.1};
    for (std::uint64_t id = 0; id < 10; ++id) steep.add(id, double(id), steep_costs[id]);
    REQUIRE(steep.lambda() < 0.0); // passed the noise test
    double const at_newest = steep.nc() + steep.lambda() * (9.0 - steep.h());
    CHECK(at_newest > 0.5);
    CHECK(steep.least() == doctest::Approx(at_newest));
    CHECK(steep.estimate(1000.0) == doctest::Approx(at_newest));
    CHECK(steep.estimate(5.0) == doctest::Approx(steep.nc() + steep.lambda() * (5.0 - steep.h()))); // inside: the line
    CHECK(steep.estimate(-100.0) > steep.estimate(0.0)); // past the oldest end the line goes on upwards
    detail::farm_transfer const steep_ask{1.0, 0, 0, steep.lambda(), steep.h(), steep.nc(), 1, steep.least()};
    CHECK(steep_ask.estimate(1000.0) == doctest::Approx(at_newest)); // the donor's too
}

namespace {

/// A farm of n tasks on `ranks` threads where rank `leaver` is asked to leave
/// once it has run `after` tasks (0: before its first), or, with `after` < 0,
/// once all ranks together have run n + after (a signal from elsewhere near
/// the end: it leaves only if it still gets work). Every task's result once,
/// equal to the sequential one; every rank's table names the ranks that left.
/// Returns whether the leaver left.
bool check_departure(int ranks, int n, int leaver, int after, task_farm_options o) {
    o.departures = true;
    std::vector<std::atomic<int>> runs(static_cast<std::size_t>(n));
    std::vector<loop_statistics> stats(static_cast<std::size_t>(ranks));
    std::vector<double> results;
    departure owner_back;
    std::atomic<int> ran_there = 0, ran_anywhere = 0, after_asked = 0;
    in_process::run(ranks, [&](in_process::endpoint& t) {
        task_farm_options mine = o;
        if (t.rank() == leaver) {
            mine.leaving = &owner_back;
            if (after == 0) owner_back.leave();
        }
        auto out = task_farm<int>(
                t, [&](auto& farm) { for (int i = 0; i < n; ++i) farm.submit(i); },
                [&](int const& i) {
                    if (t.rank() == leaver && owner_back.asked()) ++after_asked; // the running task finishes
                    if (t.rank() == leaver && ++ran_there == after) owner_back.leave();
                    if (++ran_anywhere == n + after && after < 0) owner_back.leave();
                    runs[static_cast<std::size_t>(i)]++;
                    std::this_thread::sleep_for(std::chrono::microseconds(50));
                    return compute(i);
                },
                mine);
        stats[static_cast<std::size_t>(t.rank())] = out.statistics;
        if (t.rank() == o.root) results = out.value;
    });
    REQUIRE(results.size() == static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        REQUIRE(runs[static_cast<std::size_t>(i)] == 1);
        REQUIRE(results[static_cast<std::size_t>(i)] == compute(i)); // bit-identical
    }
    bool const left = !stats[static_cast<std::size_t>(o.root)].departed.empty();
    for (auto const& s : stats) {
        CHECK(s.departed == (left ? std::vector<int>{leaver} : std::vector<int>{}));
        CHECK(s.iterations() == n); // each task counted where it ran
    }
    CHECK(after_asked == 0); // it started no task once asked to leave
    return left;
}

} // namespace

TEST_CASE("task_farm: a worker that leaves gives back its unstarted tasks; results as a sequential run") {
    for (std::string scheme : {"kazouris", "ss", "fss"})
        for (int after : {0, 1, 20, -20}) // before its first task, after its first, in the middle, near the end
            for (bool computes : {true, false}) {
                CAPTURE(scheme);
                CAPTURE(after);
                CAPTURE(computes);
                task_farm_options o;
                o.placement = scheme;
                o.expected_tasks = 300;
                o.master_computes = computes;
                bool const left = check_departure(4, 300, 2, after, o);
                if (after >= 0) CHECK(left);
            }
    SUBCASE("two ranks, the only other worker leaves: the root's own worker finishes the farm") {
        task_farm_options o;
        o.placement = "ss";
        CHECK(check_departure(2, 120, 1, 10, o));
    }
    SUBCASE("what a departure cannot go with fails on every rank, named") {
        task_farm_options no_flag;
        rejects(no_flag, "options.departures", 1);
        task_farm_options root;
        root.departures = true;
        rejects(root, "options.leaving", 0);
        task_farm_options estimates;
        estimates.departures = true;
        estimates.placement = "dlpt";
        rejects(estimates, "options.departures", 1);
        task_farm_options levels;
        levels.departures = true;
        levels.placement = "ss/ss";
        rejects(levels, "options.departures");
    }
}

namespace {

/// n tasks on `ranks` threads, rank `slow`'s tasks taking `pause` (rank
/// `stalls` stalling `stall` on its first): every task ran at least once and
/// the root's results are the sequential ones, each once. Returns every rank's
/// table, or the errors they threw (then empty tables).
std::vector<loop_statistics> run_copied_farm(int ranks, int n, int slow, std::chrono::microseconds pause,
                                             task_farm_options o, std::vector<std::string>& errors, int stalls = -1,
                                             std::chrono::milliseconds stall = {}) {
    std::vector<std::atomic<int>> runs(static_cast<std::size_t>(n));
    std::vector<loop_statistics> stats(static_cast<std::size_t>(ranks));
    std::vector<double> results;
    errors.assign(static_cast<std::size_t>(ranks), "");
    in_process::run(ranks, [&](in_process::endpoint& t) {
        bool stalled = false;
        try {
            auto out = task_farm<int>(
                    t, [&](auto& farm) { for (int i = 0; i < n; ++i) farm.submit(i); },
                    [&](int const& i) {
                        if (t.rank() == stalls && !std::exchange(stalled, true)) std::this_thread::sleep_for(stall);
                        std::this_thread::sleep_for(t.rank() == slow ? pause : std::chrono::microseconds(50));
                        runs[static_cast<std::size_t>(i)]++;
                        return compute(i);
                    },
                    o);
            stats[static_cast<std::size_t>(t.rank())] = out.statistics;
            if (t.rank() == o.root) results = out.value;
        } catch (error const& e) {
            errors[static_cast<std::size_t>(t.rank())] = e.what();
        }
    });
    if (!errors[static_cast<std::size_t>(o.root)].empty()) return stats;
    REQUIRE(results.size() == static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        REQUIRE(runs[static_cast<std::size_t>(i)] >= 1);
        REQUIRE(results[static_cast<std::size_t>(i)] == compute(i)); // bit-identical, the first copy's
    }
    return stats;
}

} // namespace

TEST_CASE("task_farm with reissue: a copy that polls may hear the stop mid-task; the next farms run clean") {
    // Rank 2's tasks take 20 ms in slices with a poll between: the farm ends
    // (another copy's result came in) while it runs one, and its poll takes the
    // stop. Its result then must not go out after its report.
    task_farm_options o;
    o.placement = "ss";
    o.expected_tasks = 120;
    o.master_computes = false;
    o.reissue = true;
    o.poll_interval = 1e-6;
    in_process::run(4, [&](in_process::endpoint& t) {
        for (int round = 0; round < 3; ++round) {
            auto out = task_farm<int>(
                    t, [&](auto& farm) { for (int i = 0; i < 120; ++i) farm.submit(i); },
                    [&](int const& i) {
                        auto const slice = std::chrono::microseconds(t.rank() == 2 ? 1000 : 3);
                        for (int k = 0; k < 20; ++k) {
                            std::this_thread::sleep_for(slice);
                            this_task::poll();
                        }
                        return compute(i);
                    },
                    o);
            if (t.rank() == 0) {
                REQUIRE(out.value.size() == 120);
                for (int i = 0; i < 120; ++i) CHECK(out.value[static_cast<std::size_t>(i)] == compute(i));
            }
        }
    });
}

TEST_CASE("task_farm with reissue: a slow worker's tasks are copied to idle ones, results once as a sequential run") {
    for (std::string scheme : {"kazouris", "ss", "fss"})
        for (bool computes : {true, false}) {
            CAPTURE(scheme);
            CAPTURE(computes);
            task_farm_options o;
            o.placement = scheme;
            o.expected_tasks = 200;
            o.master_computes = computes;
            o.reissue = true;
            std::vector<std::string> errors;
            // Rank 2's tasks take 20 ms, the others' 50 us: its last ones are copied.
            auto const stats = run_copied_farm(4, 200, 2, std::chrono::microseconds(20'000), o, errors);
            for (auto const& e : errors) CHECK(e.empty());
            auto const& root = stats[0];
            CHECK(root.reissued >= 1);
            CHECK(root.dropped <= root.reissued);
            CHECK(root.iterations() >= 200); // copies count where they ran
            for (auto const& s : stats) {
                CHECK(s.reissued == root.reissued);
                CHECK(s.dropped == root.dropped);
            }
        }
    SUBCASE("what reissue cannot go with fails on every rank, named") {
        task_farm_options estimates;
        estimates.reissue = true;
        estimates.placement = "dlpt";
        rejects(estimates, "options.reissue");
        task_farm_options levels;
        levels.reissue = true;
        levels.placement = "ss/ss";
        rejects(levels, "options.reissue");
        task_farm_options silent_levels;
        silent_levels.presumed_lost_after = 1.0;
        silent_levels.placement = "ss/ss";
        rejects(silent_levels, "options.presumed_lost_after");
        task_farm_options never;
        never.presumed_lost_after = -1.0;
        rejects(never, "options.presumed_lost_after");
    }
}

TEST_CASE("task_farm with a failure detector: a worker that stalls past presumed_lost_after") {
    // Rank 1's first task stalls 1 s; the master presumes it lost after 0.2 s.
    for (std::string scheme : {"kazouris", "ss"}) {
        CAPTURE(scheme);
        task_farm_options o;
        o.placement = scheme;
        o.presumed_lost_after = 0.2;
        std::vector<std::string> errors;
        SUBCASE("with reissue its tasks go to others: results once, the rank named lost on every rank") {
            o.reissue = true;
            auto const stats = run_copied_farm(3, 300, -1, {}, o, errors, 1, std::chrono::milliseconds(1000));
            for (auto const& e : errors) CHECK(e.empty());
            for (auto const& s : stats) CHECK(s.lost == std::vector<int>{1});
        }
        SUBCASE("without, every rank throws the same error, the stalled one once it is back") {
            (void)run_copied_farm(3, 300, -1, {}, o, errors, 1, std::chrono::milliseconds(1000));
            for (auto const& e : errors)
                CHECK_MESSAGE(e.find("rank 1 was presumed lost: silent for 0.2 s") != std::string::npos, e);
        }
    }
}
