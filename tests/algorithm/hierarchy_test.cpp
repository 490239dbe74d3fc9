// Hierarchical parallel_for on the in-process transport: every iteration
// exactly once and results equal to a sequential run, for tree shapes and
// policy pairs; both levels in the statistics and the trace; the groups'
// layout and sizes; the error paths.
#include <loopsched/algorithm/parallel_for.hpp>
#include <loopsched/algorithm/task_farm.hpp>
#include <loopsched/concepts.hpp>
#include <loopsched/error.hpp>
#include <loopsched/hierarchical.hpp>
#include <loopsched/mapping/dlpt.hpp>
#include <loopsched/options.hpp>
#include <loopsched/policies.hpp>
#include <loopsched/runtime/core/trace.hpp>
#include <loopsched/schedule.hpp>
#include <loopsched/space/box.hpp>
#include <loopsched/spec.hpp>
#include <loopsched/transport/in_process.hpp>

#include <doctest/doctest.h>

#include "../support/farm_checks.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <concepts>
#include <numeric>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

using namespace loopsched;

namespace {

double work(index_t i) { return std::cos(0.003 * static_cast<double>(i)) * static_cast<double>(i % 89); }

struct hierarchy_run {
    loop_statistics root;
    std::vector<loop_statistics> all;
};

/// n iterations on `ranks` threads under `h`; checks exactly-once, the
/// gathered results bit for bit against a sequential run, and that every rank
/// got the same table.
template <class B, class W>
hierarchy_run check_hierarchy(int ranks, index_t n, hierarchical<B, W> const& h, parallel_for_options options = {}) {
    std::vector<std::atomic<int>> runs(static_cast<std::size_t>(n));
    hierarchy_run out;
    out.all.resize(static_cast<std::size_t>(ranks));
    std::vector<double> gathered_values;
    in_process::run(ranks, [&](in_process::endpoint& t) {
        auto g = parallel_for(
                t, make_range(n), h,
                [&](index_range const& part, std::span<double> values) {
                    REQUIRE(part.size() > 0);
                    std::size_t j = 0;
                    for (index_t i : part.indices()) {
                        runs[static_cast<std::size_t>(i)]++;
                        values[j++] = work(i);
                    }
                },
                gather<double>{}, options);
        if (t.rank() == options.root) gathered_values = std::move(g.value);
        out.all[static_cast<std::size_t>(t.rank())] = std::move(g.statistics);
    });
    REQUIRE(gathered_values.size() == static_cast<std::size_t>(n));
    for (index_t i = 0; i < n; ++i) {
        REQUIRE(runs[static_cast<std::size_t>(i)] == 1);
        REQUIRE(gathered_values[static_cast<std::size_t>(i)] == work(i)); // bit-identical
    }
    for (auto const& s : out.all) {
        CHECK(s.iterations() == n);
        CHECK(s.workers.size() == out.all[0].workers.size());
        CHECK(s.groups.size() == out.all[0].groups.size());
    }
    out.root = out.all[static_cast<std::size_t>(options.root)];
    return out;
}

index_t sum_iterations(std::vector<worker_statistics> const& rows) {
    return std::accumulate(rows.begin(), rows.end(), index_t{0},
                           [](index_t s, worker_statistics const& w) { return s + w.iterations; });
}

} // namespace

TEST_CASE("hierarchy: groups are consecutive ranks without the root, sizes within one") {
    auto const l = detail::make_groups(11, 0, 4); // 10 ranks in ceil(10/4) = 3 groups: 4, 3, 3
    REQUIRE(l.members.size() == 3);
    CHECK(l.members[0] == std::vector<int>{1, 2, 3, 4});
    CHECK(l.members[1] == std::vector<int>{5, 6, 7});
    CHECK(l.members[2] == std::vector<int>{8, 9, 10});
    auto const m = detail::make_groups(5, 2, 2);
    REQUIRE(m.members.size() == 2);
    CHECK(m.members[0] == std::vector<int>{0, 1});
    CHECK(m.members[1] == std::vector<int>{3, 4});
    CHECK(detail::make_groups(1, 0, 3).members.empty());
    // Sub-masters that do not compute need a worker each: no group of one.
    auto const n = detail::make_groups(4, 0, 2, 2);
    REQUIRE(n.members.size() == 1);
    CHECK(n.members[0] == std::vector<int>{1, 2, 3});
}

TEST_CASE("hierarchy: the automatic group size follows chunk time over request cost") {
    // 10 ms chunks, 4 us a request: a sub-master at a tenth of its load serves 250.
    CHECK(detail::automatic_group_size(4096, 4e-6, 1e-2) == 250);
    CHECK(detail::automatic_group_size(100, 4e-6, 1e-2) == 100); // at most every worker
    CHECK(detail::automatic_group_size(4096, 1e-3, 1e-3) == 2);  // at least two
    CHECK(detail::automatic_group_size(4096, 4e-6, 0.0) == 64);  // unknown: sqrt
    CHECK(detail::measure_request_seconds(fss{}, 64) > 0.0);
}

TEST_CASE("hierarchy: a group's power is the sum of its workers' V/Q") {
    std::vector<worker_status> const s{{2.0, 1.0}, {1.0, 2.0}, {1.0, 1.0}};
    CHECK(detail::group_status(s).power == doctest::Approx(3.5));
    CHECK(detail::group_status(s).run_queue == 1.0);
}

TEST_CASE("hierarchy: every iteration once, results bit-identical, for tree shapes and policy pairs") {
    struct shape {
        int ranks;
        std::size_t group;
        bool compute;
    };
    for (shape const s :
         {shape{2, 0, true}, shape{2, 0, false}, shape{3, 2, true}, shape{4, 3, true}, shape{4, 3, false},
          shape{7, 3, true}, shape{7, 2, false}, shape{9, 4, true}, shape{6, 1, true}}) {
        for (char const* spec : {"fss/af", "ss/ss", "gss/fss", "dtss/tss", "w-fss/css:chunk=7", "fss"}) {
            CAPTURE(s.ranks);
            CAPTURE(s.group);
            CAPTURE(s.compute);
            CAPTURE(spec);
            auto h = parse_hierarchy(spec);
            h.group_size = s.group;
            h.sub_masters_compute = s.compute;
            auto const r = check_hierarchy(s.ranks, 3001, h);
            // The root does not compute: every other rank is a worker, sub-masters
            // only when they compute.
            std::size_t const groups = r.root.groups.size();
            CHECK(groups >= 1);
            bool const alone = s.ranks == 2; // a group of one computes
            CHECK(r.root.workers.size() == static_cast<std::size_t>(s.ranks - 1) - (s.compute || alone ? 0 : groups));
            CHECK(sum_iterations(r.root.groups) == 3001);
            CHECK(sum_iterations(r.root.workers) == 3001);
            for (auto const& w : r.root.workers) CHECK(w.rank != 0);
        }
    }
}

TEST_CASE("hierarchy: a root other than rank 0, and a loop right after on the same transport") {
    in_process::run(5, [&](in_process::endpoint& t) {
        parallel_for_options o;
        o.root = 3;
        std::atomic<index_t> seen{0};
        hierarchical<fss, gss> const h{fss{}, gss{}, 2};
        for (int round = 0; round < 2; ++round) {
            auto const s = parallel_for(
                    t, make_range(500), h, [&](index_range const& part) { seen += part.size(); }, o).statistics;
            CHECK(s.iterations() == 500);
            CHECK(s.groups.size() == 2);
            for (auto const& w : s.workers) CHECK(w.rank != 3);
        }
        auto const flat = parallel_for(t, make_range(100), tss{}, [](index_range const&) {}).statistics;
        CHECK(flat.iterations() == 100);
        CHECK(flat.groups.empty());
    });
}

TEST_CASE("hierarchy: the trace shows the groups' chunks and the workers' pieces of them") {
    parallel_for_options o;
    o.trace = true;
    hierarchical<fss, fss> const h{fss{}, fss{}, 3};
    auto const r = check_hierarchy(7, 2000, h, o);
    std::vector<chunk_event> outer, inner;
    for (auto const& e : r.root.trace) (e.level == 1 ? outer : inner).push_back(e);
    REQUIRE(!outer.empty());
    REQUIRE(!inner.empty());
    auto covered = [](std::vector<chunk_event> v) {
        std::ranges::sort(v, {}, &chunk_event::first);
        index_t next = 0;
        for (auto const& e : v) {
            if (e.first != next) return false;
            next += e.size;
        }
        return next == 2000;
    };
    CHECK(covered(outer)); // the root's chunks cover the loop once
    CHECK(covered(inner)); // and so do the workers' pieces
    std::set<int> sub_masters;
    for (auto const& e : outer) sub_masters.insert(e.rank);
    CHECK(sub_masters == std::set<int>{1, 4});
    // Every piece lies inside one of its group's chunks.
    for (auto const& e : inner) {
        bool inside = false;
        for (auto const& g : outer) inside = inside || (e.first >= g.first && e.first + e.size <= g.first + g.size);
        CHECK(inside);
    }
    index_t outer_chunks = 0;
    for (auto const& g : r.root.groups) outer_chunks += g.chunks;
    CHECK(static_cast<std::size_t>(outer_chunks) == outer.size());
}

TEST_CASE("hierarchy: a load-aware policy between groups follows the groups' summed powers") {
    // Group {1,2} has V = 3 + 3, group {3,4} has V = 1 + 1: DTSS between groups
    // sees two workers of powers 6 and 2.
    parallel_for_options o;
    o.powers = {1.0, 3.0, 3.0, 1.0, 1.0};
    o.run_queues = {1.0, 1.0, 1.0, 1.0, 1.0};
    o.trace = true;
    hierarchical<dtss, fss> const h{dtss{}, fss{}, 2, true};
    auto const r = check_hierarchy(5, 4000, h, o);
    REQUIRE(r.root.groups.size() == 2);
    std::vector<chunk_event> first_of(5);
    std::vector<bool> seen(5, false);
    auto trace = r.root.trace;
    std::ranges::sort(trace, {}, &chunk_event::first);
    for (auto const& e : trace)
        if (e.level == 1 && !seen[static_cast<std::size_t>(e.rank)]) {
            seen[static_cast<std::size_t>(e.rank)] = true;
            first_of[static_cast<std::size_t>(e.rank)] = e;
        }
    REQUIRE(seen[1]);
    REQUIRE(seen[3]);
    // Exactly what DTSS grants two workers of powers 6 and 2 at the opening.
    std::vector<worker_status> const groups{{6.0, 1.0}, {2.0, 1.0}};
    chunk_sequencer<dtss> flat(dtss{}, loop_info{4000, 2, groups});
    auto const a = flat.next(request{0, groups[0], {}});
    auto const b = flat.next(request{1, groups[1], {}});
    REQUIRE((a && b));
    CHECK(first_of[1].size == a->size);
    CHECK(first_of[3].size == b->size);
    CHECK(static_cast<double>(a->size) / static_cast<double>(b->size) > 2.5);
}

TEST_CASE("hierarchy: a body that throws on a group's worker fails the loop on every rank") {
    std::vector<std::string> seen(6);
    in_process::run(6, [&](in_process::endpoint& t) {
        try {
            hierarchical<fss, ss> const h{fss{}, ss{}, 2};
            parallel_for(t, make_range(400), h, [&](index_range const& part) {
                for (index_t i : part.indices())
                    if (i == 377) throw std::runtime_error("bad iteration 377");
            });
        } catch (remote_error const& e) {
            seen[static_cast<std::size_t>(t.rank())] = e.original_message();
        }
    });
    for (auto const& s : seen) CHECK(s == "bad iteration 377");
}

/// A user's policy gone wrong: it never grants anything to anyone.
struct refuses_everyone {
    struct state {
        index_t propose(request const&) { return 0; }
        void commit(request const&, index_t) {}
    };
    state start(loop_info const&) const { return {}; }
};

TEST_CASE("hierarchy: a policy inside groups that leaves every worker out fails the loop, no rank hangs") {
    static_assert(ChunkPolicy<refuses_everyone>);
    for (bool compute : {false, true}) {
        CAPTURE(compute);
        std::vector<int> failed(5, 0);
        in_process::run(5, [&](in_process::endpoint& t) {
            try {
                hierarchical<fss, refuses_everyone> const h{fss{}, refuses_everyone{}, 2, compute};
                parallel_for(t, make_range(100), h, [](index_range const&) {});
            } catch (error const& e) {
                failed[static_cast<std::size_t>(t.rank())] =
                        std::string(e.what()).find("leaves every worker out") != std::string::npos ? 1 : 2;
            }
        });
        for (int f : failed) CHECK(f == 1);
    }
}

TEST_CASE("hierarchy: bad arguments name the parameter on every rank") {
    std::vector<std::string> seen(4);
    in_process::run(4, [&](in_process::endpoint& t) {
        try {
            parallel_for_options o;
            o.deterministic = true;
            parallel_for(
                    t, make_range(10), hierarchical<fss, fss>{}, [](index_range const&) {}, o);
        } catch (invalid_parameter const& e) {
            seen[static_cast<std::size_t>(t.rank())] = e.parameter();
        }
    });
    for (auto const& s : seen) CHECK(s == "options.deterministic");
    // TreeS splits a flat loop's chunks between partners; a hierarchy's groups do not.
    for (auto const& spec : {"trees/fss", "fss/trees"}) {
        std::vector<std::string> refused(4);
        in_process::run(4, [&](in_process::endpoint& t) {
            try {
                parallel_for(
                        t, make_range(10), parse_hierarchy(spec), [](index_range const&) {}, parallel_for_options{});
            } catch (invalid_parameter const& e) {
                refused[static_cast<std::size_t>(t.rank())] = e.parameter() + " " + e.what();
            }
        });
        for (auto const& r : refused) CHECK(r.find("policy") == 0);
        for (auto const& r : refused) CHECK(r.find("TreeS") != std::string::npos);
    }
    // The root serves its groups only: master_computes may be unset or false, not true.
    for (int ranks : {1, 4}) {
        std::vector<std::string> named(static_cast<std::size_t>(ranks));
        in_process::run(ranks, [&](in_process::endpoint& t) {
            parallel_for_options o;
            o.master_computes = true;
            try {
                parallel_for(
                        t, make_range(10), hierarchical<fss, fss>{}, [](index_range const&) {}, o);
            } catch (invalid_parameter const& e) {
                named[static_cast<std::size_t>(t.rank())] = e.parameter();
            }
        });
        for (auto const& s : named) CHECK(s == "options.master_computes");
    }
    hierarchical h{fss{}, af{}}; // the user guide's form: the levels' types deduced
    static_assert(std::same_as<decltype(h), hierarchical<fss, af>>);
    CHECK(h.group_size == 0);
    CHECK(!h.sub_masters_compute);
    CHECK_THROWS_AS(parse_hierarchy("fss/af/ss"), spec_error);
    CHECK_THROWS_AS(parse_hierarchy("fss/nope"), spec_error);
}

// ---------------------------------------------------------------- task farms

namespace {

/// A task's result, depending only on the task.
double farm_work(int task) {
    double x = 0.0;
    for (int i = 0; i < (task % 5 + 1) * 150; ++i) x += std::sin(0.002 * (task + i));
    return x;
}

struct farm_check {
    loop_statistics root;
    std::vector<std::uint64_t> cancelled;
};

/// n tasks on `ranks` threads under a two-level scheme: every task runs once,
/// its result is the sequential one, and every rank gets the same table.
farm_check check_farm_hierarchy(int ranks, int n, task_farm_options const& o, bool with_costs = false) {
    std::vector<std::atomic<int>> runs(static_cast<std::size_t>(n));
    std::vector<double> results;
    std::vector<loop_statistics> all(static_cast<std::size_t>(ranks));
    in_process::run(ranks, [&](in_process::endpoint& t) {
        auto out = task_farm<int>(
                t,
                [&](auto& farm) {
                    for (int i = 0; i < n; ++i)
                        if (with_costs)
                            farm.submit(i, task_hints{static_cast<double>(i % 5 + 1)});
                        else
                            farm.submit(i);
                },
                [&](int const& i) {
                    runs[static_cast<std::size_t>(i)]++;
                    return farm_work(i);
                },
                o);
        if (t.rank() == o.root) results = std::move(out.value);
        all[static_cast<std::size_t>(t.rank())] = std::move(out.statistics);
    });
    REQUIRE(results.size() == static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        REQUIRE(runs[static_cast<std::size_t>(i)] == 1);
        REQUIRE(results[static_cast<std::size_t>(i)] == farm_work(i)); // bit-identical
    }
    for (auto const& s : all) {
        CHECK(s.iterations() == n);
        CHECK(s.workers.size() == all[0].workers.size());
        CHECK(s.groups.size() == all[0].groups.size());
    }
    return {all[static_cast<std::size_t>(o.root)], {}};
}

} // namespace

TEST_CASE("hierarchy: task farms run every task once, results bit-identical, for tree shapes and scheme pairs") {
    struct shape {
        int ranks;
        std::size_t group;
        bool compute;
    };
    for (std::string scheme : {"ss/ss", "ss/kazouris", "kazouris/ss", "fss/af", "ss/fss", "dlpt/ss", "ss/dlpt",
                               "kazouris/kazouris"})
        for (auto const s : {shape{2, 0, false}, shape{4, 3, true}, shape{5, 2, false}, shape{7, 3, false},
                             shape{7, 2, true}})
            for (bool costs : {false, true}) {
                CAPTURE(scheme);
                CAPTURE(s.ranks);
                CAPTURE(s.group);
                CAPTURE(s.compute);
                CAPTURE(costs);
                task_farm_options o;
                auto levels = parse_farm_hierarchy(scheme);
                levels.group_size = s.group;
                levels.sub_masters_compute = s.compute;
                o.placement = levels;
                o.expected_tasks = 211;
                o.root = s.ranks > 4 ? 2 : 0;
                auto const r = check_farm_hierarchy(s.ranks, 211, o, costs);
                // The table: a row per group (its sub-master), a row per worker
                // that ran tasks, none for the root, which only schedules.
                std::size_t const others = static_cast<std::size_t>(s.ranks - 1);
                std::size_t const sub_masters = r.root.groups.size();
                CHECK(sub_masters >= 1);
                CHECK(r.root.workers.size() == (s.compute || others == 1 ? others : others - sub_masters));
                CHECK(sum_iterations(r.root.workers) == 211);
                CHECK(sum_iterations(r.root.groups) == 211);
                for (auto const& w : r.root.workers) CHECK(w.rank != o.root);
            }
}

TEST_CASE("hierarchy: a task farm's trace shows the groups' batches and the workers' tasks under the root's ids") {
    task_farm_options o;
    o.placement = hierarchical{self_scheduling_placement{}, self_scheduling_placement{}, 2};
    o.trace = true;
    auto const r = check_farm_hierarchy(5, 120, o);
    REQUIRE(r.root.groups.size() == 2);
    std::vector<int> seen(120, 0);
    index_t in_batches = 0;
    for (auto const& e : r.root.trace) {
        if (e.level == 1) {
            in_batches += e.size;
            CHECK((e.rank == 1 || e.rank == 3)); // the sub-masters
        } else {
            REQUIRE(e.first >= 0);
            REQUIRE(e.first < 120);
            ++seen[static_cast<std::size_t>(e.first)];
            CHECK((e.rank == 2 || e.rank == 4)); // their workers
        }
    }
    CHECK(in_batches == 120);
    for (int c : seen) CHECK(c == 1);
}

TEST_CASE("hierarchy: a task farm in work cycles, and one stopped early whose cancels pass through sub-masters") {
    in_process::run(6, [&](in_process::endpoint& t) {
        task_farm_options o;
        o.placement = hierarchical{self_scheduling_placement{}, kazouris_placement{}, 2};
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
                [](double const& v) { return std::sqrt(v); }, o);
        CHECK(out.statistics.iterations() == 3 + 9 + 27 + 81);
        if (t.rank() == 0) CHECK(last.size() == 81);
    });
    for (std::string scheme : {"ss/ss", "kazouris/kazouris", "ss/dlpt"}) {
        CAPTURE(scheme);
        std::vector<std::atomic<int>> runs(400);
        in_process::run(6, [&](in_process::endpoint& t) {
            task_farm_options o;
            auto levels = parse_farm_hierarchy(scheme);
            levels.group_size = 2;
            o.placement = levels;
            o.stop_after_results = 30;
            auto out = task_farm<int>(
                    t,
                    [&](auto& farm) {
                        for (int i = 0; i < 400; ++i) farm.submit(i);
                    },
                    [&](int const& i) {
                        runs[static_cast<std::size_t>(i)]++;
                        std::this_thread::sleep_for(std::chrono::microseconds(200));
                        return i;
                    },
                    o);
            if (t.rank() != 0) return;
            std::size_t const delivered = testing::check_ran_or_cancelled(runs, out);
            CHECK(delivered >= 30);
            CHECK(delivered < 400);
        });
    }
}

TEST_CASE("hierarchy: producers in groups: each sub-master makes and runs its share; results stay in the group") {
    struct shape {
        int ranks;
        std::size_t group;
        bool compute;
    };
    int const n = 157;
    for (std::string scheme : {"ss/ss", "ss/kazouris", "kazouris/fss", "ss/dlpt"})
        for (auto const s : {shape{2, 0, false}, shape{5, 2, false}, shape{7, 3, true}, shape{8, 2, false}}) {
            CAPTURE(scheme);
            CAPTURE(s.ranks);
            CAPTURE(s.group);
            CAPTURE(s.compute);
            task_farm_options o;
            auto levels = parse_farm_hierarchy(scheme);
            levels.group_size = s.group;
            levels.sub_masters_compute = s.compute;
            o.placement = levels;
            o.producers_in_groups = true;
            o.root = s.ranks > 4 ? 1 : 0;
            std::vector<std::atomic<int>> runs(static_cast<std::size_t>(n));
            std::vector<std::atomic<int>> made(static_cast<std::size_t>(n));
            std::vector<std::vector<double>> values(static_cast<std::size_t>(s.ranks));
            std::vector<std::pair<std::size_t, std::size_t>> place(static_cast<std::size_t>(s.ranks), {0, 0});
            std::vector<std::pair<std::uint64_t, std::uint64_t>> part(static_cast<std::size_t>(s.ranks));
            std::vector<loop_statistics> all(static_cast<std::size_t>(s.ranks));
            in_process::run(s.ranks, [&](in_process::endpoint& t) {
                auto out = task_farm<int>(
                        t,
                        [&](auto& farm) {
                            place[static_cast<std::size_t>(t.rank())] = {farm.group(), farm.groups()};
                            // The group's part of the n tasks, by its power; a cost for every task.
                            auto const [first, last] = farm.share(static_cast<std::uint64_t>(n));
                            part[static_cast<std::size_t>(t.rank())] = {first, last};
                            for (auto i = first; i < last; ++i) {
                                made[static_cast<std::size_t>(i)]++;
                                farm.submit(static_cast<int>(i), task_hints{static_cast<double>(i % 5 + 1)});
                            }
                        },
                        [&](int const& i) {
                            runs[static_cast<std::size_t>(i)]++;
                            return farm_work(i);
                        },
                        o);
                values[static_cast<std::size_t>(t.rank())] = std::move(out.value);
                all[static_cast<std::size_t>(t.rank())] = std::move(out.statistics);
            });
            std::size_t const groups = all[0].groups.size();
            REQUIRE(groups >= 1);
            for (int i = 0; i < n; ++i) {
                REQUIRE(made[static_cast<std::size_t>(i)] == 1);
                REQUIRE(runs[static_cast<std::size_t>(i)] == 1);
            }
            // A producer ran on each sub-master only, as group g of `groups`,
            // the parts in group order tiling [0, n); its results,
            // bit-identical, in its creation order.
            std::vector<int> producers_of_group(groups, 0);
            std::vector<std::pair<std::uint64_t, std::uint64_t>> parts(groups);
            for (int r = 0; r < s.ranks; ++r) {
                auto const [g, count] = place[static_cast<std::size_t>(r)];
                auto const& v = values[static_cast<std::size_t>(r)];
                if (count == 0) { // no producer ran here: the root or a group's worker
                    CHECK(v.empty());
                    continue;
                }
                CHECK(r != o.root);
                CHECK(count == groups);
                REQUIRE(g < groups);
                ++producers_of_group[g];
                auto const [first, last] = part[static_cast<std::size_t>(r)];
                parts[g] = {first, last};
                REQUIRE(v.size() == last - first);
                for (auto i = first; i < last; ++i) CHECK(v[i - first] == farm_work(static_cast<int>(i)));
            }
            for (int p : producers_of_group) CHECK(p == 1);
            std::uint64_t next = 0;
            for (std::size_t g = 0; g < groups; ++g) {
                CHECK(parts[g].first == next);
                CHECK(parts[g].second > parts[g].first); // every group has workers, so power
                next = parts[g].second;
            }
            CHECK(next == static_cast<std::uint64_t>(n));
            for (auto const& st : all) {
                CHECK(st.iterations() == n);
                CHECK(sum_iterations(st.groups) == n);
                CHECK(st.groups.size() == groups);
            }
        }
}

TEST_CASE("hierarchy: producers in groups: a one-level scheme, a stop or a throwing producer fail on every rank") {
    struct bad {
        std::string placement;
        std::size_t stop_after;
        char const* parameter;
    };
    for (auto const& b : {bad{"kazouris", 0, "options.producers_in_groups"},
                          bad{"ss/ss", 10, "options.stop_after_results"}}) {
        CAPTURE(b.placement);
        std::vector<std::string> named(5);
        in_process::run(5, [&](in_process::endpoint& t) {
            task_farm_options o;
            o.placement = b.placement;
            o.producers_in_groups = true;
            o.stop_after_results = b.stop_after;
            try {
                task_farm<int>(
                        t, [](auto& farm) { farm.submit(1); }, [](int const& i) { return i; }, o);
            } catch (invalid_parameter const& e) {
                named[static_cast<std::size_t>(t.rank())] = e.parameter();
            }
        });
        for (auto const& p : named) CHECK(p == b.parameter);
    }
    std::vector<std::string> seen(7);
    in_process::run(7, [&](in_process::endpoint& t) {
        task_farm_options o;
        o.placement = hierarchical{self_scheduling_placement{}, kazouris_placement{}, 2};
        o.producers_in_groups = true;
        try {
            task_farm<int>(
                    t,
                    [](auto& farm) {
                        for (int i = 0; i < 50; ++i) farm.submit(i);
                        if (farm.group() == 1) throw std::runtime_error("producer of group 1 failed");
                    },
                    [](int const& i) { return i; }, o);
        } catch (remote_error const& e) {
            seen[static_cast<std::size_t>(t.rank())] = e.original_message();
        } catch (std::runtime_error const& e) {
            seen[static_cast<std::size_t>(t.rank())] = e.what();
        }
    });
    for (auto const& s : seen) CHECK(s == "producer of group 1 failed");
}

TEST_CASE("hierarchy: a task farm whose task throws, or whose scheme is bad, fails on every rank") {
    std::vector<std::string> seen(6);
    in_process::run(6, [&](in_process::endpoint& t) {
        task_farm_options o;
        o.placement = hierarchical{self_scheduling_placement{}, self_scheduling_placement{}, 2};
        try {
            task_farm<int>(
                    t,
                    [](auto& farm) {
                        for (int i = 0; i < 100; ++i) farm.submit(i);
                    },
                    [](int const& i) {
                        if (i == 77) throw std::runtime_error("bad task 77");
                        return i;
                    },
                    o);
        } catch (remote_error const& e) {
            seen[static_cast<std::size_t>(t.rank())] = e.original_message();
        }
    });
    for (auto const& s : seen) CHECK(s == "bad task 77");
    for (std::string scheme : {"ss/", "/ss", "ss/ss/ss", "ss/nope", "fss/ss"}) {
        CAPTURE(scheme);
        std::vector<std::string> named(4);
        in_process::run(4, [&](in_process::endpoint& t) {
            task_farm_options o;
            o.placement = scheme; // "fss/ss": the root's chunk policy needs expected_tasks
            try {
                task_farm<int>(
                        t, [](auto& farm) { farm.submit(1); }, [](int const& i) { return i; }, o);
            } catch (invalid_parameter const& e) {
                named[static_cast<std::size_t>(t.rank())] = e.parameter();
            } catch (error const& e) { // an unknown policy: named in the message
                named[static_cast<std::size_t>(t.rank())] =
                        std::string(e.what()).find("unknown policy 'nope'") != std::string::npos ? "nope" : e.what();
            }
        });
        for (auto const& p : named) CHECK((p == "options.placement" || p == "options.expected_tasks" || p == "nope"));
        for (auto const& p : named) CHECK(p == named[0]);
    }
}
