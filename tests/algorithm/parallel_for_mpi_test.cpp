// parallel_for over real MPI (run by ctest under mpiexec with 1, 2, 3 and 4
// ranks): every iteration exactly once, results equal to sequential, every
// policy, the static mappings, gathered results of trivially copyable and
// serialized types, size-1 communicators, a sub-communicator, request-ahead
// and deterministic mode; loops without a master; reissue with a slow rank; departures; hierarchical loops (on 4 ranks: a root and a
// computing sub-master with two workers).
#include "../support/mpi_check.hpp"
#include "../support/mpi_programs.hpp"

#include <loopsched/any_policy.hpp>
#include <loopsched/adaptor/synchronized.hpp>
#include <loopsched/adaptor/weighted.hpp>
#include <loopsched/concepts.hpp>
#include <loopsched/departure.hpp>
#include <loopsched/detail/fingerprint.hpp>
#include <loopsched/detail/spec_of.hpp>
#include <loopsched/error.hpp>
#include <loopsched/hierarchical.hpp>
#include <loopsched/mapping/mapping.hpp>
#include <loopsched/mpi/parallel_for.hpp>
#include <loopsched/options.hpp>
#include <loopsched/placement_spec.hpp>
#include <loopsched/policies.hpp>
#include <loopsched/policy/automatic.hpp>
#include <loopsched/serialization.hpp>
#include <loopsched/space/box.hpp>
#include <loopsched/spec.hpp>

#include <boost/hana/for_each.hpp>
#include <boost/mpi/collectives.hpp>
#include <boost/mpi/environment.hpp>
#include <boost/serialization/string.hpp>
#include <boost/serialization/vector.hpp>

#include <chrono>
#include <concepts>
#include <cstdint>
#include <limits>
#include <cmath>
#include <iostream>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

using namespace loopsched;

namespace {

double work(index_t i) { return std::cos(0.01 * static_cast<double>(i)) * static_cast<double>(i % 31); }

/// Runs the loop on `comm`; gathers (index, value) pairs on rank 0 of `comm` and
/// checks exactly-once and bit-identical results.
/// (The gathers check the loop; they come after it, and a failed check still
/// fails only the ranks that saw it.)
bool run_and_verify(boost::mpi::communicator const& comm, index_t n, any_policy const& policy,
                    parallel_for_options const& options, any_mapping const& mapping = dynamic_mapping{}) {
    std::vector<index_t> mine_index;
    std::vector<double> mine_value;
    auto stats = parallel_for(
            comm, make_range(n), policy, mapping,
            [&](index_range const& part) {
                for (index_t i : part.indices()) {
                    mine_index.push_back(i);
                    mine_value.push_back(work(i));
                }
            },
            options);
    std::vector<std::vector<index_t>> all_index;
    std::vector<std::vector<double>> all_value;
    boost::mpi::gather(comm, mine_index, all_index, 0);
    boost::mpi::gather(comm, mine_value, all_value, 0);
    bool ok = stats.statistics.iterations() == n;
    if (comm.rank() == 0) {
        std::vector<int> seen(static_cast<std::size_t>(n), 0);
        for (std::size_t r = 0; r < all_index.size(); ++r)
            for (std::size_t j = 0; j < all_index[r].size(); ++j) {
                auto i = all_index[r][j];
                ok = ok && i >= 0 && i < n && all_value[r][j] == work(i);
                if (i >= 0 && i < n) seen[static_cast<std::size_t>(i)]++;
            }
        for (int s : seen) ok = ok && s == 1;
    }
    return ok;
}

/// Runs a gathering loop on `comm` and checks the root's values against a sequential run.
bool run_gathered(boost::mpi::communicator const& comm, index_t n, any_policy const& policy,
                  parallel_for_options const& options, any_mapping const& mapping = dynamic_mapping{}) {
    auto out = parallel_for(
            comm, make_range(n), policy, mapping,
            [](index_range const& part, std::span<double> values) {
                std::size_t j = 0;
                for (index_t i : part.indices()) {
                    values[j++] = work(i);
                    values[j++] = -work(i);
                }
            },
            gather<double>{2}, options);
    bool ok = out.statistics.iterations() == n;
    if (comm.rank() == options.root) {
        ok = ok && out.value.size() == static_cast<std::size_t>(2 * n);
        for (index_t i = 0; ok && i < n; ++i)
            ok = out.value[static_cast<std::size_t>(2 * i)] == work(i) &&
                 out.value[static_cast<std::size_t>(2 * i + 1)] == -work(i);
    } else {
        ok = ok && out.value.empty();
    }
    return ok;
}

/// Gathers a string per iteration (serialized, not trivially copyable) and checks them on the root.
bool run_gathered_strings(boost::mpi::communicator const& comm, index_t n, any_policy const& policy,
                          any_mapping const& mapping, parallel_for_options const& options = {}) {
    auto text = [](index_t i) { return std::string(static_cast<std::size_t>(i % 7), 'a' + static_cast<char>(i % 26)); };
    auto out = parallel_for(
            comm, make_range(n), policy, mapping,
            [&](index_range const& part, std::span<std::string> values) {
                std::size_t j = 0;
                for (index_t i : part.indices()) values[j++] = text(i);
            },
            gather<std::string>{1}, options);
    if (comm.rank() != options.root) return out.value.empty() && out.statistics.iterations() == n;
    bool ok = out.value.size() == static_cast<std::size_t>(n);
    for (index_t i = 0; ok && i < n; ++i) ok = out.value[static_cast<std::size_t>(i)] == text(i);
    return ok;
}

/// A hierarchical loop on `comm`: every iteration exactly once (each rank's
/// iterations gathered on rank 0), the root's gathered values bit-identical, the
/// groups in the table.
bool run_hierarchical(boost::mpi::communicator const& comm, index_t n, hierarchical<any_policy, any_policy> const& h,
                      parallel_for_options const& options, std::size_t groups) {
    std::vector<index_t> mine;
    auto out = parallel_for(
            comm, make_range(n), h,
            [&](index_range const& part, std::span<std::string> values) {
                std::size_t j = 0;
                for (index_t i : part.indices()) {
                    mine.push_back(i);
                    values[j++] = std::to_string(work(i)); // serialized: passes through the sub-master as bytes
                }
            },
            gather<std::string>{1}, options);
    std::vector<std::vector<index_t>> all;
    boost::mpi::gather(comm, mine, all, 0);
    bool ok = out.statistics.iterations() == n && out.statistics.groups.size() == groups;
    if (comm.rank() == 0) {
        std::vector<int> seen(static_cast<std::size_t>(n), 0);
        for (auto const& rank_part : all)
            for (index_t i : rank_part) {
                ok = ok && i >= 0 && i < n;
                if (i >= 0 && i < n) seen[static_cast<std::size_t>(i)]++;
            }
        for (int s : seen) ok = ok && s == 1;
        ok = ok && all[static_cast<std::size_t>(options.root)].empty(); // the root does not compute
    }
    if (comm.rank() == options.root) {
        ok = ok && out.value.size() == static_cast<std::size_t>(n);
        for (index_t i = 0; ok && i < n; ++i) ok = out.value[static_cast<std::size_t>(i)] == std::to_string(work(i));
    }
    return ok;
}

/// With reissue, the last rank sleeping `pause` per iteration: the root's values
/// equal a sequential run (one copy's each), serialized or as bytes; every rank
/// has the same counts of copies. `lost_after`: the failure detector's silence
/// (generous: it must find nobody lost, heartbeats and all).
template <class R>
bool run_reissued(boost::mpi::communicator const& comm, index_t n, any_policy const& policy, bool computes,
                  std::chrono::microseconds pause, R (*value)(index_t),
                  double lost_after = std::numeric_limits<double>::infinity()) {
    parallel_for_options o;
    o.reissue = true;
    o.master_computes = computes;
    o.presumed_lost_after = lost_after;
    auto out = parallel_for(
            comm, make_range(n), policy,
            [&](index_range const& part, std::span<R> values) {
                std::size_t j = 0;
                for (index_t i : part.indices()) {
                    if (comm.rank() == comm.size() - 1) std::this_thread::sleep_for(pause);
                    values[j++] = value(i);
                }
            },
            gather<R>{1}, o);
    std::uint64_t const counts[] = {out.statistics.reissued, out.statistics.dropped};
    std::vector<std::uint64_t> root_counts(counts, counts + 2);
    boost::mpi::broadcast(comm, root_counts, 0);
    bool ok = out.statistics.iterations() >= n && out.statistics.reissued == root_counts[0] &&
              out.statistics.dropped == root_counts[1] && out.statistics.lost.empty();
    if (comm.rank() == 0) {
        ok = ok && out.value.size() == static_cast<std::size_t>(n);
        for (index_t i = 0; ok && i < n; ++i) ok = out.value[static_cast<std::size_t>(i)] == value(i);
        // With a dedicated master and two or more workers, the slow rank's first chunk is copied.
        if (!computes && comm.size() >= 3) ok = ok && out.statistics.reissued >= 1;
    }
    return ok;
}

/// The last rank leaves (departure::leave) in its first body call past `from`
/// of the loop; the root's values equal a sequential run, every iteration ran
/// once (without reissue), and every rank's table says who left.
bool run_departing(boost::mpi::communicator const& comm, index_t n, any_policy const& policy, double from,
                   bool reissue) {
    departure away;
    parallel_for_options o;
    o.reissue = reissue;
    o.departures = true;
    int const leaver = comm.size() - 1;
    if (comm.rank() == leaver && comm.size() > 1) o.leaving = &away; // alone, it would leave nobody working
    std::vector<index_t> mine;
    auto out = parallel_for(
            comm, make_range(n), policy,
            [&](index_range const& part, std::span<double> values) {
                std::size_t j = 0;
                for (index_t i : part.indices()) {
                    if (comm.rank() == leaver) std::this_thread::sleep_for(std::chrono::microseconds(100));
                    mine.push_back(i);
                    values[j++] = work(i);
                }
                if (comm.rank() == leaver && static_cast<double>(part.lower()[0]) >= from * static_cast<double>(n))
                    away.leave();
            },
            gather<double>{1}, o);
    std::vector<std::vector<index_t>> all;
    boost::mpi::gather(comm, mine, all, 0);
    std::vector<int> root_left = out.statistics.departed;
    boost::mpi::broadcast(comm, root_left, 0);
    bool ok = out.statistics.departed == root_left &&
              (root_left.empty() || root_left == std::vector<int>{leaver}) &&
              (from > 0.0 || comm.size() == 1 || root_left == std::vector<int>{leaver});
    if (comm.rank() == 0) {
        ok = ok && out.value.size() == static_cast<std::size_t>(n);
        for (index_t i = 0; ok && i < n; ++i) ok = out.value[static_cast<std::size_t>(i)] == work(i);
        std::vector<int> seen(static_cast<std::size_t>(n), 0);
        for (auto const& rank_part : all)
            for (index_t i : rank_part) seen[static_cast<std::size_t>(i)]++;
        for (int k : seen) ok = ok && (reissue ? k >= 1 : k == 1);
    }
    return ok;
}

double reissued_value(index_t i) { return work(i); }
std::string reissued_text(index_t i) { return std::to_string(i * 7); }

/// A policy object erased: the same spec, fingerprint and equality as the
/// headers give it. With loopsched::compiled the catalogue's forms erase into
/// models compiled in the library (a form missing there fails to link), so
/// this checks that ranks built either way agree on a policy.
template <class P>
bool erases_as_the_headers_do(P const& policy) {
    any_policy const erased(policy);
    std::string const spec = detail::spec_of(policy);
    std::uint64_t const expected = detail::fingerprint().add_types<P>().add(std::string_view(spec)).value();
    return erased.spec() == spec && erased.fingerprint() == expected && erased.target<P>() != nullptr &&
           (!std::equality_comparable<P> || erased == any_policy(policy)) &&
           erased.min_chunk() == detail::min_chunk_of(policy);
}

} // namespace

int loopsched::testing::parallel_for_mpi_test(int argc, char** argv) {
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    testing::tally results(world.rank());

    for (auto name : policy_names())
        for (std::string spec : {std::string(name), "w-" + std::string(name)})
            for (bool computes : {true, false}) {
                parallel_for_options o;
                o.master_computes = computes;
                o.powers.assign(static_cast<std::size_t>(world.size()), 1.0);
                o.powers.back() = 0.5;
                results.check(run_and_verify(world, 2003, parse_policy(spec), o),
                              spec + (computes ? " computing master" : " dedicated master"));
            }

    // Every catalogue scheme as a typed object, bare and under S, W and SW;
    // loops with the bare and W forms.
    boost::hana::for_each(policy_catalogue, [&](auto t) {
        using P = typename decltype(t)::type;
        std::string const name(P::name);
        P const scheme{};
        results.check(erases_as_the_headers_do(scheme) && erases_as_the_headers_do(synchronized(scheme)) &&
                              erases_as_the_headers_do(weighted(scheme)) &&
                              erases_as_the_headers_do(synchronized(weighted(scheme))),
                      name + ": typed forms erase as the headers do");
        parallel_for_options o;
        o.powers.assign(static_cast<std::size_t>(world.size()), 1.0);
        o.powers.back() = 0.5;
        results.check(run_and_verify(world, 1001, scheme, o), name + " as a typed object");
        results.check(run_and_verify(world, 1001, weighted(scheme), o), "w-" + name + " as a typed object");
    });

    // Results gathered on the root, with request-ahead and in deterministic mode.
    for (auto name : policy_names()) {
        if (name == trees::name) continue; // refuses request-ahead and deterministic mode (tested in-process)
        parallel_for_options ahead;
        ahead.request_ahead = 0.5;
        results.check(run_gathered(world, 1999, parse_policy(name), ahead),
                      std::string(name) + " gathered, request-ahead");
        parallel_for_options fixed;
        fixed.deterministic = true;
        fixed.master_computes = false;
        fixed.root = world.size() - 1;
        results.check(run_gathered(world, 1999, parse_policy("w-" + std::string(name)), fixed),
                      "w-" + std::string(name) + " gathered, deterministic");
    }

    // auto across repeated executions: each runs every iteration once whatever
    // it chose; the root names the scheme its history holds, for every method.
    for (std::string method : {"exhaustive", "bandit", "expert"}) {
        auto const policy = parse_policy("auto:method=" + method + ",key=mpi test " + method);
        bool ok = true, named = true;
        for (int execution = 0; execution < 13; ++execution) {
            parallel_for_options o;
            o.root = execution % world.size();
            auto out = parallel_for(
                    world, make_range(777), policy, [](index_range const& part, std::span<double> values) {
                        std::size_t j = 0;
                        for (index_t i : part.indices()) values[j++] = work(i);
                    },
                    gather<double>{1}, o);
            ok = ok && out.statistics.iterations() == 777;
            if (world.rank() == o.root) {
                for (index_t i = 0; ok && i < 777; ++i) ok = out.value[static_cast<std::size_t>(i)] == work(i);
                auto const h = policy.target<automatic>()->history();
                named = named && !h.records.empty() && h.records.back().scheme == out.statistics.scheme;
            }
        }
        results.check(ok, "auto:method=" + method + ": 13 executions, results as a sequential run");
        results.check(named, "auto:method=" + method + ": the root's statistics name the scheme its history holds");
    }

    // Static mappings: every rank runs its own chunks, no master round trips.
    for (std::string mapping : {"block", "cyclic"})
        for (std::string spec : {"static", "gss", "css:chunk=17", "w-fss"})
            for (bool computes : {true, false}) {
                parallel_for_options o;
                o.master_computes = computes;
                o.root = world.size() - 1;
                o.powers.assign(static_cast<std::size_t>(world.size()), 1.0);
                o.powers.front() = 2.0;
                results.check(run_and_verify(world, 3001, parse_policy(spec), o, parse_mapping(mapping)),
                              mapping + " " + spec + (computes ? " computing master" : " dedicated master"));
                results.check(run_gathered(world, 999, parse_policy(spec), o, parse_mapping(mapping)),
                              mapping + " " + spec + " gathered");
            }
    // Without a master: every rank claims steps through the window on rank 0;
    // loops with a master in between, any root, gathered values of either kind.
    for (std::string spec : {"ss", "css:chunk=13", "mfsc", "gss", "tss", "fss", "fac2", "fiss", "tfss",
                             "fsc:h=1e-4,sigma=1e-3", "static", "rnd"})
        for (int root : {0, world.size() - 1}) {
            parallel_for_options o;
            o.masterless = true;
            o.root = root;
            results.check(run_and_verify(world, 2003, parse_policy(spec), o), "masterless " + spec + ", once");
            results.check(run_gathered(world, 999, parse_policy(spec), o), "masterless " + spec + " gathered");
            results.check(run_gathered(world, 999, parse_policy(spec), {}), "with a master after masterless " + spec);
        }
    // Policies that depend on who claims: through the claims log, uneven powers.
    for (std::string spec : {"w-gss", "w-fss", "wf", "dtss", "dfss", "dfiss", "dtfss"})
        for (int root : {0, world.size() - 1}) {
            parallel_for_options o;
            o.masterless = true;
            o.root = root;
            o.powers.assign(static_cast<std::size_t>(world.size()), 1.0);
            o.powers.back() = 2.5;
            results.check(run_and_verify(world, 2003, parse_policy(spec), o), "masterless " + spec + ", once");
            results.check(run_gathered(world, 999, parse_policy(spec), o), "masterless " + spec + " gathered");
            results.check(run_gathered(world, 999, parse_policy("fss"), o), "masterless fss after " + spec);
        }
    // Equal statuses: the go carries one, which every rank keeps for all.
    for (std::string spec : {"w-fss", "dtss"}) {
        parallel_for_options o;
        o.masterless = true;
        o.run_queues.assign(static_cast<std::size_t>(world.size()), 1.0);
        results.check(run_and_verify(world, 2003, parse_policy(spec), o), "masterless " + spec + ", equal powers");
    }
    {
        parallel_for_options o;
        o.masterless = true;
        results.check(run_gathered_strings(world, 1234, parse_policy("gss"), dynamic_mapping{}, o),
                      "masterless strings gathered");
    }
    // An automatic policy that tries each candidate with a master and without:
    // every execution once, whichever it chose.
    {
        any_policy const chooser = parse_policy("auto:masterless=true,candidates=gss+w-fss,key=mpi_auto_masterless");
        for (int execution = 0; execution < 6; ++execution)
            results.check(run_and_verify(world, 2003, chooser, {}), "automatic, with a master or without, once");
    }
    // Values of a type that travels serialized, dynamic and static.
    results.check(run_gathered_strings(world, 1234, parse_policy("fss"), dynamic_mapping{}),
                  "strings gathered, dynamic");
    results.check(run_gathered_strings(world, 1234, parse_policy("css:chunk=10"), static_cyclic_mapping{}),
                  "strings gathered, cyclic");

    parallel_for_options last_root;
    last_root.root = world.size() - 1;
    results.check(run_and_verify(world, 777, parse_policy("gss"), last_root), "root = last rank");
    results.check(run_and_verify(world, 1, parse_policy("fss"), {}), "one iteration");
    results.check(run_and_verify(world, 0, parse_policy("tss"), {}), "no iteration");

    // Reissue: the last rank 100x slower; its chunks' copies win, results stay exact.
    for (bool computes : {true, false})
        for (char const* spec : {"fss", "af", "gss"}) {
            std::string const label = std::string("reissue ") + spec + (computes ? " computing" : " dedicated");
            results.check(run_reissued(world, 600, parse_policy(spec), computes, std::chrono::microseconds(300),
                                       &reissued_value),
                          label);
            results.check(run_reissued(world, 300, parse_policy(spec), computes, std::chrono::microseconds(300),
                                       &reissued_text),
                          label + ", serialized");
        }
    results.check(run_reissued(world, 600, parse_policy("af"), false, std::chrono::microseconds(300), &reissued_value,
                               30.0),
                  "reissue af with a failure detector: nobody lost");

    // Departures: the last rank leaves at its first chunk, in the middle, near the end.
    for (bool reissue : {false, true})
        for (double from : {0.0, 0.5, 0.875})
            for (char const* spec : {"fss", "css:chunk=9"})
                results.check(run_departing(world, 800, parse_policy(spec), from, reissue),
                              std::string("departure ") + spec + " from " + std::to_string(from) +
                                      (reissue ? ", reissue" : ""));

    // Size-1 communicators: each rank alone runs its loop locally.
    boost::mpi::communicator alone = world.split(world.rank());
    results.check(run_and_verify(alone, 500, parse_policy("dtss"), {}), "size-1 communicator");

    // A sub-communicator: even and odd ranks run separate loops at the same time.
    boost::mpi::communicator half = world.split(world.rank() % 2);
    results.check(run_and_verify(half, 3000, parse_policy("w-fss"), {}), "sub-communicator");

    // A body that throws on the last rank: every rank throws remote_error naming it.
    int origin = -1;
    std::string what;
    try {
        parallel_for(world, make_range(1000), css(5), [&](index_range const&) {
            // Slow enough that every rank gets a chunk before the loop ends.
            std::this_thread::sleep_for(std::chrono::microseconds(500));
            if (world.rank() == world.size() - 1) throw std::runtime_error("boom");
        });
    } catch (remote_error const& e) {
        origin = e.origin_rank();
        what = e.original_message();
    }
    results.check(origin == world.size() - 1 && what == "boom", "remote_error on every rank");

    // The same with request-ahead: the failed rank drains the reply to its early request.
    origin = -1;
    parallel_for_options ahead;
    ahead.request_ahead = 0.5;
    try {
        parallel_for(
                world, make_range(1000), css(5),
                [&](index_range const&) {
                    std::this_thread::sleep_for(std::chrono::microseconds(500));
                    if (world.rank() == world.size() / 2) throw std::runtime_error("late boom");
                },
                ahead);
    } catch (remote_error const& e) {
        origin = e.origin_rank();
    }
    results.check(origin == world.size() / 2, "remote_error with request-ahead");

    // The communicator is still usable after the failure.
    results.check(run_and_verify(world, 100, parse_policy("ss"), {}), "loop after a failure");

    // Hierarchical: groups of 3 (on 4 ranks, a root and a computing sub-master
    // with two workers), then groups of 2 whose sub-masters only schedule.
    if (world.size() >= 2) {
        for (char const* spec : {"fss/af", "dtss/ss", "w-fss/gss"}) {
            auto h = parse_hierarchy(spec);
            h.group_size = 3;
            h.sub_masters_compute = true;
            std::size_t const groups = static_cast<std::size_t>((world.size() - 1 + 2) / 3);
            results.check(run_hierarchical(world, 2501, h, {}, groups), std::string("hierarchical ") + spec);
        }
    }
    if (world.size() >= 3) {
        auto h = parse_hierarchy("fss/fss");
        h.group_size = 2;
        h.sub_masters_compute = false;
        parallel_for_options at_last;
        at_last.root = world.size() - 1;
        results.check(run_hierarchical(world, 1001, h, at_last, static_cast<std::size_t>((world.size() - 1) / 2)),
                      "hierarchical, sub-masters that only schedule, root = last rank");
    }

    return results.finish();
}
