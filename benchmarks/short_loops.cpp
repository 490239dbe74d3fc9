// Whole loops as a time-stepping code calls them, one after another: each
// loop timed on the root from the call to its return, over many repetitions,
// for GSS, FSS, TSS, DTSS and SS, with a computing and a dedicated master,
// short (200,000 near-empty iterations) and tiny (5 iterations). Beside each,
// interleaved in the same launch: a raw-MPI self-scheduler doing only what a
// minimal one must (requests answered with the scheme's next chunk, the
// master computing between probes when it computes), and, when built with
// DLS4LB's sources (benchmarks/short_loops.sh DIR), DLS4LB's own loop.
// Prints per line the distribution in microseconds per loop:
//   "short_loops_<scheme>_<n>_<master>: ours_median=.. q1=.. q3=.. worst=.. raw_median=.. [dls4lb_median=..]
//    ratio_vs_raw=<raw median / ours> [ratio_vs_dls4lb=<dls4lb median / ours>]"
// (a ratio below 1: ours slower).
#include "../examples/cli.hpp"
#include "near_empty_loop.hpp"

#include <loopsched/any_policy.hpp>
#include <loopsched/mpi/parallel_for.hpp>
#include <loopsched/policy/gss.hpp>
#include <loopsched/spec.hpp>

#include <boost/mpi/collectives/gather.hpp>
#include <boost/mpi/environment.hpp>

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

using namespace loopsched;
using loopsched::benchmarks::run_iterations;

namespace {

/// The scheme's chunk sizes for n iterations on p ranks, as a minimal self-scheduler computes them.
class scheme_sizes {
public:
    scheme_sizes(std::string scheme, long long n, int p) : scheme_(std::move(scheme)), left_(n), n_(n), p_(p) {
        if (scheme_ == "tss") {
            first_ = std::max(1LL, n / (2LL * p));
            long long const last = 1, chunks = (2 * n + first_ + last - 1) / (first_ + last);
            step_ = chunks > 1 ? static_cast<double>(first_ - last) / static_cast<double>(chunks - 1) : 0.0;
            tss_next_ = static_cast<double>(first_);
        }
    }
    /// The next chunk's size (0: none left).
    long long next() {
        if (left_ <= 0) return 0;
        long long size = 1;
        if (scheme_ == "gss") {
            size = (left_ + p_ - 1) / p_;
        } else if (scheme_ == "fss") {
            if (batch_left_ == 0) {
                batch_size_ = std::max(1LL, (left_ + 2LL * p_ - 1) / (2LL * p_));
                batch_left_ = p_;
            }
            --batch_left_;
            size = batch_size_;
        } else if (scheme_ == "tss") {
            size = std::max(1LL, static_cast<long long>(std::llround(tss_next_)));
            tss_next_ -= step_;
        }
        size = std::min(size, left_);
        left_ -= size;
        return size;
    }
    [[nodiscard]] long long start() const { return n_ - left_; }

private:
    std::string scheme_;
    long long left_, n_;
    int p_;
    long long batch_size_ = 0, batch_left_ = 0, first_ = 1;
    double step_ = 0.0, tss_next_ = 1.0;
};

/// A minimal self-scheduler over raw MPI: workers ask, the master answers
/// with the next chunk (or a stop); a computing master takes chunks too and
/// runs its own in pieces, probing for requests between them. Seconds on the root.
double raw_loop(MPI_Comm comm, std::string const& scheme, long long n, bool master_computes) {
    int rank = 0, size = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    constexpr int ask = 1, work = 2;
    double const begin = MPI_Wtime();
    if (rank == 0) {
        scheme_sizes sizes(scheme, n, master_computes ? size : size - 1);
        int stopped = 0;
        long long own_first = 0, own_left = 0;
        auto answer = [&](int worker) {
            long long grant[2] = {sizes.start(), sizes.next()};
            MPI_Send(grant, 2, MPI_LONG_LONG, worker, work, comm);
            if (grant[1] == 0) ++stopped;
        };
        while (stopped < size - 1 || own_left > 0) {
            int flag = 0;
            MPI_Status st;
            MPI_Iprobe(MPI_ANY_SOURCE, ask, comm, &flag, &st);
            if (flag || !master_computes) {
                MPI_Recv(nullptr, 0, MPI_BYTE, MPI_ANY_SOURCE, ask, comm, &st);
                answer(st.MPI_SOURCE);
                continue;
            }
            if (own_left == 0) {
                own_first = sizes.start();
                own_left = sizes.next();
                if (own_left == 0) {
                    MPI_Recv(nullptr, 0, MPI_BYTE, MPI_ANY_SOURCE, ask, comm, &st);
                    answer(st.MPI_SOURCE);
                    continue;
                }
            }
            long long const piece = std::min(own_left, std::max(1LL, own_left / 4)); // probe four times a chunk
            run_iterations(own_first, piece);
            own_first += piece;
            own_left -= piece;
        }
    } else {
        for (;;) {
            MPI_Send(nullptr, 0, MPI_BYTE, 0, ask, comm);
            long long grant[2];
            MPI_Recv(grant, 2, MPI_LONG_LONG, 0, work, comm, MPI_STATUS_IGNORE);
            if (grant[1] == 0) break;
            run_iterations(grant[0], grant[1]);
        }
    }
    return MPI_Wtime() - begin;
}

double ours_loop(boost::mpi::communicator const& world, any_policy const& policy, long long n, bool master_computes) {
    parallel_for_options o;
    o.master_computes = master_computes;
    double const begin = MPI_Wtime();
    (void)parallel_for(
            world, make_range(n), policy,
            [](index_range const& part) { run_iterations(part.lower()[0], part.size()); }, o);
    return MPI_Wtime() - begin;
}


struct distribution {
    double median, q1, q3, worst;
};
distribution distribution_of(std::vector<double> v) {
    std::ranges::sort(v);
    auto at = [&](double q) { return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5)]; };
    return {at(0.5) * 1e6, at(0.25) * 1e6, at(0.75) * 1e6, v.back() * 1e6};
}

} // namespace

int main(int argc, char** argv) try {
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    examples::command_line line("short_loops",
                                "Whole loops timed as a user calls them, many repetitions: ours, a minimal raw-MPI "
                                "self-scheduler and (built with DLS4LB's sources) DLS4LB, interleaved.",
                                "mpiexec -n 2 short_loops --repetitions 15 --iterations 200000");
    int repetitions = 15;
    std::vector<long long> counts{200000, 5};
    std::vector<std::string> schemes{"gss", "fss", "tss", "dtss", "ss"};
    bool dedicated = true, barrier = true;
    line.add_option("--repetitions", repetitions, "loops timed per side and configuration")->capture_default_str();
    line.add_option("--iterations", counts, "loop lengths")->capture_default_str();
    line.add_option("--schemes", schemes, "gss, fss, tss, dtss, ss")->capture_default_str();
    line.add_flag("!--no-dedicated", dedicated, "only the computing master");
    line.add_flag("!--no-barrier", barrier,
                  "loops back to back, as a time-stepping code calls them (default: a barrier before each)");
    if (auto code = line.parse(argc, argv)) return *code;
#if defined(LOOPSCHED_WITH_DLS4LB)
    dls4lb_setup();
#endif
    // Each rank's speed on the body, both computing at once: on a shared
    // machine the two cores often differ, and a launch's mode follows them.
    {
        world.barrier();
        double const begin = MPI_Wtime();
        run_iterations(0, 10'000'000);
        double const ns = (MPI_Wtime() - begin) * 1e2;
        std::vector<double> all;
        boost::mpi::gather(world, ns, all, 0);
        if (world.rank() == 0) {
            std::printf("short_loops_ns_per_iteration:");
            for (std::size_t r = 0; r < all.size(); ++r) std::printf(" rank%zu=%.3f", r, all[r]);
            std::printf("\n");
        }
    }
    // The first loop on a communicator duplicates it for the library (a
    // collective MPI_Comm_dup, milliseconds): timed apart, not in the distributions.
    world.barrier();
    double const first = ours_loop(world, any_policy(gss{}), 1000, true);
    if (world.rank() == 0) std::printf("short_loops_first_loop_us: ours=%.1f\n", first * 1e6);
    for (long long n : counts)
        for (auto const& scheme : schemes)
            for (bool computes : {true, false}) {
                if (!computes && !dedicated) continue;
                if (scheme == "ss" && n > 20000) continue; // one message per iteration: a chunk benchmark, not a loop one
                any_policy const policy = parse_policy(scheme);
                std::vector<double> ours, raw, theirs;
                for (int r = 0; r < repetitions; ++r) {
                    // Interleaved, the order rotating, so that drift hits every side alike.
                    for (int side = 0; side < 3; ++side) {
                        int const which = (side + r) % 3;
                        if (barrier) world.barrier();
                        if (which == 0) ours.push_back(ours_loop(world, policy, n, computes));
                        if (which == 1 && scheme != "dtss") raw.push_back(raw_loop(world, scheme, n, computes));
#if defined(LOOPSCHED_WITH_DLS4LB)
                        // DLS4LB's master always computes.
                        if (which == 2 && computes && dls4lb_method(scheme.c_str()) >= 0)
                            theirs.push_back(dls4lb_loop(dls4lb_method(scheme.c_str()), n, run_iterations));
#endif
                    }
                }
                if (world.rank() != 0) continue;
                auto const o = distribution_of(ours);
                std::printf("short_loops_%s_%lld_%s: ours_median=%.1f q1=%.1f q3=%.1f worst=%.1f", scheme.c_str(), n,
                            computes ? "computing" : "dedicated", o.median, o.q1, o.q3, o.worst);
                if (!raw.empty()) {
                    auto const b = distribution_of(raw);
                    std::printf(" raw_median=%.1f raw_q1=%.1f raw_q3=%.1f raw_worst=%.1f ratio_vs_raw=%.3f", b.median,
                                b.q1, b.q3, b.worst, b.median / o.median);
                }
                if (!theirs.empty()) {
                    auto const d = distribution_of(theirs);
                    std::printf(" dls4lb_median=%.1f dls4lb_q1=%.1f dls4lb_q3=%.1f dls4lb_worst=%.1f ratio_vs_dls4lb=%.3f",
                                d.median, d.q1, d.q3, d.worst, d.median / o.median);
                }
                std::printf("\n");
                std::fflush(stdout);
            }
    return 0;
} catch (std::exception const& e) {
    std::fprintf(stderr, "short_loops: %s\n", e.what());
    return 1;
}
