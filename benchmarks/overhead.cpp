// Scheduling overhead on 2 ranks: chunk assignments per second with an empty
// body, for loopsched's parallel_for (dedicated master) against a hand-written
// raw-MPI master-worker loop with the same message sizes, and against an MPI
// ping-pong round trip, the physical limit of a request-reply protocol.
// Prints "<name>: ours=<rate> baseline=<rate> ratio=<ours/baseline>" (medians).
#include <loopsched/loopsched.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/environment.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

using namespace loopsched;

namespace {

constexpr int repetitions = 7;

/// Hand-written master-worker with loopsched's message sizes: a 40-byte request
/// (status and timing) answered by a 16-byte chunk or a stop message.
double raw_mpi_rate(MPI_Comm comm, long long chunks) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    char request[40] = {}, reply[16] = {};
    MPI_Barrier(comm);
    double const start = MPI_Wtime();
    if (rank == 0) {
        for (long long i = 0; i <= chunks; ++i) {
            MPI_Status st;
            MPI_Recv(request, 40, MPI_BYTE, MPI_ANY_SOURCE, 1, comm, &st);
            MPI_Send(reply, 16, MPI_BYTE, st.MPI_SOURCE, i < chunks ? 2 : 3, comm);
        }
    } else {
        while (true) {
            MPI_Status st;
            MPI_Send(request, 40, MPI_BYTE, 0, 1, comm);
            MPI_Recv(reply, 16, MPI_BYTE, 0, MPI_ANY_TAG, comm, &st);
            if (st.MPI_TAG == 3) break;
        }
    }
    double const elapsed = MPI_Wtime() - start;
    MPI_Bcast(const_cast<double*>(&elapsed), 1, MPI_DOUBLE, 0, comm);
    return static_cast<double>(chunks) / elapsed;
}

double ping_pong_rate(MPI_Comm comm, long long round_trips) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    char buffer[40] = {};
    MPI_Barrier(comm);
    double const start = MPI_Wtime();
    for (long long i = 0; i < round_trips; ++i) {
        if (rank == 0) {
            MPI_Send(buffer, 40, MPI_BYTE, 1, 1, comm);
            MPI_Recv(buffer, 16, MPI_BYTE, 1, 1, comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buffer, 40, MPI_BYTE, 0, 1, comm, MPI_STATUS_IGNORE);
            MPI_Send(buffer, 16, MPI_BYTE, 0, 1, comm);
        }
    }
    double elapsed = MPI_Wtime() - start;
    MPI_Bcast(&elapsed, 1, MPI_DOUBLE, 0, comm);
    return static_cast<double>(round_trips) / elapsed;
}

/// Assignments per second: back-to-back loops until `chunks` chunks were handed
/// out. CSS(1) does it in one loop; decreasing schemes (GSS, FSS, DTSS) give a
/// single worker only a few chunks per loop, so their figure includes each
/// loop's start and end (about two extra round trips per loop).
double ours_rate(boost::mpi::communicator const& world, std::string const& spec, long long chunks) {
    parallel_for_options o;
    o.master_computes = false; // the same pattern as the raw loop: one master, one worker
    auto policy = parse_policy(spec);
    bool const one_loop = spec.find("css:chunk=1") != std::string::npos;
    index_t const iterations = one_loop ? chunks : 100000;
    world.barrier();
    double const start = MPI_Wtime();
    long long handed = 0;
    while (handed < chunks) {
        auto stats = parallel_for(world, make_range(iterations), policy, [](index_range const&) {}, o);
        handed += stats.chunks();
    }
    double elapsed = MPI_Wtime() - start;
    boost::mpi::broadcast(world, elapsed, 0);
    return static_cast<double>(handed) / elapsed;
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
    std::vector<std::vector<double>> ours(specs.size());
    std::vector<double> raw, pong;
    for (int rep = 0; rep < repetitions; ++rep) { // interleaved: noise hits all alike
        for (std::size_t s = 0; s < specs.size(); ++s)
            ours[s].push_back(ours_rate(world, specs[s], chunks));
        raw.push_back(raw_mpi_rate(world, chunks));
        pong.push_back(ping_pong_rate(world, chunks));
    }
    if (world.rank() == 0) {
        std::printf("chunk assignments per second, 2 ranks (1 master + 1 worker), empty body, median of %d\n",
                    repetitions);
        double const r = median(raw), p = median(pong);
        for (std::size_t s = 0; s < specs.size(); ++s) {
            double const o = median(ours[s]);
            std::printf("assignments_%s_vs_raw_mpi: ours=%.0f baseline=%.0f ratio=%.3f\n", specs[s].c_str(), o, r, o / r);
        }
        double const o = median(ours[0]);
        std::printf("assignments_css1_vs_ping_pong: ours=%.0f baseline=%.0f ratio=%.3f\n", o, p, o / p);
    }
}
