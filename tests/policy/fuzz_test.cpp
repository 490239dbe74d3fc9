// Fuzzed policy parameters, loop sizes, worker statuses and timings, weighted
// towards the edges (0, negatives, infinities, NaN, the limits of index_t): a
// value is either rejected with an error naming its parameter, or the policy
// hands out chunks that are positive, contiguous, inside the loop and finish
// it. Run under ASan and UBSan in CI, so an overflow fails the test. The seed
// is fixed: a failure reproduces.
#include <loopsched/adaptor/weighted.hpp>
#include <loopsched/algorithm/parallel_for.hpp>
#include <loopsched/any_policy.hpp>
#include <loopsched/concepts.hpp>
#include <loopsched/error.hpp>
#include <loopsched/options.hpp>
#include <loopsched/policies.hpp>
#include <loopsched/schedule.hpp>
#include <loopsched/space/box.hpp>
#include <loopsched/spec.hpp>
#include <loopsched/transport/in_process.hpp>

#include <boost/hana/for_each.hpp>
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace loopsched;

namespace {

std::string edge_value(std::mt19937_64& rng) {
    static std::vector<std::string> const edges{"0",
                                                "-1",
                                                "1",
                                                "2",
                                                "3",
                                                "7",
                                                "0.5",
                                                "1e-300",
                                                "1e300",
                                                "inf",
                                                "-inf",
                                                "nan",
                                                "1e19",
                                                "-5",
                                                "9223372036854775807",
                                                "-9223372036854775808",
                                                "9223372036854775808",
                                                "4611686018427387904",
                                                "2147483648",
                                                "abc",
                                                "",
                                                "1.5e308",
                                                "0x10",
                                                "1e-5",
                                                "100",
                                                "65536"};
    switch (rng() % 4) {
    case 0: return std::to_string(static_cast<long long>(rng() % 2000) - 100);
    case 1: return std::to_string(std::ldexp(static_cast<double>(rng() % 1000), static_cast<int>(rng() % 40) - 20));
    default: return edges[rng() % edges.size()];
    }
}

/// A spec for `name` with some of its keys set to fuzzed values.
std::string fuzzed_spec(std::string_view name, std::span<std::string_view const> keys, std::mt19937_64& rng) {
    std::string spec(name);
    bool first = true;
    for (auto key : keys) {
        if (rng() % 3 == 0) continue;
        std::string value = edge_value(rng);
        if (key == "weights") { // a '/'-separated list
            value.clear();
            for (int k = 0, n = static_cast<int>(rng() % 5) + 1; k < n; ++k) value += (k ? "/" : "") + edge_value(rng);
        }
        spec += (first ? ":" : ",") + std::string(key) + "=" + value;
        first = false;
    }
    return spec;
}

worker_status edge_status(std::mt19937_64& rng) {
    static double const powers[] = {1e-9, 0.001, 0.5, 1.0, 3.0, 1000.0, 1e9};
    static double const queues[] = {1.0, 1.5, 2.0, 64.0, 1e9};
    return {powers[rng() % 7], queues[rng() % 5]};
}

chunk_timing edge_timing(std::mt19937_64& rng, index_t size) {
    static double const times[] = {0.0, 1e-300, 1e-9, 1e-3, 1.0, 1e6, 1e300};
    double const t = times[rng() % 7];
    return rng() % 4 == 0 ? chunk_timing{} : chunk_timing{size, t, t * 1.5};
}

/// Runs the policy over `info` with fuzzed requests; checks the chunks.
void exercise(any_policy const& policy, loop_info const& info, std::mt19937_64& rng, std::string const& what) {
    chunk_sequencer<any_policy> seq(policy, info);
    index_t next = 0;
    std::size_t granted = 0, idle = 0;
    std::size_t const most = 3000;
    while (!seq.done() && granted < most) {
        std::size_t const k = rng() % info.workers;
        index_t const before = seq.remaining();
        auto c = seq.next(
                request{k, rng() % 3 == 0 ? edge_status(rng) : info.of(k), edge_timing(rng, 1 + before % 1000)});
        if (!c) { // left out for now (A_k < A_min): never every worker for long
            REQUIRE_MESSAGE(++idle < 100 * info.workers, what << ": the policy keeps leaving every worker out");
            continue;
        }
        idle = 0;
        ++granted;
        REQUIRE_MESSAGE(c->size > 0, what);
        REQUIRE_MESSAGE(c->first == next, what);
        REQUIRE_MESSAGE(c->size <= before, what);
        next += c->size;
    }
    // Small loops finish: every chunk holds at least one iteration.
    if (info.iterations <= 1000) REQUIRE_MESSAGE(seq.done(), what << ": not done after " << granted << " chunks");
}

} // namespace

TEST_CASE("fuzz: policy parameters at the edges are rejected by name, or give sane chunks") {
    std::mt19937_64 rng(20261123);
    index_t const most = std::numeric_limits<index_t>::max();
    std::vector<index_t> const sizes{0, 1, 7, 1000, (index_t{1} << 31) + 11, (index_t{1} << 62) + 3, most};
    std::vector<std::string_view> names = policy_names();
    int rejected = 0, accepted = 0;
    auto const deadline =
            std::chrono::steady_clock::now() + std::chrono::seconds(20); // bounded in CI, even under sanitizers
    for (int round = 0; round < 4000 && std::chrono::steady_clock::now() < deadline; ++round) {
        std::string_view const name = names[rng() % names.size()];
        std::span<std::string_view const> keys;
        boost::hana::for_each(policy_catalogue, [&](auto t) {
            using P = typename decltype(t)::type;
            if (P::name == name) keys = std::span<std::string_view const>(P::keys);
        });
        std::string const prefix = rng() % 3 == 0 ? "w-" : "";
        std::string const spec = prefix + fuzzed_spec(name, keys, rng);
        CAPTURE(spec);
        std::optional<any_policy> policy;
        try {
            policy = parse_policy(spec);
        } catch (invalid_parameter const& e) {
            ++rejected;
            // The error names one of the spec's keys (or the policy when the whole is wrong).
            bool named = e.parameter().find(name) != std::string::npos;
            for (auto key : keys) named = named || e.parameter().find(key) != std::string::npos;
            CHECK_MESSAGE(named, (std::string(e.what()) + " names no key of " + spec));
            continue;
        } catch (spec_error const& e) {
            ++rejected;
            CHECK(std::string(e.what()).find("'") != std::string::npos); // quotes what it could not read
            continue;
        }
        ++accepted;
        for (int trial = 0; trial < 3; ++trial) {
            std::size_t const workers = std::vector<std::size_t>{1, 2, 5, 64}[rng() % 4];
            loop_info info{sizes[rng() % sizes.size()], workers, {}};
            if (rng() % 2)
                for (std::size_t k = 0; k < workers; ++k) info.status.push_back(edge_status(rng));
            try {
                exercise(*policy, info, rng,
                         spec + " on " + std::to_string(info.iterations) + " x " + std::to_string(workers));
            } catch (invalid_parameter const& e) { // a parameter that does not fit this loop (wf's weight count)
                bool named = false;
                for (auto key : keys) named = named || e.parameter().find(key) != std::string::npos;
                CHECK_MESSAGE(named, std::string(e.what()));
            }
        }
    }
    CHECK(rejected > 100);
    CHECK(accepted > 100);
}

TEST_CASE("fuzz: option values at the edges are rejected by name on every rank, or run the loop") {
    std::mt19937_64 rng(7);
    double const reals[] = {0.0,
                            -1.0,
                            1e-300,
                            1e-9,
                            0.5,
                            1.0,
                            2.0,
                            1e9,
                            1e300,
                            std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity(),
                            std::numeric_limits<double>::quiet_NaN()};
    for (int round = 0; round < 60; ++round) {
        int const ranks = 1 + static_cast<int>(rng() % 3);
        parallel_for_options o;
        o.root = static_cast<int>(rng() % 4) - (rng() % 5 == 0 ? 1 : 0);
        o.poll_interval = reals[rng() % 12];
        o.request_ahead = reals[rng() % 12];
        o.dimension = rng() % 6 == 0 ? 1 : 0;
        o.master_computes = rng() % 2;
        o.deterministic = rng() % 3 == 0;
        if (rng() % 2) {
            o.powers.resize(static_cast<std::size_t>(ranks) + (rng() % 6 == 0 ? 1 : 0));
            for (auto& v : o.powers) v = rng() % 3 ? 1.0 + static_cast<double>(rng() % 3) : reals[rng() % 12];
        }
        if (rng() % 2) {
            o.run_queues.resize(static_cast<std::size_t>(ranks));
            for (auto& v : o.run_queues) v = rng() % 3 ? 1.0 : reals[rng() % 12];
        }
        index_t const n = static_cast<index_t>(rng() % 300);
        std::vector<std::string> outcome(static_cast<std::size_t>(ranks));
        std::vector<index_t> ran(static_cast<std::size_t>(ranks), 0);
        in_process::run(ranks, [&](in_process::endpoint& t) {
            auto& mine = outcome[static_cast<std::size_t>(t.rank())];
            try {
                auto s = parallel_for(
                        t, make_range(n), parse_policy("fss"),
                        [&](index_range const& part) { ran[static_cast<std::size_t>(t.rank())] += part.size(); }, o);
                mine = s.statistics.iterations() == n ? "ran" : "wrong count";
            } catch (invalid_parameter const& e) {
                mine = e.parameter();
            }
        });
        CAPTURE(round);
        for (auto const& x : outcome) CHECK(x == outcome[0]); // every rank, the same verdict
        CHECK(outcome[0].find("wrong") == std::string::npos);
        if (outcome[0] == "ran") {
            index_t total = 0;
            for (auto r : ran) total += r;
            CHECK(total == n);
        } else {
            CHECK(outcome[0].rfind("options.", 0) == 0);
        }
    }
}

TEST_CASE("edges: at N = 2^63 - 1 each policy's first chunk is what its formula gives, not 1") {
    index_t const n = std::numeric_limits<index_t>::max();
    auto first = [&](any_policy const& p, std::size_t workers = 4) {
        chunk_sequencer<any_policy> seq(p, loop_info{n, workers, {}});
        return seq.next(request{0, {}, {}})->size;
    };
    CHECK(first(parse_policy("css")) == n / 8 + 1);    // ceil(N / 2P)
    CHECK(first(parse_policy("static")) == n / 4 + 1); // ceil(N / P)
    CHECK(first(parse_policy("gss")) == n / 4 + 1);
    CHECK(first(parse_policy("w-gss")) == n / 4 + 1); // V = 1, Q = 1: the scheme's own chunk
    CHECK(first(parse_policy("af")) == n / 64 + 1);   // the probe, ceil(N / 16P)
    CHECK(first(parse_policy("fss")) == n / 8 + 1);
    CHECK(first(parse_policy("fss:alpha=1e300")) == 1); // alpha p beyond N: one iteration, not a wrapped count
    CHECK(first(parse_policy("mfsc")) > index_t{1} << 50);
    CHECK(first(parse_policy("tss")) == n / 8); // F = floor(N / 2P)
    CHECK(first(parse_policy("tfss")) > index_t{1} << 59);
    CHECK(first(parse_policy("dtss")) > index_t{1} << 59);
    CHECK(first(parse_policy("fiss:stages=2147483648")) >= 1);
    CHECK_THROWS_AS(parse_policy("fiss:stages=2147483649"), invalid_parameter);
    CHECK_THROWS_WITH_AS(parse_policy("fss:alpha=inf"), doctest::Contains("alpha"), spec_error);
    CHECK_THROWS_WITH_AS(parse_policy("dfss:alpha=nan"), doctest::Contains("alpha"), spec_error);
    CHECK_THROWS_WITH_AS(parse_policy("dtss:scale=inf"), doctest::Contains("scale"), spec_error);
    CHECK_THROWS_WITH_AS(parse_policy("fiss:x=inf"), doctest::Contains("'x'"), spec_error);
    CHECK_THROWS_WITH_AS(parse_policy("wf:weights=1/inf"), doctest::Contains("weights"), spec_error);
    CHECK_THROWS_AS((void)fss(std::numeric_limits<double>::infinity()), invalid_parameter);
}
