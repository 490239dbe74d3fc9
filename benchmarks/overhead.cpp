// Scheduling overhead on 2 ranks (1 master + 1 worker, empty body): chunk
// assignments per second of loopsched's parallel_for against a hand-written
// raw-MPI master-worker loop with the same messages, and against an MPI
// ping-pong round trip, the physical limit of a request-reply protocol. Then a
// worker's idle time per chunk with request-ahead, against one round trip.
// Prints "<name>: ours=<value> baseline=<value> ratio=<ours/baseline>" (medians).
#include <loopsched/loopsched.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/environment.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

using namespace loopsched;

namespace {

constexpr int repetitions = 7;

/// Hand-written master-worker loops with loopsched's messages: per loop,
/// `chunks` 48-byte requests (status, timing, results count) each answered by a
/// 16-byte chunk, one request answered by a stop, and one 48-byte report
/// answered by a 56-byte table. Returns chunks handed out per second.
double raw_mpi_rate(MPI_Comm comm, long long chunks, long long loops) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    char request[48] = {}, reply[16] = {}, report[48] = {}, table[56] = {};
    MPI_Barrier(comm);
    double const start = MPI_Wtime();
    for (long long loop = 0; loop < loops; ++loop) {
        if (rank == 0) {
            for (long long i = 0; i <= chunks; ++i) {
                MPI_Status st;
                MPI_Recv(request, 48, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
                MPI_Send(reply, i < chunks ? 16 : 0, MPI_BYTE, st.MPI_SOURCE, i < chunks ? 2 : 3, comm);
            }
            MPI_Status st;
            MPI_Recv(report, 48, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
            MPI_Send(table, 56, MPI_BYTE, st.MPI_SOURCE, 4, comm);
        } else {
            while (true) {
                MPI_Status st;
                MPI_Send(request, 48, MPI_BYTE, 0, 1, comm);
                MPI_Recv(reply, 16, MPI_BYTE, 0, MPI_ANY_TAG, comm, &st);
                if (st.MPI_TAG == 3) break;
            }
            MPI_Send(report, 48, MPI_BYTE, 0, 5, comm);
            MPI_Recv(table, 56, MPI_BYTE, 0, MPI_ANY_TAG, comm, MPI_STATUS_IGNORE);
        }
    }
    double elapsed = MPI_Wtime() - start;
    MPI_Bcast(&elapsed, 1, MPI_DOUBLE, 0, comm);
    return static_cast<double>(chunks * loops) / elapsed;
}

double ping_pong_rate(MPI_Comm comm, long long round_trips) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    char buffer[48] = {};
    MPI_Barrier(comm);
    double const start = MPI_Wtime();
    for (long long i = 0; i < round_trips; ++i) {
        if (rank == 0) {
            MPI_Send(buffer, 48, MPI_BYTE, 1, 1, comm);
            MPI_Recv(buffer, 16, MPI_BYTE, 1, 1, comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buffer, 48, MPI_BYTE, 0, 1, comm, MPI_STATUS_IGNORE);
            MPI_Send(buffer, 16, MPI_BYTE, 0, 1, comm);
        }
    }
    double elapsed = MPI_Wtime() - start;
    MPI_Bcast(&elapsed, 1, MPI_DOUBLE, 0, comm);
    return static_cast<double>(round_trips) / elapsed;
}

struct measured {
    double rate = 0.0;             ///< chunks handed out per second
    long long chunks_per_loop = 0; ///< for the raw loop with the same messages
};

/// Back-to-back loops until `chunks` chunks were handed out. CSS(1) does it in
/// one loop; a decreasing scheme gives a lone worker a few chunks per loop, so
/// its figure includes each loop's start and end, as does its raw baseline.
measured ours_rate(boost::mpi::communicator const& world, std::string const& spec, long long chunks) {
    parallel_for_options o;
    o.master_computes = false; // the same pattern as the raw loop: one master, one worker
    auto policy = parse_policy(spec);
    bool const one_loop = spec.find("css:chunk=1") != std::string::npos;
    index_t const iterations = one_loop ? chunks : 100000;
    world.barrier();
    double const start = MPI_Wtime();
    long long handed = 0, loops = 0;
    while (handed < chunks) {
        auto stats = parallel_for(world, make_range(iterations), policy, [](index_range const&) {}, o);
        handed += stats.chunks();
        ++loops;
    }
    double elapsed = MPI_Wtime() - start;
    boost::mpi::broadcast(world, elapsed, 0);
    return {static_cast<double>(handed) / elapsed, handed / loops};
}

/// Mean idle time per chunk (sending a request, waiting for the reply) of a worker whose
/// chunks take about `chunk_seconds`, with request-ahead at `ahead`.
double idle_per_chunk(boost::mpi::communicator const& world, double ahead, double chunk_seconds, index_t chunks) {
    parallel_for_options o;
    o.master_computes = false;
    o.request_ahead = ahead;
    auto const per_iteration = std::chrono::duration<double>(chunk_seconds / 10);
    auto stats = parallel_for(world, make_range(10 * chunks), css(10), [&](index_range const& part) {
        auto const until = std::chrono::steady_clock::now() + per_iteration * part.size();
        while (std::chrono::steady_clock::now() < until) {} // compute, do not sleep
    }, o);
    // Idle: not computing between chunks. With request-ahead the request leaves
    // mid-chunk, so only the wait for the reply counts.
    auto const& w = stats.workers.at(0);
    return (w.wait_seconds + (ahead > 0.0 ? 0.0 : w.comm_seconds)) / static_cast<double>(w.chunks);
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    if (world.size() != 2) {
        if (world.rank() == 0) std::fprintf(stderr, "overhead: run on exactly 2 ranks\n");
        return 2;
    }
    long long const chunks = argc > 1 ? std::stoll(argv[1]) : 200000;
    std::vector<std::string> specs{"css:chunk=1", "gss", "fss", "dtss", "w-css:chunk=1"};
    std::vector<std::vector<double>> ours(specs.size()), raw(specs.size());
    std::vector<double> pong, idle_off, idle_on;
    for (int rep = 0; rep < repetitions; ++rep) { // interleaved: noise hits all alike
        for (std::size_t s = 0; s < specs.size(); ++s) {
            auto m = ours_rate(world, specs[s], chunks);
            ours[s].push_back(m.rate);
            raw[s].push_back(raw_mpi_rate(world, m.chunks_per_loop, std::max(1LL, chunks / m.chunks_per_loop)));
        }
        pong.push_back(ping_pong_rate(world, chunks));
        index_t const timed_chunks = std::max<index_t>(100, chunks / 100);
        idle_off.push_back(idle_per_chunk(world, 0.0, 20e-6, timed_chunks));
        idle_on.push_back(idle_per_chunk(world, 0.5, 20e-6, timed_chunks));
    }
    if (world.rank() == 0) {
        std::printf("2 ranks (1 master + 1 worker), empty body, median of %d; baselines run interleaved\n",
                    repetitions);
        for (std::size_t s = 0; s < specs.size(); ++s) {
            double const o = median(ours[s]), r = median(raw[s]);
            std::printf("assignments_per_s_%s_vs_raw_mpi: ours=%.0f baseline=%.0f ratio=%.3f\n", specs[s].c_str(), o, r,
                        o / r);
        }
        double const o = median(ours[0]), p = median(pong);
        std::printf("assignments_per_s_css1_vs_ping_pong: ours=%.0f baseline=%.0f ratio=%.3f\n", o, p, o / p);
        double const rtt_us = 1e6 / p;
        double const off = median(idle_off) * 1e6, on = median(idle_on) * 1e6;
        std::printf("idle_us_per_chunk_no_ahead_vs_round_trip: ours=%.3f baseline=%.3f ratio=%.3f\n", off, rtt_us,
                    off / rtt_us);
        std::printf("idle_us_per_chunk_request_ahead_vs_round_trip: ours=%.3f baseline=%.3f ratio=%.3f\n", on, rtt_us,
                    on / rtt_us);
    }
}
