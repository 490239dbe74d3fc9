// Same-binary A/B of two versions of the library: this tree's headers
// (namespace loopsched) against an earlier commit's, renamed to loopsched_old
// by benchmarks/ab.sh. On 2 ranks, blocks of the raw-MPI loop, the old and the
// new engine run in rotating order; each figure is the median over rounds of
// the per-round ratio, so the machine's drift, which moves whole runs by tens
// of percent here, cancels. Prints "<case>: new/old=<ratio> new/raw=<ratio> old/raw=<ratio>".
#include "../../examples/cli.hpp"

#include <loopsched/loopsched.hpp>
#include <loopsched_old/loopsched.hpp>

#include <boost/mpi/environment.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace {

/// The raw loop of benchmarks/overhead.cpp's shape: `chunks` request/reply pairs,
/// a stop, a report and a table per loop (sizes of the new engine's messages).
void raw_loops(MPI_Comm comm, long long chunks, long long loops) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    char buffer[256] = {};
    for (long long loop = 0; loop < loops; ++loop) {
        if (rank == 0) {
            MPI_Status st;
            for (long long i = 0; i <= chunks; ++i) {
                MPI_Recv(buffer, 256, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
                MPI_Send(buffer, i < chunks ? 16 : 0, MPI_BYTE, st.MPI_SOURCE, i < chunks ? 2 : 3, comm);
            }
            MPI_Recv(buffer, 256, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
            MPI_Send(buffer, 64, MPI_BYTE, st.MPI_SOURCE, 4, comm);
        } else {
            bool first = true;
            while (true) {
                MPI_Status st;
                MPI_Send(buffer, first ? 112 : 48, MPI_BYTE, 0, 1, comm);
                first = false;
                MPI_Recv(buffer, 256, MPI_BYTE, 0, MPI_ANY_TAG, comm, &st);
                if (st.MPI_TAG == 3) break;
            }
            MPI_Send(buffer, 72, MPI_BYTE, 0, 5, comm);
            MPI_Recv(buffer, 256, MPI_BYTE, 0, MPI_ANY_TAG, comm, MPI_STATUS_IGNORE);
        }
    }
}

double timed(boost::mpi::communicator const& world, std::function<void()> const& block) {
    world.barrier();
    double const start = MPI_Wtime();
    block();
    double elapsed = MPI_Wtime() - start;
    MPI_Bcast(&elapsed, 1, MPI_DOUBLE, 0, world);
    return elapsed;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

/// `rounds` rounds of raw, old and new blocks in rotating order.
void compare(boost::mpi::communicator const& world, char const* name, int rounds, std::function<void()> const& raw,
             std::function<void()> const& old_block, std::function<void()> const& new_block) {
    std::vector<double> new_old, new_raw, old_raw;
    std::function<void()> const* blocks[] = {&raw, &old_block, &new_block};
    for (int round = 0; round < rounds; ++round) {
        double t[3];
        for (int i = 0; i < 3; ++i) {
            int const which = (i + round) % 3;
            t[which] = timed(world, *blocks[which]);
        }
        new_old.push_back(t[2] / t[1]);
        new_raw.push_back(t[2] / t[0]);
        old_raw.push_back(t[1] / t[0]);
    }
    if (world.rank() == 0)
        std::printf("%s: new/old=%.3f new/raw=%.3f old/raw=%.3f (time ratios, median of %d rounds)\n", name,
                    median(new_old), median(new_raw), median(old_raw), rounds);
}

} // namespace

int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv);
    loopsched::examples::command_line line("ab",
                                           "Same-binary A/B on 2 ranks: this tree's engines against an earlier "
                                           "commit's (built by benchmarks/ab.sh), raw MPI beside both.",
                                           "bash benchmarks/ab.sh 3d4b741 31");
    int rounds = 41;
    line.add_option("rounds", rounds, "rounds of raw, old and new blocks in rotating order")
            ->check(loopsched::examples::positive_number)
            ->capture_default_str();
    if (auto code = line.parse(argc, argv)) return *code;
    boost::mpi::communicator world;
    if (world.size() != 2) {
        if (world.rank() == 0) std::fprintf(stderr, "ab: run on exactly 2 ranks\n");
        return 2;
    }
    long long const chunks = 20000, loops = 4000;

    auto const new_css = loopsched::parse_policy("css:chunk=1");
    auto const old_css = loopsched_old::parse_policy("css:chunk=1");
    auto const new_gss = loopsched::parse_policy("gss");
    auto const old_gss = loopsched_old::parse_policy("gss");
    loopsched::parallel_for_options new_dedicated;
    new_dedicated.master_computes = false;
    loopsched_old::parallel_for_options old_dedicated;
    old_dedicated.master_computes = false;
    auto const nothing = [](auto const&) {};

    compare(
            world, "css1_chunks_dedicated_master", rounds, [&] { raw_loops(world, chunks, 1); },
            [&] {
                loopsched_old::parallel_for(world, loopsched_old::make_range(chunks), old_css, nothing, old_dedicated);
            },
            [&] { loopsched::parallel_for(world, loopsched::make_range(chunks), new_css, nothing, new_dedicated); });
    compare(
            world, "gss_one_chunk_loops_dedicated_master", rounds, [&] { raw_loops(world, 1, loops); },
            [&] {
                for (long long i = 0; i < loops; ++i)
                    loopsched_old::parallel_for(world, loopsched_old::make_range(1000), old_gss, nothing,
                                                old_dedicated);
            },
            [&] {
                for (long long i = 0; i < loops; ++i)
                    loopsched::parallel_for(world, loopsched::make_range(1000), new_gss, nothing, new_dedicated);
            });
    compare(
            world, "css1_both_computing", rounds, [&] { raw_loops(world, chunks, 1); },
            [&] { loopsched_old::parallel_for(world, loopsched_old::make_range(chunks), old_css, nothing); },
            [&] { loopsched::parallel_for(world, loopsched::make_range(chunks), new_css, nothing); });
    compare(
            world, "gss_200000_iterations_both_computing", rounds, [&] { raw_loops(world, 1, loops / 10); },
            [&] {
                for (long long i = 0; i < loops / 10; ++i)
                    loopsched_old::parallel_for(world, loopsched_old::make_range(200000), old_gss, nothing);
            },
            [&] {
                for (long long i = 0; i < loops / 10; ++i)
                    loopsched::parallel_for(world, loopsched::make_range(200000), new_gss, nothing);
            });
    // Task farms of empty tasks, dedicated master: the farm's engine per task
    // (the raw loop sends one request/reply pair per task, as SS does).
    long long const tasks = 10000;
    auto farm = [&](auto& library, auto options, char const* scheme) {
        if constexpr (requires { options.placement = scheme; })
            options.placement = scheme;
        else
            options.scheme = scheme; // the name before placement
        options.master_computes = false;
        library(world, options);
    };
    auto const old_farm = [&](boost::mpi::communicator const& w, loopsched_old::task_farm_options const& o) {
        loopsched_old::task_farm<int>(
                w, [&](auto& f) { for (long long t = 0; t < tasks; ++t) f.submit(static_cast<int>(t)); },
                [](int const& t) { return t; }, o);
    };
    auto const new_farm = [&](boost::mpi::communicator const& w, loopsched::task_farm_options const& o) {
        loopsched::task_farm<int>(
                w, [&](auto& f) { for (long long t = 0; t < tasks; ++t) f.submit(static_cast<int>(t)); },
                [](int const& t) { return t; }, o);
    };
    for (char const* scheme : {"ss", "kazouris"})
        compare(
                world, scheme == std::string("ss") ? "farm_ss_empty_tasks" : "farm_kazouris_empty_tasks", rounds,
                [&] { raw_loops(world, tasks, 1); },
                [&] { farm(old_farm, loopsched_old::task_farm_options{}, scheme); },
                [&] { farm(new_farm, loopsched::task_farm_options{}, scheme); });
    compare(
            world, "gss_one_chunk_loops_both_computing", rounds, [&] { raw_loops(world, 1, loops / 10); },
            [&] {
                for (long long i = 0; i < loops / 10; ++i)
                    loopsched_old::parallel_for(world, loopsched_old::make_range(1), old_gss, nothing);
            },
            [&] {
                for (long long i = 0; i < loops / 10; ++i)
                    loopsched::parallel_for(world, loopsched::make_range(1), new_gss, nothing);
            });
}
