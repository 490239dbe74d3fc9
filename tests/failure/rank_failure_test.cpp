// One run of the real-failure matrix (User-Level Failure Mitigation): on 3 or
// 4 ranks of an MPI library with ULFM (Open MPI 5 under mpirun --with-ft
// ulfm), one rank raises SIGKILL at a seeded moment of a first loop, farm,
// DOACROSS loop or divide and conquer; every survivor checks that the work
// ended as it must (every result once and as a sequential run, the lost rank
// named alike on every survivor, or the same rank_lost everywhere), moves to
// loopsched::survivors() and runs further loops there, each checked. Each
// survivor prints one line, "PASS ..." or "FAIL ..."; the victim prints
// nothing, unless it outlived a body kill it never reached (then it says so). tests/failure/kill_matrix.py runs the matrix and counts.
//
//   rank_failure_test --work doall|farm|doacross|dnc --scheme S --victim V
//                     --kill body|timer|start|after|none --seed N [--dedicated] [--no-reissue] [--masterless] [--no-gather] [--loops L]
#include "../../examples/dnc_problems.hpp"

#include <loopsched/dependence/uniform.hpp>
#include <loopsched/error.hpp>
#include <loopsched/mpi.hpp>
#include <loopsched/space/box.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

using namespace loopsched;

namespace {

static_assert(survives_failures, "the failure tests need an MPI library with ULFM (mpi-ext.h)");

struct settings {
    std::string work = "doall", scheme = "fss", kill = "body";
    int victim = 1;
    std::uint64_t seed = 1;
    bool dedicated = false, reissue = true;
    bool masterless = false; ///< DOALL loops without a master (no reissue: a loss is rank_lost)
    bool gathered = true;    ///< DOALL: values gathered (false: only the table, whose rows go up a tree without a master)
    int loops = 100;
};

/// A value per iteration no neighbour shares, as exact in every run.
double value_of(index_t i) { return static_cast<double>(i) * 1.5 + static_cast<double>((i * 7919) % 101); }

/// Spins about `us` microseconds (a sleep would let the scheduler hide the kill's moment).
void spin(double us) {
    auto const until = std::chrono::steady_clock::now() + std::chrono::duration<double, std::micro>(us);
    while (std::chrono::steady_clock::now() < until) {
    }
}

[[noreturn]] void die() {
    std::raise(SIGKILL);
    std::abort();
}

/// Where the victim stands, and when it dies.
struct victim_state {
    bool is_victim = false;
    long long iterations_left = -1; ///< --kill body: dies when this reaches 0 (checked per iteration)
    void iteration() {
        if (is_victim && iterations_left >= 0 && iterations_left-- == 0) die();
    }
};

/// One piece of work on `comm`: throws rank_lost, or returns the ranks the
/// statistics name as lost (after checking the results on the root).
using work_fn = std::function<std::vector<int>(boost::mpi::communicator const&, victim_state&, bool first)>;

std::string failures; // what this rank found wrong
void expect(bool ok, std::string const& what) {
    if (!ok && failures.empty()) failures = what;
}

std::vector<int> run_doall(settings const& s, boost::mpi::communicator const& comm, victim_state& v, bool first) {
    index_t const n = first ? 20000 : 600;
    double const us = first ? 10.0 : 1.0;
    auto const slash = s.scheme.find('/');
    parallel_for_options o;
    o.reissue = s.reissue && !s.masterless;
    o.masterless = s.masterless;
    if (slash == std::string::npos) o.master_computes = !s.dedicated; // a hierarchy's root never computes
    auto body = [&](index_range const& part, std::span<double> values) {
        std::size_t j = 0;
        for (index_t i : part.indices()) {
            v.iteration();
            spin(us);
            values[j++] = value_of(i);
        }
    };
    if (!s.gathered) { // every iteration counted once in the table
        if (slash != std::string::npos) throw std::invalid_argument("--no-gather is for flat DOALL loops");
        auto const out = parallel_for(comm, make_range(n), std::string_view(s.scheme),
                                      [&](index_range const& part) {
                                          for (index_t i = part.lower()[0]; i < part.upper()[0]; ++i) {
                                              v.iteration();
                                              spin(us);
                                          }
                                      },
                                      o);
        expect(out.statistics.iterations() == n, "doall " + s.scheme + ": the table's rows do not add up to the loop");
        return out.statistics.lost;
    }
    // "fss/ss": a hierarchy, groups of two under the root, sub-masters computing:
    // {1, 2} on 3 ranks, {1, 2} and {3} on 4 (rank 2 is the one group worker).
    auto out = slash == std::string::npos
                       ? parallel_for(comm, make_range(n), std::string_view(s.scheme), body, gather<double>{}, o)
                       : parallel_for(comm, make_range(n),
                                      hierarchical<any_policy, any_policy>{parse_policy(s.scheme.substr(0, slash)),
                                                                           parse_policy(s.scheme.substr(slash + 1)), 2, true},
                                      body, gather<double>{}, o);
    if (comm.rank() == 0) {
        bool exact = out.value.size() == static_cast<std::size_t>(n);
        for (index_t i = 0; exact && i < n; ++i) exact = out.value[static_cast<std::size_t>(i)] == value_of(i);
        expect(exact, "doall " + s.scheme + ": the root's values differ from a sequential run");
    }
    return out.statistics.lost;
}

std::vector<int> run_farm(settings const& s, boost::mpi::communicator const& comm, victim_state& v, bool first) {
    int const tasks = first ? 2000 : 60;
    double const us = first ? 100.0 : 5.0;
    task_farm_options o;
    o.placement = s.scheme;
    o.reissue = s.reissue;
    o.master_computes = !s.dedicated;
    o.expected_tasks = static_cast<std::uint64_t>(tasks);
    auto out = task_farm<double>(
            comm, [&](auto& farm) { for (int i = 0; i < tasks; ++i) farm.submit(i); },
            [&](int const& i) {
                v.iteration();
                spin(us);
                return value_of(i);
            },
            o);
    if (comm.rank() == 0) {
        bool exact = out.value.size() == static_cast<std::size_t>(tasks);
        for (int i = 0; exact && i < tasks; ++i) exact = out.value[static_cast<std::size_t>(i)] == value_of(i);
        expect(exact, "farm " + s.scheme + ": the root's results differ from a sequential run");
    }
    return out.statistics.lost;
}

std::vector<int> run_doacross(settings const& s, boost::mpi::communicator const& comm, victim_state& v, bool first) {
    index_t const side = first ? 120 : 24;
    doacross_options o;
    o.master_computes = !s.dedicated;
    auto step = [](double up, double left) { return up * 0.5 + left * 0.25 + 1.0; };
    auto out = parallel_for_doacross(
            comm, box<2>::from_extents({side, side}), uniform<vec{1, 0}, vec{0, 1}>{}, std::string_view(s.scheme),
            make_field<double>([](auto const&) { return 1.0; }),
            [&](box<2> const& part, window<double, 2>& a) {
                for (index_t i = part.lower()[0]; i < part.upper()[0]; ++i)
                    for (index_t j = part.lower()[1]; j < part.upper()[1]; ++j) {
                        v.iteration();
                        spin(first ? 5.0 : 0.2);
                        a(i, j) = step(i > 0 ? a(i - 1, j) : 1.0, j > 0 ? a(i, j - 1) : 1.0);
                    }
            },
            gather<>{}, o);
    if (comm.rank() == 0) {
        std::vector<double> a(static_cast<std::size_t>(side * side), 1.0);
        auto at = [&](index_t i, index_t j) -> double& { return a[static_cast<std::size_t>(i * side + j)]; };
        for (index_t i = 0; i < side; ++i)
            for (index_t j = 0; j < side; ++j) at(i, j) = step(i > 0 ? at(i - 1, j) : 1.0, j > 0 ? at(i, j - 1) : 1.0);
        auto& field = std::get<0>(out.value);
        bool exact = true;
        for (index_t i = 0; exact && i < side; ++i)
            for (index_t j = 0; exact && j < side; ++j) exact = field(i, j) == at(i, j);
        expect(exact, "doacross " + s.scheme + ": the root's field differs from a sequential run");
    }
    return out.statistics.lost;
}

std::vector<int> run_dnc(settings const& s, boost::mpi::communicator const& comm, victim_state& v, bool first) {
    dnc_options o;
    o.placement = s.scheme;
    o.master_computes = !s.dedicated;
    struct counted : examples::fibonacci {
        victim_state* v = nullptr;
        [[nodiscard]] std::uint64_t solve(int n) const {
            v->iteration();
            spin(20.0);
            return iterative(n);
        }
    };
    counted problem;
    problem.cutoff = 8;
    problem.v = &v;
    int const n = first ? 25 : 14;
    auto out = divide_and_conquer(comm, n, problem, o);
    if (comm.rank() == 0) expect(out.value == examples::fibonacci::iterative(n), "dnc: not fib(n)");
    return out.statistics.lost;
}

} // namespace

int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator const world;
    settings s;
    for (int i = 1; i < argc; ++i) {
        std::string_view const a = argv[i];
        auto next = [&] { return std::string(i + 1 < argc ? argv[++i] : ""); };
        if (a == "--work") s.work = next();
        else if (a == "--scheme") s.scheme = next();
        else if (a == "--kill") s.kill = next();
        else if (a == "--victim") s.victim = std::stoi(next());
        else if (a == "--seed") s.seed = std::stoull(next());
        else if (a == "--loops") s.loops = std::stoi(next());
        else if (a == "--dedicated") s.dedicated = true;
        else if (a == "--no-reissue") s.reissue = false;
        else if (a == "--masterless") s.masterless = true;
        else if (a == "--no-gather") s.gathered = false;
        else {
            std::fprintf(stderr, "rank_failure_test: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    work_fn const work = s.work == "farm"       ? work_fn([&](auto const& c, auto& v, bool f) { return run_farm(s, c, v, f); })
                         : s.work == "doacross" ? work_fn([&](auto const& c, auto& v, bool f) { return run_doacross(s, c, v, f); })
                         : s.work == "dnc"      ? work_fn([&](auto const& c, auto& v, bool f) { return run_dnc(s, c, v, f); })
                                                : work_fn([&](auto const& c, auto& v, bool f) { return run_doall(s, c, v, f); });

    // The moment: a count of the victim's own iterations (body), a delay from
    // the first loop's start (timer: any moment, the opening and the closing
    // table included), before its first loop (start), or just after the first
    // loop returned on it (after).
    // One small piece of work first, unless the victim dies before its first
    // (start): the library's communicator is made here, before any kill.
    // Open MPI 5.0.11 crashes on the survivors when a failure is detected
    // while a communicator is being made (a segfault in
    // ompi_comm_revoke_local under MPI_Comm_dup or MPIX_Comm_shrink), which
    // no caller can prevent; docs/failures.md says so.
    victim_state v;
    if (s.kill != "start") (void)work(world, v, false);
    // The victim's share of the first piece of work, about: body kills fall in it.
    long long const share = s.work == "farm" ? 600 : s.work == "dnc" ? 400 : 4000;
    std::mt19937_64 draw(s.seed);
    v.is_victim = world.rank() == s.victim;
    if (v.is_victim && s.kill == "body") v.iterations_left = static_cast<long long>(draw() % static_cast<std::uint64_t>(share));
    // Ranks share one host's monotonic clock: the survivors know when the timer fires.
    world.barrier();
    auto const started = std::chrono::steady_clock::now();
    auto const delay = std::chrono::microseconds(draw() % 300'000);
    if (v.is_victim && s.kill == "timer")
        std::thread([at = started + delay] {
            std::this_thread::sleep_until(at);
            die();
        }).detach();

    boost::mpi::communicator comm = world;
    int const lost_world_rank = s.victim;
    bool victim_gone = false;
    std::vector<std::string> lost_seen; // each loop's lost ranks or error, for the report line
    double first_seconds = 0.0;         // the first loop, from the start (with its retry, if it needed one)
    for (int loop = 0; loop <= s.loops && failures.empty(); ++loop) {
        bool const first = loop == 0;
        // The victim's rank in `comm`, while it is in it.
        int const victim_here = victim_gone ? -1 : lost_world_rank;
        for (int attempt = 0;; ++attempt) {
            if (attempt > 2) {
                expect(false, "loop " + std::to_string(loop) + ": still failing after two retries");
                break;
            }
            try {
                if (v.is_victim && first && s.kill == "start") die(); // before the library's communicator exists
                auto const lost = work(comm, v, first);
                if (first)
                    first_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
                if (!lost.empty()) {
                    expect(lost == std::vector<int>{victim_here},
                           "loop " + std::to_string(loop) + ": the statistics name other ranks as lost");
                    comm = survivors(comm);
                    victim_gone = true;
                    lost_seen.push_back("lost@" + std::to_string(loop));
                }
                break;
            } catch (rank_lost const& e) {
                expect(e.lost_rank() == victim_here,
                       "loop " + std::to_string(loop) + ": rank_lost names rank " + std::to_string(e.lost_rank()));
                // A dead sub-master ends a hierarchy's loop; a dead group worker does not.
                bool const sub_master = s.scheme.find('/') != std::string::npos && victim_here != 2;
                if (s.reissue && !s.masterless && s.work != "doacross" && s.work != "dnc" && victim_here != 0 && !sub_master &&
                    s.kill == "body")
                    expect(false, "loop " + std::to_string(loop) + ": rank_lost although reissue should have carried the loop on");
                comm = survivors(comm);
                victim_gone = true;
                lost_seen.push_back("rank_lost@" + std::to_string(loop));
            } catch (std::exception const& e) {
                expect(false, "loop " + std::to_string(loop) + ": " + e.what());
                break;
            }
        }
        if (v.is_victim && first && s.kill == "after") die();
    }
    // A body kill falls after a drawn number of the victim's own iterations or
    // tasks; a scheme that hands a rank measured as slow little work can end
    // every loop before the victim reaches it. The victim, alive, then says
    // how many it had left, so that "never killed" is told apart from "a loss
    // missed" (every rank is still in `comm`, the victim too).
    long long victim_left = 0;
    if (s.kill == "body" && !victim_gone && failures.empty()) {
        try {
            victim_left = v.is_victim ? v.iterations_left : 0;
            boost::mpi::broadcast(comm, victim_left, s.victim);
        } catch (std::exception const& e) {
            expect(false, std::string("asking the victim whether it reached its kill: ") + e.what());
        }
    }
    bool const never_reached = victim_left > 0;
    if (never_reached) lost_seen.push_back("victim not reached, " + std::to_string(victim_left) + " left");
    double const total = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    expect(victim_gone == (s.kill != "none") || s.kill == "timer" || never_reached,
           "the victim's loss was never seen, or seen without a kill");
    // From the timer's kill to the first loop's end, where the kill fell in it.
    double const kill_to_done = first_seconds - std::chrono::duration<double>(delay).count();
    if (victim_gone)
        expect(comm.size() == world.size() - 1,
               "the survivors' communicator has " + std::to_string(comm.size()) + " ranks, not " +
                       std::to_string(world.size() - 1));
    std::string seen;
    for (auto const& l : lost_seen) seen += (seen.empty() ? "" : ",") + l;
    std::printf("%s rank %d: %s %s victim %d kill %s seed %llu: %s; first loop %.4f s, kill to its end %.4f s, "
                "all %.3f s%s%s\n",
                failures.empty() ? "PASS" : "FAIL", world.rank(), s.work.c_str(), s.scheme.c_str(), s.victim,
                s.kill.c_str(), static_cast<unsigned long long>(s.seed), seen.empty() ? "nothing lost" : seen.c_str(),
                first_seconds, s.kill == "timer" && kill_to_done > 0 ? kill_to_done : -1.0, total, failures.empty() ? "" : ": ", failures.c_str());
    std::fflush(stdout);
    int const code = failures.empty() ? 0 : 1;
    // Open MPI 5.0's MPI_Finalize, in boost::mpi::environment's destructor,
    // now and then waits for ever on a failed rank (open-mpi/ompi#11404; a plain C
    // program does the same here): past 3 s the run ends without it, and says so.
    std::thread([rank = world.rank(), code] {
        std::this_thread::sleep_for(std::chrono::seconds(3));
        std::printf("FINALIZE HUNG rank %d\n", rank);
        std::fflush(stdout);
        std::_Exit(code);
    }).detach();
    return code;
}
