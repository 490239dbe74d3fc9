// Scheduling overhead on 2 ranks, empty body: what loopsched's parallel_for
// adds over a hand-written raw-MPI master-worker loop sending the same
// messages, side by side in one run. Prints
//   "<name>: ours=<value> baseline=<value> added=<ours - baseline>"  (times)
//   "<name>: ours=<value> baseline=<value> ratio=<ours/baseline>"     (rates)
// as medians of interleaved repetitions. Targets (issue 16): at most 0.15 us
// added per chunk (CSS(1)) and 1.0 us per loop (a one-chunk GSS loop). Then the
// computing master: its time per own iteration with an empty body, and the
// median time of a one-chunk loop when both ranks compute. The task farm
// (issue 18): time per task, empty and 1 us tasks, against the raw loop with
// one round trip per task and the same body; target at most 0.3 us added.
// Then tasks of 100 doubles (800 bytes) against the raw loop whose replies carry
// as many bytes (issue 35 asks at most 2 us of the root's time for such a task).
#include "../examples/cli.hpp"

#include <loopsched/any_policy.hpp>
#include <loopsched/concepts.hpp>
#include <loopsched/mpi/parallel_for.hpp>
#include <loopsched/mpi/task_farm.hpp>
#include <loopsched/policies.hpp>
#include <loopsched/space/box.hpp>
#include <loopsched/spec.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/environment.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

using namespace loopsched;

namespace {

constexpr int repetitions = 7;

/// The sizes of loopsched's messages (see runtime/core/messages.hpp and agreement.hpp).
constexpr int hello_bytes = sizeof(detail::hello_message), request_bytes = sizeof(detail::request_header),
              work_bytes = sizeof(chunk), report_bytes = sizeof(worker_statistics) + 3 * 8,
              table_bytes = 2 * 8 + sizeof(worker_statistics);

/// Hand-written master-worker loops with loopsched's messages: per loop a
/// hello answered by the first chunk, `chunks - 1` requests answered by a
/// chunk, one request answered by a stop, and a report answered by the table.
/// Returns seconds per loop. `spin_seconds`: the worker's busy time per chunk.
void spin(double seconds) {
    double const end = MPI_Wtime() + seconds;
    while (seconds > 0.0 && MPI_Wtime() < end) {
    }
}
double raw_mpi_loop(MPI_Comm comm, long long chunks, long long loops, double spin_seconds = 0.0,
                    int task_bytes = 0) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    char hello[hello_bytes] = {}, request[request_bytes] = {}, report[report_bytes] = {}, table[table_bytes] = {};
    int const reply_bytes = work_bytes + task_bytes;
    std::vector<char> reply_buffer(static_cast<std::size_t>(reply_bytes));
    char* const reply = reply_buffer.data();
    MPI_Barrier(comm);
    double const start = MPI_Wtime();
    for (long long loop = 0; loop < loops; ++loop) {
        if (rank == 0) {
            MPI_Status st;
            MPI_Recv(hello, hello_bytes, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
            for (long long i = 0; i <= chunks; ++i) {
                if (i > 0) MPI_Recv(request, request_bytes, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
                MPI_Send(reply, i < chunks ? reply_bytes : 0, MPI_BYTE, st.MPI_SOURCE, i < chunks ? 2 : 3, comm);
            }
            MPI_Recv(report, report_bytes, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
            MPI_Send(table, table_bytes, MPI_BYTE, st.MPI_SOURCE, 4, comm);
        } else {
            MPI_Send(hello, hello_bytes, MPI_BYTE, 0, 1, comm);
            while (true) {
                MPI_Status st;
                MPI_Recv(reply, reply_bytes, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
                if (st.MPI_TAG == 3) break;
                spin(spin_seconds);
                MPI_Send(request, request_bytes, MPI_BYTE, 0, 1, comm);
            }
            MPI_Send(report, report_bytes, MPI_BYTE, 0, 5, comm);
            MPI_Recv(table, table_bytes, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, MPI_STATUS_IGNORE);
        }
    }
    double elapsed = MPI_Wtime() - start;
    MPI_Bcast(&elapsed, 1, MPI_DOUBLE, 0, comm);
    return elapsed / static_cast<double>(loops);
}

double ping_pong_seconds(MPI_Comm comm, long long round_trips) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    char buffer[request_bytes] = {};
    MPI_Barrier(comm);
    double const start = MPI_Wtime();
    for (long long i = 0; i < round_trips; ++i) {
        if (rank == 0) {
            MPI_Send(buffer, request_bytes, MPI_BYTE, 1, 1, comm);
            MPI_Recv(buffer, work_bytes, MPI_BYTE, 1, 1, comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buffer, request_bytes, MPI_BYTE, 0, 1, comm, MPI_STATUS_IGNORE);
            MPI_Send(buffer, work_bytes, MPI_BYTE, 0, 1, comm);
        }
    }
    double elapsed = MPI_Wtime() - start;
    MPI_Bcast(&elapsed, 1, MPI_DOUBLE, 0, comm);
    return elapsed / static_cast<double>(round_trips);
}

struct measured {
    double seconds_per_loop = 0.0;
    long long chunks_per_loop = 0;
};

/// `loops` back-to-back loops of `iterations` with a dedicated master (the
/// raw loop's pattern: one master, one worker).
measured ours_loop(boost::mpi::communicator const& world, any_policy const& policy, index_t iterations,
                   long long loops) {
    parallel_for_options o;
    o.master_computes = false;
    world.barrier();
    double const start = MPI_Wtime();
    long long chunks = 0;
    for (long long loop = 0; loop < loops; ++loop)
        chunks = parallel_for(
                         world, make_range(iterations), policy, [](index_range const&) {}, o)
                         .statistics.chunks();
    double elapsed = MPI_Wtime() - start;
    boost::mpi::broadcast(world, elapsed, 0);
    return {elapsed / static_cast<double>(loops), chunks};
}

/// A task farm of `tasks` tasks of `spin_seconds` each with a dedicated master
/// (the raw loop's pattern); returns seconds per task. Each task is an int, or
/// with `doubles` > 0 a vector of that many doubles (issue 35: 100 doubles).
double ours_farm(boost::mpi::communicator const& world, std::string const& scheme, long long tasks,
                 double spin_seconds, std::size_t doubles = 0) {
    task_farm_options o;
    o.master_computes = false;
    o.placement = scheme;
    o.expected_tasks = static_cast<std::size_t>(tasks);
    auto const body = [&](auto const&) {
        spin(spin_seconds);
        return 1;
    };
    std::vector<double> const carried(doubles, 1.0);
    world.barrier();
    double const start = MPI_Wtime();
    if (doubles == 0)
        task_farm<int>(
                world,
                [&](auto& farm) {
                    for (long long t = 0; t < tasks; ++t) farm.submit(static_cast<int>(t));
                },
                body, o);
    else
        task_farm<std::vector<double>>(
                world,
                [&](auto& farm) {
                    for (long long t = 0; t < tasks; ++t) farm.submit(carried);
                },
                body, o);
    double elapsed = MPI_Wtime() - start;
    boost::mpi::broadcast(world, elapsed, 0);
    return elapsed / static_cast<double>(tasks);
}

/// Mean idle time per chunk (sending a request, waiting for the reply) of a worker whose
/// chunks take about `chunk_seconds`, with request-ahead at `ahead`.
double idle_per_chunk(boost::mpi::communicator const& world, double ahead, double chunk_seconds, index_t chunks) {
    parallel_for_options o;
    o.master_computes = false;
    o.request_ahead = ahead;
    auto const per_iteration = std::chrono::duration<double>(chunk_seconds / 10);
    auto stats = parallel_for(
            world, make_range(10 * chunks), css(10),
            [&](index_range const& part) {
                auto const until = std::chrono::steady_clock::now() + per_iteration * part.size();
                while (std::chrono::steady_clock::now() < until) {
                } // compute, do not sleep
            },
            o);
    // Idle: not computing between chunks. With request-ahead the request leaves
    // mid-chunk, so only the wait for the reply counts.
    auto const& w = stats.statistics.workers.at(0);
    return (w.wait_seconds + (ahead > 0.0 ? 0.0 : w.comm_seconds)) / static_cast<double>(w.chunks);
}

/// Both ranks compute, empty body: the master's seconds per iteration of its
/// own, and the loop's seconds per iteration.
std::pair<double, double> computing_master(boost::mpi::communicator const& world, any_policy const& policy, index_t n) {
    world.barrier();
    auto const s = parallel_for(world, make_range(n), policy, [](index_range const&) {}).statistics;
    double own = 0;
    for (auto const& w : s.workers)
        if (w.rank == 0) own = static_cast<double>(w.iterations);
    return {s.parallel_seconds / std::max(1.0, own), s.parallel_seconds / static_cast<double>(n)};
}

/// Both ranks compute, empty body: the median time of a GSS loop of `n` iterations.
double computing_gss_loop(boost::mpi::communicator const& world, index_t n, long long loops) {
    auto const policy = parse_policy("gss");
    std::vector<double> t;
    for (long long i = 0; i < loops; ++i) {
        double const start = MPI_Wtime();
        parallel_for(world, make_range(n), policy, [](index_range const&) {});
        t.push_back(MPI_Wtime() - start);
    }
    std::sort(t.begin(), t.end());
    double m = t[t.size() / 2];
    boost::mpi::broadcast(world, m, 0);
    return m;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

void print_added(char const* name, std::vector<double> const& ours, std::vector<double> const& base) {
    double const o = median(ours) * 1e6, b = median(base) * 1e6;
    std::printf("%s: ours=%.3f baseline=%.3f added=%.3f\n", name, o, b, o - b);
}

} // namespace

int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    examples::command_line line("overhead",
                                "What parallel_for adds over a hand-written raw-MPI master-worker loop that sends the "
                                "same messages, side by side, empty body, 2 ranks.",
                                "mpiexec -n 2 overhead 200000");
    long long chunks = 200000;
    line.add_option("chunks", chunks, "chunks in the CSS(1) loop")->check(examples::positive_number)->capture_default_str();
    if (auto code = line.parse(argc, argv)) return *code;
    if (world.size() != 2) {
        if (world.rank() == 0) std::fprintf(stderr, "overhead: run on exactly 2 ranks\n");
        return 2;
    }
    auto const css1 = parse_policy("css:chunk=1");
    auto const gss = parse_policy("gss");
    std::vector<std::string> const other_specs{"fss", "dtss", "w-css:chunk=1"};
    std::vector<any_policy> others;
    for (auto const& s : other_specs) others.push_back(parse_policy(s));

    std::vector<double> chunk_ours, chunk_raw, loop_ours, loop_raw, pong, idle_off, idle_on, own_ss, all_ss, one_chunk,
            gss_big;
    std::vector<std::vector<double>> other_ours(others.size()), other_raw(others.size());
    std::vector<std::string> const farm_schemes{"kazouris", "ss"};
    std::vector<double> const task_seconds{0.0, 1e-6};
    constexpr std::size_t carried_doubles = 100; // an 800-byte task (issue 35's "task carrying 100 doubles")
    std::vector<std::vector<double>> farm_800(farm_schemes.size());
    std::vector<double> farm_800_raw;
    // [scheme][task time]: ours; [task time]: the raw loop with the same body
    std::vector<std::vector<std::vector<double>>> farm_ours(farm_schemes.size(),
                                                            std::vector<std::vector<double>>(task_seconds.size()));
    std::vector<std::vector<double>> farm_raw(task_seconds.size());
    long long const loops = std::max(1LL, chunks / 4);
    for (int rep = 0; rep < repetitions; ++rep) {         // interleaved: the machine's drift hits all alike
        auto const c = ours_loop(world, css1, chunks, 1); // one loop of `chunks` chunks
        chunk_ours.push_back(c.seconds_per_loop / static_cast<double>(c.chunks_per_loop));
        chunk_raw.push_back(raw_mpi_loop(world, c.chunks_per_loop, 1) / static_cast<double>(c.chunks_per_loop));
        auto const g = ours_loop(world, gss, 1000, loops); // one chunk per loop: a lone worker gets it all
        loop_ours.push_back(g.seconds_per_loop);
        loop_raw.push_back(raw_mpi_loop(world, g.chunks_per_loop, loops));
        for (std::size_t s = 0; s < others.size(); ++s) { // about `chunks` chunks in all, whatever a loop holds
            long long const per_loop = std::max(1LL, ours_loop(world, others[s], 100000, 1).chunks_per_loop);
            long long const n = std::max(1LL, chunks / per_loop);
            auto const m = ours_loop(world, others[s], 100000, n);
            other_ours[s].push_back(m.seconds_per_loop / static_cast<double>(m.chunks_per_loop));
            other_raw[s].push_back(raw_mpi_loop(world, m.chunks_per_loop, n) / static_cast<double>(m.chunks_per_loop));
        }
        long long const tasks = std::max(1000LL, chunks / 4);
        for (std::size_t b = 0; b < task_seconds.size(); ++b) {
            for (std::size_t f = 0; f < farm_schemes.size(); ++f)
                farm_ours[f][b].push_back(ours_farm(world, farm_schemes[f], tasks, task_seconds[b]));
            farm_raw[b].push_back(raw_mpi_loop(world, tasks, 1, task_seconds[b]) / static_cast<double>(tasks));
        }
        for (std::size_t f = 0; f < farm_schemes.size(); ++f)
            farm_800[f].push_back(ours_farm(world, farm_schemes[f], tasks, 0.0, carried_doubles));
        // The raw loop's reply carries the task's bytes: its length word and the doubles.
        farm_800_raw.push_back(raw_mpi_loop(world, tasks, 1, 0.0, 8 + 8 * static_cast<int>(carried_doubles)) /
                               static_cast<double>(tasks));
        pong.push_back(ping_pong_seconds(world, chunks / 2));
        index_t const timed_chunks = std::max<index_t>(100, chunks / 100);
        idle_off.push_back(idle_per_chunk(world, 0.0, 20e-6, timed_chunks));
        idle_on.push_back(idle_per_chunk(world, 0.5, 20e-6, timed_chunks));
        auto const [own, all] = computing_master(world, css1, chunks);
        own_ss.push_back(own);
        all_ss.push_back(all);
        one_chunk.push_back(computing_gss_loop(world, 1, std::max(11LL, chunks / 200)));
        gss_big.push_back(computing_gss_loop(world, 200000, std::max(11LL, chunks / 2000)));
    }
    if (world.rank() == 0) {
        std::printf("2 ranks, empty body, median of %d interleaved repetitions; times in us\n", repetitions);
        print_added("added_us_per_chunk_css1_vs_raw_mpi", chunk_ours, chunk_raw);
        print_added("added_us_per_loop_gss_one_chunk_vs_raw_mpi", loop_ours, loop_raw);
        for (std::size_t s = 0; s < others.size(); ++s) {
            double const o = median(other_ours[s]), r = median(other_raw[s]);
            std::printf("chunk_rate_%s_vs_raw_mpi: ours=%.0f baseline=%.0f ratio=%.3f\n", other_specs[s].c_str(), 1 / o,
                        1 / r, r / o);
        }
        for (std::size_t f = 0; f < farm_schemes.size(); ++f)
            for (std::size_t b = 0; b < task_seconds.size(); ++b) {
                std::string const name = "added_us_per_task_farm_" + farm_schemes[f] +
                                         (task_seconds[b] == 0.0 ? "_empty" : "_1us") + "_vs_raw_mpi";
                print_added(name.c_str(), farm_ours[f][b], farm_raw[b]);
            }
        for (std::size_t f = 0; f < farm_schemes.size(); ++f) {
            std::string const name = "added_us_per_task_farm_" + farm_schemes[f] + "_800_bytes_vs_raw_mpi";
            print_added(name.c_str(), farm_800[f], farm_800_raw);
        }
        double const rtt = median(pong);
        std::printf("chunk_rate_css1_vs_ping_pong: ours=%.0f baseline=%.0f ratio=%.3f\n", 1 / median(chunk_ours),
                    1 / rtt, rtt / median(chunk_ours));
        double const off = median(idle_off) * 1e6, on = median(idle_on) * 1e6;
        std::printf("idle_us_per_chunk_no_ahead_vs_round_trip: ours=%.3f baseline=%.3f ratio=%.3f\n", off, rtt * 1e6,
                    off / (rtt * 1e6));
        std::printf("idle_us_per_chunk_request_ahead_vs_round_trip: ours=%.3f baseline=%.3f ratio=%.3f\n", on,
                    rtt * 1e6, on / (rtt * 1e6));
        std::printf("computing_master_ns_per_own_iteration_css1: %.0f (the loop: %.0f ns per iteration)\n",
                    median(own_ss) * 1e9, median(all_ss) * 1e9);
        std::printf("computing_one_chunk_gss_loop_median_us: %.1f\n", median(one_chunk) * 1e6);
        std::printf("computing_gss_200000_iterations_loop_median_us: %.1f\n", median(gss_big) * 1e6);
    }
}
