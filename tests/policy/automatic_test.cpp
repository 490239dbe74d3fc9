// automatic: its selector driven by synthetic timings (it converges to the
// cheapest, re-selects after a drift, follows the expert rules), its spec, and
// repeated in-process loops that run every iteration once under every choice.
#include <loopsched/algorithm/parallel_for.hpp>
#include <loopsched/algorithm/task_farm.hpp>
#include <loopsched/mapping/farm_placements.hpp>
#include <loopsched/any_policy.hpp>
#include <loopsched/error.hpp>
#include <loopsched/options.hpp>
#include <loopsched/policies.hpp>
#include <loopsched/policy/automatic.hpp>
#include <loopsched/space/box.hpp>
#include <loopsched/spec.hpp>
#include <loopsched/task_options.hpp>
#include <loopsched/transport/in_process.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace loopsched;

namespace {

/// A table as the root would see it: T_p, and `workers` rows computing `busy` each (the first `first_busy`).
loop_statistics table_of(double seconds, std::size_t workers = 4, double first_busy = -1.0) {
    loop_statistics t;
    t.parallel_seconds = seconds;
    for (std::size_t k = 0; k < workers; ++k)
        t.workers.push_back({static_cast<int>(k + 1), k == 0 && first_busy >= 0.0 ? first_busy : seconds});
    return t;
}

/// Runs `executions` executions through the policy's own state, each taking
/// `cost(execution, scheme spec)` seconds; returns the schemes in order.
std::vector<std::string> drive(automatic const& policy, int executions,
                               std::function<double(int, std::string const&)> const& cost) {
    std::vector<std::string> ran;
    loop_info const info{1000, 4, {}};
    for (int e = 0; e < executions; ++e) {
        auto state = policy.start(info);
        auto const scheme = policy.history().candidates.at(state.chosen());
        auto t = table_of(cost(e, scheme));
        state.finish(t);
        CHECK(t.scheme == scheme); // the table names what ran
        ran.push_back(scheme);
    }
    return ran;
}

std::vector<any_policy> three() { return {static_schedule{}, gss{}, fss{}}; }

/// gss costs 1 s, the others 2 s (static 3 s from `change` on, fss 0.5 s from `change` on).
double costs(int e, std::string const& s, int change = 1 << 30) {
    if (s == "gss") return 1.0;
    if (s == "fss") return e >= change ? 0.5 : 2.0;
    return e >= change ? 3.0 : 2.0;
}

} // namespace

TEST_CASE("automatic, exhaustive: one trial of each candidate in order, then the fastest") {
    automatic const policy({.candidates = three(), .key = "test: exhaustive"});
    policy.reset();
    auto const ran = drive(policy, 10, [](int e, std::string const& s) { return costs(e, s); });
    // The last (most adaptive) candidate first, then the others in order.
    CHECK(ran == std::vector<std::string>{"fss", "static", "gss", "gss", "gss", "gss", "gss", "gss", "gss", "gss"});
    auto const h = policy.history();
    CHECK(h.executions == 10);
    CHECK(h.records[0].reason == selection_reason::trial);
    CHECK(h.records[3].reason == selection_reason::best);
    CHECK(h.runs() == std::vector<std::uint64_t>{1, 8, 1});
    CHECK(h.explain().find("the last ran gss (best)") != std::string::npos);
}

TEST_CASE("automatic, exhaustive: a drift of the chosen scheme's time starts a new round, which finds the new best") {
    automatic const policy({.candidates = three(), .key = "test: drift"});
    policy.reset();
    // From execution 6 on, gss takes 1.5 s (a drift of 50%) and fss 0.5 s.
    auto const ran = drive(policy, 14, [](int e, std::string const& s) {
        return s == "gss" && e >= 6 ? 1.5 : costs(e, s, 6);
    });
    // 3 trials, gss at 3-7 (6 and 7 drift: the second strike starts a round
    // with gss's time as its trial), static and fss tried again, then fss.
    CHECK(ran == std::vector<std::string>{"fss", "static", "gss", "gss", "gss", "gss", "gss", "gss", "static", "fss",
                                          "fss", "fss", "fss", "fss"});
}

TEST_CASE("automatic, exhaustive: noise within the drift keeps the choice") {
    automatic const policy({.candidates = three(), .key = "test: noise"});
    policy.reset();
    auto const ran = drive(policy, 40, [](int e, std::string const& s) {
        return costs(e, s) * (1.0 + 0.1 * std::sin(e)); // +-10%: within the drift (25%) of any recent time
    });
    for (std::size_t e = 3; e < ran.size(); ++e) CHECK(ran[e] == "gss");
}

TEST_CASE("automatic: a candidate whose lower bound is far above the best time is never tried") {
    // 10,000 iterations of 1 us on 4 workers, 1 ms per chunk of overhead: one
    // chunk per iteration (css:chunk=1) cannot take less than 2.5 s, where the
    // others take about 3 ms; static is bound by its first chunk on the slow worker.
    std::vector<any_policy> candidates{static_schedule{}, css{1}, gss{}, fss{}};
    for (auto method : {selection_method::exhaustive, selection_method::bandit}) {
        automatic const policy({.candidates = candidates, .method = method,
                                .key = "test: hopeless " + std::string(to_string(method))});
        policy.reset();
        loop_info const info{10000, 4, {}};
        std::vector<std::string> ran;
        for (int e = 0; e < 30; ++e) {
            auto state = policy.start(info);
            auto const scheme = policy.history().candidates.at(state.chosen());
            loop_statistics t; // 3 chunks per worker, each waiting 1 ms for its reply
            t.parallel_seconds = scheme == "static" ? 0.0101 : 0.003;
            t.workers = {{1, 2.5e-3, 3e-3, 0, 2500, 3}, {2, 2.5e-3, 3e-3, 0, 2500, 3},
                         {3, 2.5e-3, 3e-3, 0, 2500, 3}, {4, 25e-3, 3e-3, 0, 2500, 3}}; // rank 4 runs 10x slower
            state.finish(t);
            ran.push_back(scheme);
        }
        CAPTURE(to_string(method));
        CHECK(std::count(ran.begin(), ran.end(), "css:chunk=1") == 0);
        CHECK(std::count(ran.begin(), ran.end(), "static") == 0); // its first chunk: 2,500 x 10 us = 25 ms
        CHECK(ran.front() == "fss");
    }
}

TEST_CASE("automatic, bandit: converges to the cheapest and follows a change") {
    automatic const policy({.candidates = three(), .method = selection_method::bandit, .key = "test: bandit"});
    policy.reset();
    auto const ran = drive(policy, 300, [](int e, std::string const& s) { return costs(e, s, 150); });
    auto count = [&](int from, int to, std::string const& s) {
        int n = 0;
        for (int e = from; e < to; ++e) n += ran[static_cast<std::size_t>(e)] == s;
        return n;
    };
    CHECK(count(0, 3, "static") == 1); // each tried once first
    CHECK(count(0, 3, "fss") == 1);
    CHECK(count(50, 150, "gss") >= 90);  // then mostly the cheapest
    CHECK(count(200, 300, "fss") >= 90); // and the new cheapest after the change
}

TEST_CASE("automatic, expert: the first choice from time and imbalance, then steps along the order") {
    std::vector<any_policy> order{static_schedule{}, gss{}, tss{}, fss{}, af{}};
    automatic const policy({.candidates = order, .method = selection_method::expert, .key = "test: expert"});
    policy.reset();
    loop_info const info{1000, 4, {}};
    // A short balanced loop: the rules keep the simplest scheme.
    for (int e = 0; e < 5; ++e) {
        auto s = policy.start(info);
        CHECK(s.chosen() == 0);
        auto t = table_of(0.005);
        s.finish(t);
    }
    policy.reset();
    // A long loop with a badly loaded worker: the most adaptive end of the order.
    auto s = policy.start(info);
    auto t = table_of(20.0, 4, 2.0); // one worker computed 2 s, the others 20 s: high imbalance
    s.finish(t);
    CHECK(policy.start(info).chosen() == order.size() - 1);
}

TEST_CASE("automatic: spec, parse_policy and errors") {
    auto const p = parse_policy("auto:method=bandit,candidates=gss+css:chunk=4;lower=2,key=test spec");
    auto const* a = p.target<automatic>();
    REQUIRE(a != nullptr);
    CHECK(a->options().method == selection_method::bandit);
    CHECK(a->history().candidates.size() == 2);
    CHECK(parse_policy(p.spec()).spec() == p.spec());
    CHECK(parse_policy("auto").spec() == "auto");
    CHECK_THROWS_AS(parse_policy("auto:method=greedy"), spec_error);
    CHECK_THROWS_AS(parse_policy("w-auto"), spec_error);
    CHECK_THROWS_AS(parse_policy("auto:candidates=gss++fss"), spec_error);
    CHECK_THROWS_AS(parse_policy("auto:candidates=auto"), invalid_parameter);
    CHECK_THROWS_AS(automatic({.drift = 0.0}), invalid_parameter);
    // A key names one loop: other candidates under it are refused.
    automatic const first({.candidates = three(), .key = "test: shared"});
    CHECK_THROWS_AS(automatic({.candidates = {gss{}}, .key = "test: shared"}), invalid_parameter);
    automatic const again({.candidates = three(), .key = "test: shared"});
    CHECK(first == again); // one history
}

TEST_CASE("automatic: policies made on one line share a history; on another line they do not") {
    auto make = [] { return automatic{}; };
    auto const a = make(), b = make();
    automatic const c{};
    CHECK(a == b);
    CHECK(!(a == c));
}

TEST_CASE("automatic: repeated in-process loops run every iteration once under every choice, results as a sequential "
          "run, the same scheme named on the root as the history holds") {
    for (auto method : {selection_method::exhaustive, selection_method::bandit, selection_method::expert})
        for (int ranks : {1, 3}) {
            CAPTURE(ranks);
            std::string const key =
                    "test: in-process " + std::string(to_string(method)) + " " + std::to_string(ranks);
            automatic const policy({.method = method, .key = key});
            policy.reset();
            index_t const n = 517;
            std::set<std::string> seen;
            for (int e = 0; e < 14; ++e) {
                std::vector<std::atomic<int>> runs(static_cast<std::size_t>(n));
                std::vector<double> out(static_cast<std::size_t>(n));
                std::string scheme;
                in_process::run(ranks, [&](in_process::endpoint& t) {
                    auto stats = parallel_for(t, make_range(n), automatic({.method = method, .key = key}),
                                              [&](index_range const& part) {
                                                  for (index_t i : part.indices()) {
                                                      runs[static_cast<std::size_t>(i)]++;
                                                      out[static_cast<std::size_t>(i)] = std::sqrt(double(i));
                                                  }
                                              })
                                         .statistics;
                    if (t.rank() == 0) scheme = stats.scheme;
                });
                for (index_t i = 0; i < n; ++i) {
                    REQUIRE(runs[static_cast<std::size_t>(i)] == 1);
                    REQUIRE(out[static_cast<std::size_t>(i)] == std::sqrt(double(i)));
                }
                auto const h = policy.history();
                REQUIRE(h.records.size() == static_cast<std::size_t>(e + 1));
                CHECK(h.records.back().scheme == scheme);
                seen.insert(scheme);
            }
            auto const h = policy.history();
            for (auto const& s : seen) CHECK(std::ranges::count(h.candidates, s) == 1);
            if (method == selection_method::exhaustive) CHECK(h.records.front().scheme == "af"); // the last first
        }
}

TEST_CASE("automatic as a task farm's chunk scheme: one choice per farm, every task's result once") {
    automatic const policy({.key = "test: farm"});
    policy.reset();
    for (int farm_number = 0; farm_number < 8; ++farm_number) {
        std::vector<std::atomic<int>> runs(300);
        std::vector<int> results;
        std::string scheme;
        in_process::run(3, [&](in_process::endpoint& t) {
            task_farm_options o;
            o.placement = chunked_placement{automatic({.key = "test: farm"})};
            o.expected_tasks = 300;
            auto out = task_farm<int>(
                    t, [](auto& farm) { for (int i = 0; i < 300; ++i) farm.submit(i); },
                    [&](int const& i) {
                        runs[static_cast<std::size_t>(i)]++;
                        return 3 * i;
                    },
                    o);
            if (t.rank() == 0) {
                results = out.value;
                scheme = out.statistics.scheme;
            }
        });
        for (auto const& r : runs) REQUIRE(r == 1);
        REQUIRE(results.size() == 300);
        for (int i = 0; i < 300; ++i) REQUIRE(results[static_cast<std::size_t>(i)] == 3 * i);
        auto const h = policy.history();
        REQUIRE(h.records.size() == static_cast<std::size_t>(farm_number + 1)); // one execution per farm
        CHECK(h.records.back().scheme == scheme);
    }
}
