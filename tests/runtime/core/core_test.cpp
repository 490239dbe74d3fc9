// The protocol core on the in-process transport: loops after failed loops with
// no collective between them, user messages beside loops, ranks that disagree
// about the arguments, and the messages a loop sends (counted by a decorator).
#include "../../../examples/doacross_kernels.hpp"
#include "../../support/counting_transport.hpp"
#include "../../support/failing_transport.hpp"

#include <loopsched/algorithm/parallel_for.hpp>
#include <loopsched/algorithm/parallel_for_doacross.hpp>
#include <loopsched/any_policy.hpp>
#include <loopsched/concepts.hpp>
#include <loopsched/error.hpp>
#include <loopsched/mapping/mapping.hpp>
#include <loopsched/options.hpp>
#include <loopsched/policies.hpp>
#include <loopsched/payload.hpp>
#include <loopsched/runtime/core/trace.hpp>
#include <loopsched/space/box.hpp>
#include <loopsched/space/window.hpp>
#include <loopsched/spec.hpp>
#include <loopsched/transport/in_process.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace loopsched;

namespace {

void spin(double seconds) {
    auto const until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < until) {
    }
}

/// A gathering loop: true if the root holds every iteration's value once and
/// every rank's statistics count exactly this loop.
bool clean_loop(in_process::endpoint& t, index_t n, any_policy const& policy) {
    auto out = parallel_for(
            t, make_range(n), policy,
            [&](index_range const& part, std::span<index_t> v) {
                std::size_t j = 0;
                for (index_t i : part.indices()) v[j++] = 7 * i;
            },
            gather<index_t>{1});
    bool ok = out.statistics.iterations() == n;
    if (t.rank() == 0)
        for (index_t i = 0; ok && i < n; ++i) ok = out.value[static_cast<std::size_t>(i)] == 7 * i;
    return ok;
}

/// The parameter each rank's invalid_parameter named, by rank ("" for none).
std::vector<std::string> named_by_each_rank(int ranks, std::function<void(in_process::endpoint&)> const& loop) {
    std::vector<std::string> names(static_cast<std::size_t>(ranks), "no error");
    in_process::run(ranks, [&](in_process::endpoint& t) {
        try {
            loop(t);
        } catch (invalid_parameter const& e) {
            names[static_cast<std::size_t>(t.rank())] = e.parameter();
        }
        // The next loop on the same endpoint runs, with no collective in between.
        if (!clean_loop(t, 300, parse_policy("gss"))) names[static_cast<std::size_t>(t.rank())] += " (next loop wrong)";
    });
    return names;
}

} // namespace

TEST_CASE("core: a loop after a failed one runs right, with no collective between them") {
    for (int ranks : {2, 3, 4})
        for (bool computes : {true, false}) {
            CAPTURE(ranks);
            CAPTURE(computes);
            std::vector<int> failures(static_cast<std::size_t>(ranks), 0), good(static_cast<std::size_t>(ranks), 0);
            in_process::run(ranks, [&](in_process::endpoint& t) {
                std::mt19937 pick(42); // the same sequence on every rank
                for (int round = 0; round < 40; ++round) {
                    int failing = static_cast<int>(pick() % static_cast<unsigned>(ranks));
                    if (failing == 0 && !computes) failing = 1; // a dedicated master runs no body
                    parallel_for_options o;
                    o.master_computes = computes;
                    bool thrown = false;
                    try {
                        parallel_for(
                                t, make_range(600), css(20),
                                [&](index_range const&) {
                                    if (t.rank() == failing && !thrown) {
                                        thrown = true;
                                        throw std::runtime_error("boom");
                                    }
                                    spin(2e-5);
                                },
                                o);
                    } catch (remote_error const& e) {
                        if (e.origin_rank() == failing) ++failures[static_cast<std::size_t>(t.rank())];
                    }
                    if (clean_loop(t, 1000, parse_policy(round % 2 ? "fss" : "ss")))
                        ++good[static_cast<std::size_t>(t.rank())];
                }
            });
            for (int r = 1; r < ranks; ++r) CHECK(failures[static_cast<std::size_t>(r)] == failures[0]);
            CHECK(failures[0] > 0);
            for (int g : good) CHECK(g == 40);
        }
}

TEST_CASE("core: a DOACROSS loop after a failing root runs right") {
    auto const space = box<2>::from_extents({60, 50});
    auto const expected = kernels::raw_bytes(kernels::sequential<kernels::heat>(space));
    std::vector<int> right(3, 0);
    in_process::run(3, [&](in_process::endpoint& t) {
        for (int round = 0; round < 10; ++round) {
            try {
                (void)parallel_for_doacross(t, space, kernels::heat::dependences{}, parse_policy("s-css:chunk=3,h=5"),
                                            make_field<double>([](auto const&) { return 0.0; }),
                                            [&](box<2> const& part, window<double, 2>&) {
                                                if (t.rank() == round % 3 && part.upper()[0] > 9)
                                                    throw std::runtime_error("x");
                                            },
                                            gather<>{});
            } catch (remote_error const&) {
            }
            auto r = kernels::run<kernels::heat>(t, space, parse_policy("s-tss:h=6"));
            if (t.rank() != 0 || kernels::raw_bytes(r.value) == expected) ++right[static_cast<std::size_t>(t.rank())];
        }
    });
    for (int r : right) CHECK(r == 10);
}

TEST_CASE("core: user messages on the user's endpoint never reach a loop, and arrive whole") {
    in_process::run(3, [&](in_process::endpoint& t) {
        // Messages to the root with the tags the library used to send on, before and during loops.
        for (int tag : {7701, 0, 1, 33}) t.send(0, tag, bytes(5, std::byte{static_cast<unsigned char>(t.rank())}));
        CHECK(clean_loop(t, 2000, parse_policy("gss")));
        // (A computing root runs its chunks in slices: count iterations, not calls.)
        parallel_for(t, make_range(90), css(3), [&](index_range const& part) {
            t.send(0, 5, bytes(static_cast<std::size_t>(part.size()), std::byte{9}));
        });
        CHECK(clean_loop(t, 500, parse_policy("tss")));
        if (t.rank() == 0) {
            int user = 0, from_bodies = 0;
            while (auto m = t.try_receive(any_source, any_tag)) {
                if (m->tag == 5) {
                    CHECK(m->payload == bytes(m->payload.size(), std::byte{9}));
                    from_bodies += static_cast<int>(m->payload.size());
                } else {
                    CHECK(m->payload == bytes(5, std::byte{static_cast<unsigned char>(m->source)}));
                    ++user;
                }
            }
            CHECK(user == 3 * 4);
            CHECK(from_bodies == 90);
        }
    });
}

TEST_CASE("core: ranks that disagree about the arguments all throw invalid_parameter naming them") {
    auto const nothing = [](index_range const&) {};
    auto all_name = [](std::vector<std::string> const& names, std::string const& parameter) {
        for (auto const& n : names) CHECK(n == parameter);
    };
    all_name(named_by_each_rank(3,
                                [&](auto& t) { parallel_for(t, make_range(t.rank() == 2 ? 11 : 10), gss{}, nothing); }),
             "iterations");
    all_name(named_by_each_rank(3,
                                [&](auto& t) {
                                    parallel_for_options o;
                                    o.root = t.rank() == 1 ? 1 : 0;
                                    parallel_for(t, make_range(10), gss{}, nothing, o);
                                }),
             "options.root");
    all_name(named_by_each_rank(3,
                                [&](auto& t) {
                                    parallel_for_options o; // every rank believes it is the root: nobody waits for ever
                                    o.root = t.rank();
                                    parallel_for(t, make_range(10), gss{}, nothing, o);
                                }),
             "options.root");
    all_name(named_by_each_rank(4,
                                [&](auto& t) {
                                    parallel_for(t, make_range(10),
                                                 t.rank() == 3 ? parse_policy("css:chunk=2")
                                                               : parse_policy("css:chunk=3"),
                                                 nothing);
                                }),
             "policy");
    all_name(named_by_each_rank(3,
                                [&](auto& t) {
                                    parallel_for(
                                            t, make_range(10), gss{}, [](index_range const&, std::span<float>) {},
                                            gather<float>{t.rank() == 0 ? 2u : 1u});
                                }),
             "gathered bytes per iteration");
    all_name(named_by_each_rank(3,
                                [&](auto& t) {
                                    parallel_for_options o;
                                    o.trace = t.rank() == 2;
                                    parallel_for(t, make_range(10), gss{}, nothing, o);
                                }),
             "options.trace");
    all_name(named_by_each_rank(3,
                                [&](auto& t) {
                                    parallel_for_options o;
                                    o.powers = {1.0, 1.0, t.rank() == 1 ? 0.0 : 1.0};
                                    parallel_for(t, make_range(10), gss{}, nothing, o);
                                }),
             "options.powers[2]");
    all_name(named_by_each_rank(3,
                                [&](auto& t) {
                                    if (t.rank() == 1)
                                        parallel_for(t, make_range(10), gss{}, static_block_mapping{}, nothing);
                                    else
                                        parallel_for(t, make_range(10), gss{}, nothing);
                                }),
             "mapping");
    all_name(named_by_each_rank(2,
                                [&](auto& t) {
                                    (void)kernels::run<kernels::heat>(
                                            t, box<2>::from_extents({20, 20}),
                                            parse_policy(t.rank() ? "s-tss:h=4" : "s-tss:h=5"));
                                }),
             "policy");
    // Every rank agrees: nobody throws.
    all_name(named_by_each_rank(3, [&](auto& t) { parallel_for(t, make_range(10), gss{}, nothing); }), "no error");
}

TEST_CASE("core: consecutive chunks of one worker send no halo; chunks on other ranks do") {
    auto const space = box<2>::from_extents({80, 40});
    auto const expected = kernels::raw_bytes(kernels::sequential<kernels::heat>(space));
    for (bool computes : {false, true}) {
        CAPTURE(computes);
        testing::message_counts counts;
        int const ranks = 2;
        std::vector<std::vector<char>> got(ranks);
        in_process::network net(ranks);
        std::vector<std::thread> threads;
        for (int r = 0; r < ranks; ++r)
            threads.emplace_back([&, r] {
                // The library's context of the network, seen through the counter.
                channel<testing::counting_transport<in_process::endpoint>> ch(
                        testing::counting_transport<in_process::endpoint>(in_process::endpoint(net, r, 1), counts));
                doacross_options o;
                o.master_computes = computes;
                o.extend_when_waiting = false;
                auto result = kernels::run<kernels::heat>(ch, space, parse_policy("s-css:chunk=4,h=8"), o);
                got[static_cast<std::size_t>(r)] = kernels::raw_bytes(result.value);
            });
        for (auto& th : threads) th.join();
        CHECK(got[0] == expected);
        long const chunks = 40 / 4; // u_c is the shorter dimension (u_s runs along the longer)
        // Grants to the root's own worker go through its loopback, not the transport.
        if (!computes)
            CHECK(counts.of(detail::kind::work) == chunks);
        else
            CHECK((counts.of(detail::kind::work) > 0 && counts.of(detail::kind::work) < chunks));
        if (!computes) { // one worker holds every chunk: each halo is copied, never sent
            CHECK(counts.of(detail::kind::data) == 0);
            CHECK(counts.of(detail::kind::successor) == 0);
        } else { // the master's own chunks and rank 1's alternate: each hand-over sends sets
            CHECK(counts.of(detail::kind::data) > 0);
            CHECK(counts.of(detail::kind::successor) > 0);
        }
        // Every loop ends with one report and one table per remote worker.
        CHECK(counts.of(detail::kind::report) == 1);
        CHECK(counts.of(detail::kind::table) == 1);
    }
}

TEST_CASE("core: a DOALL loop sends one request per chunk, plus the hello, stop, report and table") {
    testing::message_counts counts;
    in_process::network net(3);
    std::vector<std::thread> threads;
    std::vector<loop_statistics> stats(3);
    for (int r = 0; r < 3; ++r)
        threads.emplace_back([&, r] {
            channel<testing::counting_transport<in_process::endpoint>> ch(
                    testing::counting_transport<in_process::endpoint>(in_process::endpoint(net, r, 1), counts));
            parallel_for_options o;
            o.master_computes = false;
            stats[static_cast<std::size_t>(r)] = parallel_for(
                    ch, make_range(1000), css(10), [](index_range const&) {}, o).statistics;
        });
    for (auto& th : threads) th.join();
    CHECK(stats[0].chunks() == 100);
    CHECK(counts.of(detail::kind::hello) == 2);
    CHECK(counts.of(detail::kind::work) == 100);
    CHECK(counts.of(detail::kind::request) == 100); // the hello was each worker's first request; the last asks in vain
    CHECK(counts.of(detail::kind::stop) == 2);
    CHECK(counts.of(detail::kind::report) == 2);
    CHECK(counts.of(detail::kind::table) == 2);
}

namespace {

/// One DOALL loop on 4 in-process ranks whose rank `victim` dies at its
/// `after`-th iteration (the others told as ULFM tells them): what each rank
/// saw (its statistics' lost ranks, or the rank its rank_lost named), and the
/// root's values.
struct after_a_death {
    std::vector<std::vector<int>> lost = std::vector<std::vector<int>>(4);
    std::vector<int> named = std::vector<int>(4, -1);
    std::vector<int> values;
    bool died = false; ///< the victim reached its iteration (a rank may run fewer)
};
template <class Policy>
after_a_death loop_with_a_death(int victim, int after, bool reissue, bool computes, Policy const& policy) {
    after_a_death out;
    in_process::network net(4);
    testing::deaths deaths;
    std::vector<std::thread> threads;
    for (int r = 0; r < 4; ++r)
        threads.emplace_back([&, r] {
            using failing = testing::failing_transport<in_process::endpoint>;
            channel<failing> ch(failing(in_process::endpoint(net, r, 1), deaths));
            int done = 0;
            parallel_for_options o;
            o.reissue = reissue;
            if (!detail::is_hierarchical_v<Policy>) o.master_computes = computes; // a hierarchy's root never computes
            try {
                auto run = parallel_for(
                        ch, make_range(2000), policy,
                        [&](index_range const& part, std::span<int> values) {
                            std::size_t j = 0;
                            for (index_t i : part.indices()) {
                                if (r == victim && done++ == after) ch.transport().die();
                                spin(1e-5);
                                values[j++] = static_cast<int>(i * 3 + 1);
                            }
                        },
                        gather<int>{}, o);
                out.lost[static_cast<std::size_t>(r)] = run.statistics.lost;
                if (r == 0) out.values = std::move(run.value);
            } catch (testing::rank_died const&) {
            } catch (rank_lost const& e) {
                out.named[static_cast<std::size_t>(r)] = e.lost_rank();
            }
        });
    for (auto& t : threads) t.join();
    out.died = deaths.dead.load() == victim;
    return out;
}

bool exact(std::vector<int> const& values) {
    if (values.size() != 2000) return false;
    for (std::size_t i = 0; i < values.size(); ++i)
        if (values[i] != static_cast<int>(i * 3 + 1)) return false;
    return true;
}

} // namespace

TEST_CASE("core: a worker that dies (the transport says so) is lost at once; with reissue the loop completes") {
    for (char const* spec : {"ss", "fss", "af", "dtss"})
        for (bool computes : {true, false})
            for (int after : {0, 7, 150}) {
                CAPTURE(spec);
                CAPTURE(computes);
                CAPTURE(after);
                auto const out = loop_with_a_death(2, after, true, computes, parse_policy(spec));
                if (after < 150) CHECK(out.died); // a rank runs about 500 of the 2000 iterations
                CHECK(exact(out.values));
                for (int r : {0, 1, 3}) {
                    CHECK(out.named[static_cast<std::size_t>(r)] == -1);
                    CHECK(out.lost[static_cast<std::size_t>(r)] == (out.died ? std::vector<int>{2} : std::vector<int>{}));
                }
            }
}

TEST_CASE("core: a group's worker that dies in a hierarchy: with reissue its group completes the loop") {
    // Groups of two under the root, sub-masters computing: {1, 2} and {3}.
    for (char const* within : {"ss", "fss", "gss"})
        for (int after : {0, 7, 150}) {
            CAPTURE(within);
            CAPTURE(after);
            hierarchical<any_policy, any_policy> const h{parse_policy("fss"), parse_policy(within), 2, true};
            auto const out = loop_with_a_death(2, after, true, true, h);
            if (after < 150) CHECK(out.died);
            CHECK(exact(out.values));
            for (int r : {0, 1, 3}) {
                CHECK(out.named[static_cast<std::size_t>(r)] == -1);
                CHECK(out.lost[static_cast<std::size_t>(r)] == (out.died ? std::vector<int>{2} : std::vector<int>{}));
            }
        }
}

TEST_CASE("core: in a hierarchy, a dead sub-master, or a dead worker without reissue, gives every survivor rank_lost") {
    hierarchical<any_policy, any_policy> const h{parse_policy("fss"), parse_policy("ss"), 2, true};
    SUBCASE("a group's worker that held work, no reissue") {
        auto const out = loop_with_a_death(2, 5, false, true, h);
        CHECK(out.died);
        for (int r : {0, 1, 3}) CHECK(out.named[static_cast<std::size_t>(r)] == 2);
    }
    SUBCASE("a sub-master") {
        for (int victim : {1, 3}) {
            CAPTURE(victim);
            auto const out = loop_with_a_death(victim, 5, true, true, h);
            CHECK(out.died);
            for (int r = 0; r < 4; ++r)
                if (r != victim) CHECK(out.named[static_cast<std::size_t>(r)] == victim);
        }
    }
}

TEST_CASE("core: without reissue, or when the root dies, every survivor throws the same rank_lost") {
    SUBCASE("a worker that held work, no reissue") {
        auto const out = loop_with_a_death(3, 5, false, true, parse_policy("gss"));
        CHECK(out.died);
        for (int r : {0, 1, 2}) CHECK(out.named[static_cast<std::size_t>(r)] == 3);
    }
    SUBCASE("the root") {
        for (bool reissue : {true, false}) {
            auto const out = loop_with_a_death(0, 5, reissue, true, parse_policy("fss"));
            CHECK(out.died);
            for (int r : {1, 2, 3}) CHECK(out.named[static_cast<std::size_t>(r)] == 0);
        }
    }
}
