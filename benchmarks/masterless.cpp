// Loops without a master against loops with one, on real MPI: the same
// scheme, the same near-empty body, every rank computing, interleaved in one
// launch; and, when built with DLS4LB's sources (BENCHMARK=masterless
// benchmarks/short_loops.sh DIR),
// DLS4LB's master-worker loop. Each side's loop is timed on the root from the
// call to its return; the time per chunk is that over the scheme's chunk count.
// For SS (CSS(1)), also the machine's floor: a raw loop whose ranks claim
// each iteration with a bare atomic on a shared-memory window and run it,
// nothing else. Prints per configuration, in microseconds (medians over the
// repetitions):
//   "masterless_<scheme>_<n>: chunks=.. masterless_per_chunk=.. master_worker_per_chunk=..
//    [dls4lb_per_chunk=..] [raw_claims_per_chunk=..] ratio_vs_master_worker=<masterless / master-worker>
//    [ratio_vs_dls4lb=..]"
// (a ratio below 1: masterless faster).
#include "../examples/cli.hpp"
#include "near_empty_loop.hpp"

#include <loopsched/any_policy.hpp>
#include <loopsched/mpi/parallel_for.hpp>
#include <loopsched/schedule.hpp>
#include <loopsched/spec.hpp>

#include <boost/mpi/environment.hpp>

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <string>
#include <vector>

using namespace loopsched;
using loopsched::benchmarks::run_iterations;

namespace {

double loop_seconds(boost::mpi::communicator const& world, any_policy const& policy, long long n, bool masterless) {
    parallel_for_options o;
    o.masterless = masterless;
    double const begin = MPI_Wtime();
    (void)parallel_for(
            world, make_range(n), policy,
            [](index_range const& part) { run_iterations(part.lower()[0], part.size()); }, o);
    return MPI_Wtime() - begin;
}

/// The floor for CSS(1): every rank claims an iteration with a bare atomic
/// on one shared-memory counter and runs it, until none is left. Seconds on the root.
double raw_claims(MPI_Comm comm, long long n) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Win win = MPI_WIN_NULL;
    void* base = nullptr;
    MPI_Win_allocate_shared(rank == 0 ? 8 : 0, 8, MPI_INFO_NULL, comm, &base, &win);
    MPI_Aint size = 0;
    int unit = 0;
    void* at = nullptr;
    MPI_Win_shared_query(win, 0, &size, &unit, &at);
    auto& counter = *static_cast<long long*>(at);
    if (rank == 0) counter = 0;
    MPI_Barrier(comm);
    double const begin = MPI_Wtime();
    for (long long step; (step = std::atomic_ref<long long>(counter).fetch_add(1, std::memory_order_relaxed)) < n;)
        run_iterations(step, 1);
    MPI_Barrier(comm);
    double const seconds = MPI_Wtime() - begin;
    MPI_Win_free(&win);
    return seconds;
}

double median(std::vector<double> v) {
    std::ranges::sort(v);
    return v.empty() ? 0.0 : v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv) try {
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    examples::command_line line("masterless",
                                "Loops without a master against loops with one (and, built with DLS4LB's sources, "
                                "DLS4LB's), interleaved: time per chunk.",
                                "mpiexec -n 2 masterless --repetitions 11");
    int repetitions = 11;
    std::vector<std::string> configurations{"ss:100000", "gss:2000", "gss:200000", "fss:200000"};
    line.add_option("--repetitions", repetitions, "loops timed per side and configuration")->capture_default_str();
    line.add_option("--loops", configurations, "scheme:iterations pairs")->capture_default_str();
    if (auto code = line.parse(argc, argv)) return *code;
#if defined(LOOPSCHED_WITH_DLS4LB)
    dls4lb_setup();
#endif
    // The first loop of each kind makes what later loops reuse (the library's
    // communicator, the counter's window): not timed.
    world.barrier();
    (void)loop_seconds(world, any_policy(parse_policy("gss")), 1000, false);
    (void)loop_seconds(world, any_policy(parse_policy("gss")), 1000, true);
    bool const one_node = [&] { // the floor needs a shared-memory window
        MPI_Comm node = MPI_COMM_NULL;
        MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        int size = 0;
        MPI_Comm_size(node, &size);
        MPI_Comm_free(&node);
        return size == world.size();
    }();
    for (auto const& configuration : configurations) {
        auto const colon = configuration.find(':');
        std::string const scheme = configuration.substr(0, colon);
        long long const n = std::stoll(configuration.substr(colon + 1));
        any_policy const policy = parse_policy(scheme);
        auto const chunks = static_cast<double>(
                round_robin_schedule(policy, loop_info{n, static_cast<std::size_t>(world.size()), {}}).size());
        std::vector<double> without, with, theirs, raw;
        for (int r = 0; r < repetitions; ++r)
            for (int side = 0; side < 4; ++side) { // interleaved, the order rotating: drift hits every side alike
                int const which = (side + r) % 4;
                world.barrier();
                if (which == 0) without.push_back(loop_seconds(world, policy, n, true));
                if (which == 1) with.push_back(loop_seconds(world, policy, n, false));
#if defined(LOOPSCHED_WITH_DLS4LB)
                if (which == 2 && dls4lb_method(scheme.c_str()) >= 0)
                    theirs.push_back(dls4lb_loop(dls4lb_method(scheme.c_str()), n, run_iterations));
#endif
                if (which == 3 && scheme == "ss" && one_node) raw.push_back(raw_claims(world, n));
            }
        if (world.rank() != 0) continue;
        double const a = median(without) / chunks * 1e6, b = median(with) / chunks * 1e6;
        std::printf("masterless_%s_%lld: chunks=%.0f masterless_per_chunk=%.3f master_worker_per_chunk=%.3f",
                    scheme.c_str(), n, chunks, a, b);
        if (!theirs.empty()) std::printf(" dls4lb_per_chunk=%.3f", median(theirs) / chunks * 1e6);
        if (!raw.empty()) std::printf(" raw_claims_per_chunk=%.3f", median(raw) / chunks * 1e6);
        std::printf(" ratio_vs_master_worker=%.3f", a / b);
        if (!theirs.empty()) std::printf(" ratio_vs_dls4lb=%.3f", a / (median(theirs) / chunks * 1e6));
        std::printf("\n");
        std::fflush(stdout);
    }
    return 0;
} catch (std::exception const& e) {
    std::fprintf(stderr, "masterless: %s\n", e.what());
    return 1;
}
