// task_farm over real MPI (run by ctest under mpiexec with 1 to 4 ranks):
// every scheme, every root, unknown task counts in work cycles, user types,
// emulated heterogeneity, stopping early, a throwing task, bad options.
#include "../support/mpi_check.hpp"
#include "../support/mpi_programs.hpp"
#include "../support/user_placement.hpp"

#include <loopsched/departure.hpp>
#include <loopsched/error.hpp>
#include <loopsched/hierarchical.hpp>
#include <loopsched/mapping/dlpt.hpp>
#include <loopsched/mpi/task_farm.hpp>
#include <loopsched/options.hpp>
#include <loopsched/placement_spec.hpp>
#include <loopsched/serialization.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/environment.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>

#include <chrono>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

using namespace loopsched;

namespace {

double compute(int task) {
    double x = 0.0;
    for (int i = 0; i < (task % 5 + 1) * 300; ++i) x += std::sin(0.001 * (task + i));
    return x;
}

/// n tasks; each rank counts what it ran; the root checks every result, the
/// counts are summed to check exactly-once.
void check_farm(boost::mpi::communicator const& world, testing::tally& t, int n, task_farm_options const& o,
                std::string const& what) {
    std::vector<int> ran(static_cast<std::size_t>(n), 0);
    auto out = task_farm<int>(
            world,
            [&](auto& farm) {
                for (int i = 0; i < n; ++i) farm.submit(i);
            },
            [&](int const& i) {
                ++ran[static_cast<std::size_t>(i)];
                return compute(i);
            },
            o);
    t.check(out.statistics.iterations() == n, what + ": statistics count every task");
    std::vector<int> total(ran.size(), 0);
    boost::mpi::reduce(world, ran.data(), n, total.data(), std::plus<>(), o.root);
    if (world.rank() != o.root) return;
    bool once = true, identical = out.value.size() == static_cast<std::size_t>(n);
    for (int i = 0; i < n; ++i) {
        once = once && total[static_cast<std::size_t>(i)] == 1;
        identical = identical && out.value[static_cast<std::size_t>(i)] == compute(i);
    }
    t.check(once, what + ": every task ran exactly once");
    t.check(identical, what + ": results identical to a sequential run");
}

struct record {
    std::string key;
    std::vector<int> values;
    template <class Archive>
    void serialize(Archive& a, unsigned) {
        a& key& values;
    }
};

} // namespace

int loopsched::testing::task_farm_mpi_test(int argc, char** argv) {
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    testing::tally t(world.rank());

    for (std::string scheme : {"kazouris", "ss", "fss", "af", "w-gss", "dlpt", "round-robin"})
        for (int root = 0; root < world.size(); ++root)
            for (bool computes : {true, false}) {
                task_farm_options o;
                o.placement = scheme;
                o.root = root;
                o.master_computes = computes;
                o.expected_tasks = 211;
                check_farm(world, t, 211, o,
                           scheme + " root " + std::to_string(root) + (computes ? " computing" : " dedicated"));
            }

    // Two levels; on 4 ranks: rank 0 the root, rank 1 a computing sub-master of ranks 2 and 3.
    if (world.size() > 1) {
        for (std::string scheme : {"ss/ss", "ss/kazouris", "fss/af", "kazouris/dlpt"}) {
            task_farm_options o;
            auto levels = parse_farm_hierarchy(scheme);
            levels.group_size = 3;
            levels.sub_masters_compute = true;
            o.placement = levels;
            o.expected_tasks = 211;
            check_farm(world, t, 211, o, "hierarchical " + scheme + ", a computing sub-master of two");
        }
        task_farm_options o; // groups of two, sub-masters that only schedule, the root last
        o.placement = hierarchical{self_scheduling_placement{}, self_scheduling_placement{}, 2};
        o.root = world.size() - 1;
        check_farm(world, t, 150, o, "hierarchical ss/ss, groups of two, the root last");
        o.placement = hierarchical{testing::half_share_placement{}, testing::steal_or_pairs_placement{}, 2};
        check_farm(world, t, 150, o, "hierarchical of the user's farm placements, groups of two");
    }

    // Farm placements of the user's (FarmPlacement), one also a tree's, by value.
    for (bool computes : {true, false}) {
        task_farm_options o;
        o.master_computes = computes;
        o.placement = testing::half_share_placement{};
        check_farm(world, t, 211, o, std::string("the user's half-share") + (computes ? " computing" : " dedicated"));
        o.placement = testing::steal_or_pairs_placement{};
        check_farm(world, t, 211, o, std::string("the user's steal-or-pairs") + (computes ? " computing" : " dedicated"));
    }

    // Producers in groups: each sub-master makes its part of the tasks (alone,
    // the one rank makes them all); results stay where they were made.
    for (std::string scheme : {"ss/kazouris", "kazouris/ss"})
        for (bool computing : {true, false}) {
            task_farm_options o;
            auto levels = parse_farm_hierarchy(scheme);
            levels.group_size = computing ? 3 : 2;
            levels.sub_masters_compute = computing;
            o.placement = levels;
            o.producers_in_groups = true;
            std::string const what = "producers in groups, " + scheme + (computing ? " computing" : " scheduling");
            int const n = 173;
            std::vector<int> ran(static_cast<std::size_t>(n), 0), made(static_cast<std::size_t>(n), 0);
            std::uint64_t first = 0, last = 0;
            auto out = task_farm<int>(
                    world,
                    [&](auto& farm) {
                        std::tie(first, last) = farm.share(static_cast<std::uint64_t>(n));
                        for (auto i = first; i < last; ++i) {
                            ++made[static_cast<std::size_t>(i)];
                            farm.submit(static_cast<int>(i));
                        }
                    },
                    [&](int const& i) {
                        ++ran[static_cast<std::size_t>(i)];
                        return compute(i);
                    },
                    o);
            t.check(out.statistics.iterations() == n, what + ": statistics count every task");
            bool identical = out.value.size() == last - first;
            for (auto i = first; identical && i < last; ++i)
                identical = out.value[static_cast<std::size_t>(i - first)] == compute(static_cast<int>(i));
            t.check(identical, what + ": each group's results identical to a sequential run");
            std::vector<int> ran_total(ran.size(), 0), made_total(made.size(), 0);
            boost::mpi::reduce(world, ran.data(), n, ran_total.data(), std::plus<>(), 0);
            boost::mpi::reduce(world, made.data(), n, made_total.data(), std::plus<>(), 0);
            if (world.rank() != 0) continue;
            bool once = true;
            for (int i = 0; i < n; ++i)
                once = once && ran_total[static_cast<std::size_t>(i)] == 1 && made_total[static_cast<std::size_t>(i)] == 1;
            t.check(once, what + ": every task made once and ran once");
        }

    { // heterogeneous, emulated: rank 0 four times as fast, speeds from every reply
        task_farm_options o;
        o.powers.assign(static_cast<std::size_t>(world.size()), 1.0);
        o.powers[0] = 4.0;
        o.emulate_powers = true;
        o.load_aware = true;
        check_farm(world, t, 150, o, "kazouris 4:1:1:1");
    }

    // Departures: the last rank leaves after its first, 20th or no task (before
    // any): its unstarted tasks go back, every task runs once, every rank's
    // table names it. Alone, a rank has nobody to leave the work to.
    if (world.size() > 1)
        for (std::string scheme : {"kazouris", "ss", "fss"})
            for (int after : {0, 1, 20}) {
                departure away;
                task_farm_options o;
                o.placement = scheme;
                o.expected_tasks = 200;
                o.departures = true;
                int const leaver = world.size() - 1;
                if (world.rank() == leaver) o.leaving = &away;
                bool left = world.rank() == leaver && after == 0;
                if (left) away.leave();
                int mine = 0;
                bool after_asked = false;
                std::vector<int> ran(200, 0);
                auto out = task_farm<int>(
                        world, [&](auto& farm) { for (int i = 0; i < 200; ++i) farm.submit(i); },
                        [&](int const& i) {
                            after_asked = after_asked || away.asked();
                            if (world.rank() == leaver && ++mine == after) {
                                left = true;
                                away.leave();
                            }
                            ++ran[static_cast<std::size_t>(i)];
                            std::this_thread::sleep_for(std::chrono::microseconds(100));
                            return compute(i);
                        },
                        o);
                std::string const what = "departure " + scheme + " after " + std::to_string(after);
                // On a loaded machine the others may run all tasks before the leaver reaches its 20th.
                boost::mpi::broadcast(world, left, leaver);
                t.check(left || after > 1, what + ": the rank left");
                t.check(out.statistics.departed == (left ? std::vector<int>{leaver} : std::vector<int>{}),
                        what + ": the table names the rank if it left, and only then");
                t.check(!after_asked, what + ": it started no task once asked to leave");
                std::vector<int> total(ran.size(), 0);
                boost::mpi::reduce(world, ran.data(), 200, total.data(), std::plus<>(), 0);
                if (world.rank() == 0) {
                    bool exact = out.value.size() == 200;
                    for (int i = 0; exact && i < 200; ++i)
                        exact = total[static_cast<std::size_t>(i)] == 1 && out.value[static_cast<std::size_t>(i)] == compute(i);
                    t.check(exact, what + ": every task once, results as a sequential run");
                }
            }

    // Reissue with a failure detector that finds nobody lost: the last rank's
    // tasks take 5 ms, the others' 0.1 ms, so its last ones are copied; every
    // result reaches the root once, as a sequential run's, whichever copy won.
    if (world.size() > 1)
        for (std::string scheme : {"kazouris", "ss"}) {
            task_farm_options o;
            o.placement = scheme;
            o.reissue = true;
            o.presumed_lost_after = 30.0;
            int const slow = world.size() - 1;
            std::vector<int> ran(200, 0);
            auto out = task_farm<int>(
                    world, [&](auto& farm) { for (int i = 0; i < 200; ++i) farm.submit(i); },
                    [&](int const& i) {
                        ++ran[static_cast<std::size_t>(i)];
                        std::this_thread::sleep_for(std::chrono::microseconds(world.rank() == slow ? 5000 : 100));
                        return compute(i);
                    },
                    o);
            std::string const what = "reissue " + scheme;
            t.check(out.statistics.lost.empty(), what + ": nobody is presumed lost");
            t.check(out.statistics.dropped <= out.statistics.reissued, what + ": no more dropped than copied");
            std::vector<int> total(ran.size(), 0);
            boost::mpi::reduce(world, ran.data(), 200, total.data(), std::plus<>(), 0);
            if (world.rank() == 0) {
                bool exact = out.value.size() == 200;
                for (int i = 0; exact && i < 200; ++i)
                    exact = total[static_cast<std::size_t>(i)] >= 1 && out.value[static_cast<std::size_t>(i)] == compute(i);
                t.check(exact, what + ": every task run, each result once, as a sequential run");
            }
        }

    { // work cycles over user types, the count unknown in advance
        std::vector<std::string> last;
        auto out = task_farm<record>(
                world,
                [&](auto& farm) {
                    std::vector<std::string> keys{"a"};
                    for (int cycle = 0; cycle < 3; ++cycle) {
                        std::size_t const first = farm.results().size();
                        for (auto const& k : keys)
                            for (int v = 1; v <= 4; ++v) farm.submit(record{k, std::vector<int>(std::size_t(v), v)});
                        farm.wait_all();
                        auto const r = farm.results();
                        keys.assign(r.begin() + static_cast<std::ptrdiff_t>(first), r.end());
                    }
                    last = keys;
                },
                [](record const& r) {
                    return r.key + std::to_string(std::accumulate(r.values.begin(), r.values.end(), 0));
                });
        if (world.rank() == 0) {
            t.check(last.size() == 64 && last.front() == "a1" + std::string("1") + "1" && last.back() == "a161616",
                    "work cycles: results made from the previous cycle's");
            t.check(out.value.size() == 4 + 16 + 64, "work cycles: every result collected");
        }
    }

    { // stop after 30 results: the rest cancelled, none run twice
        task_farm_options o;
        o.stop_after_results = 30;
        std::vector<int> ran(400, 0);
        auto out = task_farm<int>(
                world,
                [&](auto& farm) {
                    for (int i = 0; i < 400; ++i) farm.submit(i);
                },
                [&](int const& i) {
                    ++ran[static_cast<std::size_t>(i)];
                    std::this_thread::sleep_for(std::chrono::microseconds(300));
                    return i;
                },
                o);
        std::vector<int> total(ran.size(), 0);
        boost::mpi::reduce(world, ran.data(), 400, total.data(), std::plus<>(), 0);
        if (world.rank() == 0) {
            bool exact = true;
            int delivered = 0;
            for (int i = 0; i < 400; ++i) {
                bool const cancelled = std::ranges::binary_search(out.cancelled, std::uint64_t(i));
                exact = exact && (total[static_cast<std::size_t>(i)] == 1) != cancelled;
                delivered += total[static_cast<std::size_t>(i)];
            }
            t.check(exact, "stop_after_results: each task ran once or was cancelled");
            t.check(delivered >= 30 && delivered < 400, "stop_after_results: stopped after 30");
        }
    }

    { // a throwing task: every rank throws remote_error, and the next farm runs
        bool threw = false;
        try {
            task_farm<int>(
                    world,
                    [](auto& farm) {
                        for (int i = 0; i < 60; ++i) farm.submit(i);
                    },
                    [](int const& i) {
                        if (i == 41) throw std::runtime_error("task 41 failed");
                        return i;
                    });
        } catch (remote_error const& e) {
            threw = std::string(e.what()).find("task 41 failed") != std::string::npos;
        }
        t.check(threw, "a throwing task: remote_error on every rank");
        check_farm(world, t, 50, {}, "the farm after a failure");
    }

    { // options that differ across ranks: invalid_parameter on every rank, before any task
        task_farm_options o;
        o.initial_tasks = world.rank() == world.size() - 1 ? 4 : 3;
        bool rejected = world.size() == 1;
        try {
            task_farm<int>(
                    world, [](auto& farm) { farm.submit(1); }, [](int const& i) { return i; }, o);
        } catch (invalid_parameter const&) {
            rejected = true;
        }
        t.check(rejected, "options that differ across ranks are rejected");
    }
    return t.finish();
}
