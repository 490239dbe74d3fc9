// The laws every chunk policy obeys, for the whole catalogue, with and without
// the weighting adaptor, over many loops, worker counts and speed mixes:
// chunks cover [0, N) exactly once and in order, none is empty, and the schedule
// ends in at most N grants.
#include "sequences.hpp"

#include <loopsched/adaptor/weighted.hpp>
#include <loopsched/spec.hpp>

#include <doctest/doctest.h>

#include <boost/hana/for_each.hpp>

#include <cmath>
#include <string>
#include <vector>

using namespace loopsched;

namespace {

struct cluster {
    std::string name;
    std::vector<worker_status> status; // empty: homogeneous
};

std::vector<cluster> clusters(std::size_t p) {
    std::vector<cluster> out{{"homogeneous", {}}};
    cluster mixed{"mixed speeds and loads", {}}, starved{"some workers nearly stopped", {}};
    for (std::size_t k = 0; k < p; ++k) {
        mixed.status.push_back({1.0 + static_cast<double>(k % 3), 1.0 + static_cast<double>(k % 2)});
        // V/Q < 0.1 gives A_k = 0: the distributed schemes leave these out.
        starved.status.push_back({k % 2 ? 0.05 : 2.5, k % 3 ? 1.0 : 3.0});
    }
    out.push_back(mixed);
    out.push_back(starved);
    return out;
}

/// A worker's time per iteration, from its power and load, with a deterministic
/// ripple so that adaptive schemes see varying measurements.
struct modelled_timing {
    std::vector<worker_status> status;
    chunk_timing operator()(std::size_t k, chunk const& c) const {
        worker_status s = status.empty() ? worker_status{} : status[k];
        double const per_iteration =
                1e-6 * s.run_queue / s.power * (1.0 + 0.3 * std::sin(static_cast<double>(c.first)));
        double const t = per_iteration * static_cast<double>(c.size);
        return {c.size, t, t * 1.1 + 1e-6};
    }
};

template <ChunkPolicy P>
void check_laws(P const& policy, std::string const& label) {
    for (index_t n : {0, 1, 2, 3, 5, 17, 100, 1000, 12345})
        for (std::size_t p : {1u, 2u, 3u, 4u, 7u, 16u})
            for (auto const& c : clusters(p)) {
                CAPTURE(label);
                CAPTURE(n);
                CAPTURE(p);
                CAPTURE(c.name);
                loop_info info{n, p, c.status};
                std::vector<assignment> schedule;
                REQUIRE_NOTHROW(schedule = round_robin_schedule(policy, info, modelled_timing{c.status}));
                index_t next = 0;
                for (auto const& a : schedule) {
                    REQUIRE(a.range.size > 0);
                    REQUIRE(a.range.first == next); // contiguous, in order: no gap, no overlap
                    REQUIRE(a.worker < p);
                    next = a.range.end();
                }
                REQUIRE(next == n);                                  // every iteration exactly once
                REQUIRE(static_cast<index_t>(schedule.size()) <= n); // finite: at most one grant per iteration
            }
}

} // namespace

TEST_CASE("laws: every catalogue policy with default parameters, plain and weighted") {
    boost::hana::for_each(policy_catalogue, [](auto t) {
        using P = typename decltype(t)::type;
        check_laws(P{}, std::string(P::name));
        check_laws(weighted(P{}), "w-" + std::string(P::name));
    });
}

TEST_CASE("laws: policies with parameters, chosen by spec string") {
    for (std::string spec : {"css:chunk=7",
                             "css:chunk=100000",
                             "gss:min=5",
                             "gss:round=floor",
                             "gss:min=80,round=floor",
                             "tss:first=50,last=3",
                             "tss:last=4",
                             "fss:alpha=1.5",
                             "fss:alpha=3",
                             "fss:alpha=0.5",
                             "fiss:stages=2",
                             "fiss:stages=5,x=9.5",
                             "tfss:last=2",
                             "tfss:first=40,last=2",
                             "dtss:a_min=5",
                             "dtss:last=3,scale=100",
                             "dtss:a_min=0",
                             "dfss:alpha=3,a_min=12",
                             "dfiss:stages=4",
                             "dfiss:stages=2,x=2",
                             "dtfss:a_min=2",
                             "dtfss:last=5,scale=4",
                             "af:probe=3",
                             "rnd:min=2,max=9,seed=7",
                             "rnd:seed=42"})
        for (std::string prefix : {"", "w-"}) check_laws(parse_policy(prefix + spec), prefix + spec);
}

TEST_CASE("laws: weighted factoring with explicit weights") {
    for (std::size_t p : {1u, 2u, 5u})
        for (index_t n : {0, 1, 10, 999}) {
            std::vector<double> w;
            for (std::size_t k = 0; k < p; ++k) w.push_back(0.5 + static_cast<double>(k));
            auto schedule = round_robin_schedule(wf(w), loop_info{n, p, {}});
            index_t covered = 0;
            for (auto const& a : schedule) {
                CHECK(a.range.first == covered);
                CHECK(a.range.size > 0);
                covered = a.range.end();
            }
            CHECK(covered == n);
        }
}

TEST_CASE("laws: a policy is deterministic: same requests, same chunks") {
    boost::hana::for_each(policy_catalogue, [](auto t) {
        using P = typename decltype(t)::type;
        loop_info info{5000, 5, clusters(5)[1].status};
        modelled_timing timing{info.status};
        CHECK(round_robin_schedule(P{}, info, timing) == round_robin_schedule(P{}, info, timing));
    });
}

TEST_CASE("adaptive schemes move work towards the faster workers") {
    // Worker 0 is 4x faster than the others; after the first batch it gets more.
    loop_info info{100000, 4, {{4.0, 1.0}, {1.0, 1.0}, {1.0, 1.0}, {1.0, 1.0}}};
    modelled_timing timing{info.status};
    for (auto spec : {"awf-b", "awf-c", "awf-d", "awf-e", "af", "wf", "dtss", "dfss", "dfiss", "dtfss", "w-fss"}) {
        CAPTURE(spec);
        auto schedule = round_robin_schedule(parse_policy(spec), info, timing);
        std::vector<index_t> per_worker(4);
        for (auto const& a : schedule) per_worker[a.worker] += a.range.size;
        CHECK(per_worker[0] > per_worker[1]);
        CHECK(per_worker[0] > per_worker[2]);
    }
}

TEST_CASE("awf learns weights across time steps") {
    loop_info info{10000, 2, {}};
    // Worker 1 is three times slower in the measurements.
    auto timing = [](std::size_t k, chunk const& c) {
        double t = 1e-6 * static_cast<double>(c.size) * (k == 1 ? 3.0 : 1.0);
        return chunk_timing{c.size, t, t};
    };
    awf step1;
    chunk_sequencer seq(step1, info);
    std::vector<std::optional<chunk>> last(2);
    while (!seq.done())
        for (std::size_t k = 0; k < 2 && !seq.done(); ++k) {
            request r{k, {}, last[k] ? timing(k, *last[k]) : chunk_timing{}};
            last[k] = seq.next(r);
        }
    awf step2 = step1.after(seq.state());
    CHECK(step2.time_step() == 2);
    auto first_batch = test::sizes_in_order(step2, info, {0, 1});
    // Weights 1/1 : 1/3 normalised to 1.5 and 0.5 of R/2P = 2500.
    CHECK(first_batch[0] == 3750);
    CHECK(first_batch[1] == 1250);
}

TEST_CASE("the weighting adaptor scales chunk counts by at most 1 / smallest weight") {
    // Weights V/(V_max Q) here are 1, 1/2, 1/3, 1/6: a weighted scheme may need up to
    // six times the chunks, not more (step-based schemes must not collapse to L).
    loop_info cluster{1000, 4, {{3.0, 1.0}, {3.0, 2.0}, {1.0, 1.0}, {1.0, 2.0}}};
    for (auto name : policy_names()) {
        CAPTURE(name);
        auto plain = round_robin_schedule(parse_policy(name), loop_info{1000, 4, {}}).size();
        auto weighted_count = round_robin_schedule(parse_policy("w-" + std::string(name)), cluster).size();
        CHECK(weighted_count <= 6 * plain + 2 * cluster.workers);
    }
}
