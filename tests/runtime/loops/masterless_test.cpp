// Loops without a master on the in-process transport (ranks are threads, so
// ThreadSanitizer sees the shared counter and every message): every iteration
// exactly once, results equal to a sequential run, the chunks exactly the
// policy's sequence, the refusals, and loops of every kind after one another.
#include <loopsched/algorithm/parallel_for.hpp>
#include <loopsched/any_policy.hpp>
#include <loopsched/detail/masterless_claim.hpp>
#include <loopsched/error.hpp>
#include <loopsched/hierarchical.hpp>
#include <loopsched/mapping/mapping.hpp>
#include <loopsched/options.hpp>
#include <loopsched/policy/automatic.hpp>
#include <loopsched/schedule.hpp>
#include <loopsched/spec.hpp>
#include <loopsched/transport/in_process.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

using namespace loopsched;

namespace masterless_test {

double value_of(index_t i) { return std::cos(0.01 * static_cast<double>(i)) * static_cast<double>(i % 13); }

parallel_for_options masterless(int root = 0) {
    parallel_for_options o;
    o.masterless = true;
    o.root = root;
    o.trace = true;
    return o;
}

/// One masterless loop of n iterations on `ranks` threads, gathering a value
/// per iteration (or, with `gathering` false, nothing: the rows then go up the
/// tree): exactly once, the root's values as a sequential run's, the same
/// table on every rank, and the chunks run exactly the policy's sequence (for
/// a policy fixed by the step) or, for one that depends on who claims,
/// exactly what the policy grants each claimant in the order of the claims.
void check(int ranks, index_t n, std::string const& spec, int root = 0, bool computes = true,
           std::vector<double> powers = {}, bool gathering = true) {
    CAPTURE(spec);
    CAPTURE(ranks);
    CAPTURE(n);
    CAPTURE(computes);
    CAPTURE(gathering);
    parallel_for_options options = masterless(root);
    options.master_computes = computes;
    options.powers = powers;
    options.read_os_load = false; // the statuses the check replays with
    std::size_t const workers = static_cast<std::size_t>(computes || ranks == 1 ? ranks : ranks - 1);
    std::vector<std::atomic<int>> runs(static_cast<std::size_t>(n));
    std::vector<gathered<double>> out(static_cast<std::size_t>(ranks));
    any_policy const policy = parse_policy(spec);
    in_process::run(ranks, [&](in_process::endpoint& t) {
        auto const body = [&](index_range const& part, std::span<double> values) {
            REQUIRE(part.size() > 0);
            std::size_t j = 0;
            for (index_t i : part.indices()) {
                runs[static_cast<std::size_t>(i)]++;
                if (!values.empty()) values[j++] = value_of(i);
            }
        };
        if (gathering)
            out[static_cast<std::size_t>(t.rank())] = parallel_for(t, make_range(n), policy, body, gather<double>{}, options);
        else
            out[static_cast<std::size_t>(t.rank())].statistics =
                    parallel_for(t, make_range(n), policy, [&](index_range const& part) { body(part, {}); }, options)
                            .statistics;
    });
    for (index_t i = 0; i < n; ++i) REQUIRE(runs[static_cast<std::size_t>(i)] == 1);
    auto const& at_root = out[static_cast<std::size_t>(root)];
    if (gathering) {
        REQUIRE(at_root.value.size() == static_cast<std::size_t>(n));
        for (index_t i = 0; i < n; ++i) REQUIRE(at_root.value[static_cast<std::size_t>(i)] == value_of(i));
    }
    for (auto const& o : out) {
        CHECK(o.statistics.iterations() == n);
        CHECK(o.statistics.workers.size() == workers);
    }
    for (std::size_t k = 0; k < at_root.statistics.workers.size(); ++k) { // each row its own rank's
        auto const& row = at_root.statistics.workers[k];
        CHECK(row.rank == static_cast<int>(computes || ranks == 1 || static_cast<int>(k) < root ? k : k + 1));
        index_t ran_here = 0, chunks_here = 0;
        for (auto const& e : at_root.statistics.trace)
            if (e.rank == row.rank) {
                ran_here += e.size;
                ++chunks_here;
            }
        CHECK(row.iterations == ran_here);
        CHECK(row.chunks == chunks_here);
    }
    auto trace = at_root.statistics.trace;
    std::ranges::sort(trace, {}, [](auto const& e) { return e.first; });
    for (auto const& e : trace)
        if (!computes && ranks > 1) CHECK(e.rank != root); // a root that does not compute claims nothing
    std::vector<worker_status> statuses;
    for (int r = 0; r < ranks; ++r)
        if (computes || r != root || ranks == 1)
            statuses.push_back(worker_status{powers.empty() ? 1.0 : powers[static_cast<std::size_t>(r)], 1.0});
    loop_info const info{n, workers, powers.empty() ? std::vector<worker_status>{} : statuses};
    std::vector<chunk> expected, ran;
    for (auto const& e : trace) ran.push_back(chunk{e.first, e.size});
    if (detail::masterless_claim_of(spec) == detail::masterless_claim::by_claimant) {
        // Chunks start in the order of the claims: replayed in that order, each
        // is what the policy grants its claimant (a claimant it leaves out takes nothing).
        chunk_sequencer<any_policy> seq(policy, info);
        for (auto const& e : trace) {
            int const k = computes || ranks == 1 || e.rank < root ? e.rank : e.rank - 1;
            auto const c = seq.next(request{static_cast<std::size_t>(k), info.of(static_cast<std::size_t>(k)), {}});
            expected.push_back(c.value_or(chunk{}));
        }
    } else {
        // The policy's own sequence, as a master would grant it in turn.
        for (auto const& a : round_robin_schedule(policy, info)) expected.push_back(a.range);
    }
    CHECK(ran == expected);
}

/// Every rank fails with invalid_parameter naming `parameter`.
void expect_refused(any_policy const& policy, parallel_for_options const& o, std::string const& parameter,
                    any_mapping const& mapping = dynamic_mapping{}) {
    std::vector<std::string> names(3);
    in_process::run(3, [&](in_process::endpoint& t) {
        try {
            parallel_for(t, make_range(100), policy, mapping, [](index_range const&) {}, o);
        } catch (invalid_parameter const& e) {
            names[static_cast<std::size_t>(t.rank())] = e.parameter();
        }
    });
    for (auto const& name : names) CHECK(name == parameter);
}

} // namespace masterless_test

TEST_CASE("masterless: every accepted policy, 1 to 4 ranks, any root, computing or not: once, as a sequential run, "
          "the policy's chunks") {
    for (char const* spec : {"static", "ss", "css:chunk=7", "mfsc", "gss", "tss", "fss", "fac2", "fiss", "tfss",
                             "fsc:h=1e-4,sigma=1e-3", "rnd:seed=5", "fss:lower=3"})
        for (int ranks : {1, 2, 3, 4}) masterless_test::check(ranks, 2311, spec);
    masterless_test::check(4, 999, "gss", 2);        // another root
    masterless_test::check(3, 999, "fss", 0, false); // a root that only gathers
    // Nothing gathered: each rank's row goes up the tree of ranks, 3 levels deep on 7 ranks.
    for (int ranks : {2, 4, 7})
        for (auto spec : {"ss", "fss", "gss"}) masterless_test::check(ranks, 2003, spec, ranks - 1, true, {}, false);
    masterless_test::check(7, 999, "tss", 0, false, {}, false);
    masterless_test::check(4, 999, "ss", 3, false);
    masterless_test::check(3, 2, "ss");        // fewer iterations than ranks
    masterless_test::check(2, 0, "fss");       // nothing to do
}

TEST_CASE("masterless: policies that depend on who claims, through the claims log: once, as a sequential run, "
          "each chunk what the policy grants its claimant in the order of the claims") {
    std::vector<double> const powers{1.0, 2.5, 0.6, 1.7};
    for (char const* spec : {"w-gss", "w-fss", "w-tss", "w-ss", "w-css:chunk=5", "wf:weights=1/2/1/3", "dtss",
                             "dfss", "dfiss", "dtfss", "dtss:a_min=12"})
        for (int ranks : {1, 2, 3, 4}) {
            std::string s = spec;
            if (s.starts_with("wf") && ranks != 4) s = "wf";
            masterless_test::check(ranks, 2311, s, 0, true,
                                   std::vector<double>(powers.begin(), powers.begin() + ranks));
        }
    masterless_test::check(4, 999, "dtss", 2, true, powers);  // another root
    masterless_test::check(3, 999, "w-fss", 0, false, {1.0, 3.0, 1.0}); // a root that only gathers
    masterless_test::check(7, 2003, "w-fss", 3, true, {1.0, 3.0, 1.0, 2.0, 1.0, 1.0, 4.0}, false);
    masterless_test::check(5, 2003, "dtss", 0, true, {1.0, 3.0, 1.0, 2.0, 1.0}, false);
    masterless_test::check(3, 2, "dfss", 0, true, {1.0, 2.0, 1.0});     // fewer iterations than ranks
    masterless_test::check(2, 0, "dtss");                                 // nothing to do
    masterless_test::check(3, 5000, "dtss");                              // equal powers
}

TEST_CASE("masterless: claims logs of different lengths after one another start empty") {
    in_process::run(3, [](in_process::endpoint& t) {
        for (int round = 0; round < 30; ++round) {
            parallel_for_options o = masterless_test::masterless();
            o.powers = {1.0, 2.0, 3.0};
            o.masterless = round % 4 != 3;
            index_t const n = round % 2 ? 50 + round : 3000 - 37 * round; // the log shrinks and grows
            auto out = parallel_for(
                    t, make_range(n), parse_policy(round % 3 ? "w-gss" : "dtss"),
                    [](index_range const& part, std::span<index_t> v) {
                        std::size_t j = 0;
                        for (index_t i : part.indices()) v[j++] = i * 3;
                    },
                    gather<index_t>{}, o);
            REQUIRE(out.statistics.iterations() == n);
            if (t.rank() == 0)
                for (index_t i = 0; i < n; ++i) REQUIRE(out.value[static_cast<std::size_t>(i)] == i * 3);
        }
    });
}

TEST_CASE("masterless: loops of every kind after one another keep the counter's steps apart") {
    in_process::run(3, [](in_process::endpoint& t) {
        for (int round = 0; round < 40; ++round) {
            parallel_for_options o = masterless_test::masterless();
            o.masterless = round % 3 != 1; // a loop with a master between masterless ones
            index_t const n = 100 + round * 7;
            auto out = parallel_for(
                    t, make_range(n), parse_policy(round % 2 ? "gss" : "ss"),
                    [](index_range const& part, std::span<index_t> v) {
                        std::size_t j = 0;
                        for (index_t i : part.indices()) v[j++] = i * 2;
                    },
                    gather<index_t>{}, o);
            REQUIRE(out.statistics.iterations() == n);
            if (t.rank() == 0)
                for (index_t i = 0; i < n; ++i) REQUIRE(out.value[static_cast<std::size_t>(i)] == i * 2);
        }
    });
}

TEST_CASE("masterless: a body that throws on one rank fails every rank; the next loop runs") {
    // Whichever rank claims iteration 1500 throws (which one depends on timing).
    std::vector<int> origin(3, -1), good(3, 0);
    std::atomic<int> thrower{-1};
    in_process::run(3, [&](in_process::endpoint& t) {
        try {
            parallel_for(
                    t, make_range(3000), parse_policy("ss"),
                    [&](index_range const& part) {
                        if (part.lower()[0] == 1500) {
                            thrower = t.rank();
                            throw std::runtime_error("boom");
                        }
                    },
                    masterless_test::masterless());
        } catch (remote_error const& e) {
            origin[static_cast<std::size_t>(t.rank())] = e.origin_rank();
        }
        auto out = parallel_for(t, make_range(500), parse_policy("fss"), [](index_range const&) {},
                                masterless_test::masterless());
        good[static_cast<std::size_t>(t.rank())] = out.statistics.iterations() == 500;
    });
    for (int r = 0; r < 3; ++r) {
        CHECK(origin[static_cast<std::size_t>(r)] == thrower.load());
        CHECK(good[static_cast<std::size_t>(r)] == 1);
    }
}

TEST_CASE("masterless: policies that depend on timing, and options that need a master, are refused by name") {
    auto const o = masterless_test::masterless();
    for (char const* spec : {"af", "awf-b", "awf-c", "w-af", "trees", "auto"}) {
        CAPTURE(spec);
        masterless_test::expect_refused(parse_policy(spec), o, "policy");
    }
    auto with = [&](auto set) {
        parallel_for_options changed = o;
        set(changed);
        return changed;
    };
    masterless_test::expect_refused(parse_policy("ss"), with([](auto& x) { x.reissue = true; }), "options.reissue");
    masterless_test::expect_refused(parse_policy("ss"), with([](auto& x) { x.request_ahead = 0.5; }),
                                    "options.request_ahead");
    masterless_test::expect_refused(parse_policy("ss"), o, "options.masterless", static_block_mapping{});
    std::vector<std::string> names(3);
    in_process::run(3, [&](in_process::endpoint& t) {
        try {
            parallel_for(t, make_range(100), hierarchical{parse_policy("fss"), parse_policy("ss")},
                         [](index_range const&) {}, o);
        } catch (invalid_parameter const& e) {
            names[static_cast<std::size_t>(t.rank())] = e.parameter();
        }
    });
    for (auto const& name : names) CHECK(name == "options.masterless");
}

TEST_CASE("masterless: an automatic policy with masterless=true tries its candidates with a master and without one, "
          "every execution once and as a sequential run") {
    any_policy const policy = parse_policy("auto:masterless=true,candidates=af+gss+w-fss,key=masterless_test_auto");
    auto const* chooser = policy.target<automatic>();
    REQUIRE(chooser != nullptr);
    chooser->reset();
    // af learns from timings: no copy without a master.
    REQUIRE(chooser->history().candidates ==
            std::vector<std::string>{"af", "gss", "masterless gss", "w-fss", "masterless w-fss"});
    std::vector<std::string> schemes(12);
    in_process::run(3, [&](in_process::endpoint& t) {
        for (std::size_t run = 0; run < schemes.size(); ++run) {
            parallel_for_options o;
            o.powers = {1.0, 2.0, 1.0};
            index_t const n = 1500;
            auto out = parallel_for(
                    t, make_range(n), policy,
                    [](index_range const& part, std::span<index_t> v) {
                        std::size_t j = 0;
                        for (index_t i : part.indices()) v[j++] = i * 5;
                    },
                    gather<index_t>{}, o);
            REQUIRE(out.statistics.iterations() == n);
            if (t.rank() != 0) continue;
            for (index_t i = 0; i < n; ++i) REQUIRE(out.value[static_cast<std::size_t>(i)] == i * 5);
            schemes[run] = out.statistics.scheme;
        }
    });
    auto const h = chooser->history();
    REQUIRE(h.records.size() == schemes.size());
    for (std::size_t i = 0; i < schemes.size(); ++i) CHECK(h.records[i].scheme == schemes[i]); // the table names it
    // Trials open with the last choice, here one without a master through the
    // claims log; which others run depends on the measured times.
    CHECK(h.records.front().scheme == "masterless w-fss");
}

TEST_CASE("masterless: an automatic policy that tries loops without a master refuses a root other than 0 and the "
          "options a master needs, by name") {
    any_policy const policy = parse_policy("auto:masterless=true,candidates=gss+fss,key=masterless_test_refusals");
    parallel_for_options o;
    o.root = 1;
    masterless_test::expect_refused(policy, o, "options.root");
    o.root = 0;
    o.reissue = true;
    masterless_test::expect_refused(policy, o, "options.reissue");
    o.reissue = false;
    o.deterministic = true;
    masterless_test::expect_refused(policy, o, "options.deterministic");
    CHECK(policy.spec() == "auto:candidates=gss+fss,key=masterless_test_refusals,masterless=true");
    CHECK(parse_policy(policy.spec()).spec() == policy.spec());
}
