// DOACROSS on 2 ranks: parallel_for_doacross under S-CSS, SW-CSS, S-DTSS and the
// static mappings (SDS, cyclic, CPS, ACS) against a hand-written static
// pipelined wavefront in raw MPI (one strip of columns per rank, a tunable
// number of rows per message, like the PRK Synch_p2p kernel; the best of
// several row counts), on an even machine and with rank 1 at half speed.
// Three bodies: heat's own (about 6 ns a point), and heat followed by a spin to
// a set cost per point (50 ns, 500 ns), so that the comparison is about
// scheduling and not memory traffic. Also: the sequential loop, peak memory per
// rank against the chunk-plus-halo bound, time against h around the model's optimum.
// Prints a table per body and "<name>: ours=<value> baseline=<value> ratio=<ours/baseline>" lines.
//   mpiexec -n 2 doacross_bench [ROWS COLS] [--costed NS:RxC,...] [--repetitions K]
#include "../examples/cli.hpp"
#include "../examples/doacross_kernels.hpp"

#include <loopsched/error.hpp>
#include <loopsched/mpi/parallel_for_doacross.hpp>
#include <loopsched/options.hpp>
#include <loopsched/placement_spec.hpp>
#include <loopsched/space/box.hpp>
#include <loopsched/space/window.hpp>
#include <loopsched/spec.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/environment.hpp>

#include <malloc.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

using namespace loopsched;

namespace {

using steady = std::chrono::steady_clock;

double seconds_since(steady::time_point start) { return std::chrono::duration<double>(steady::now() - start).count(); }

double median(std::vector<double> v) {
    std::ranges::sort(v);
    return v[v.size() / 2];
}

/// This process's peak resident memory (VmHWM), in bytes.
double peak_rss() {
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
        if (key == "VmHWM:") {
            double kb = 0;
            status >> kb;
            return kb * 1024.0;
        }
        status.ignore(1 << 16, '\n');
    }
    return 0.0;
}

/// Seconds to write `bytes` into pages fresh from the kernel, and to write them again.
std::pair<double, double> first_touch_and_rewrite(std::size_t bytes) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return {0.0, 0.0};
    auto start = steady::now();
    std::memset(p, 1, bytes);
    double const fresh = seconds_since(start);
    start = steady::now();
    std::memset(p, 2, bytes);
    double const warm = seconds_since(start);
    munmap(p, bytes);
    return {fresh, warm};
}

/// Heat's update, then a spin until the part has taken `ns_per_point` a point
/// (0: heat's own cost). A set cost makes the loop's time the schedule's.
struct costed_heat {
    box<2> space;
    double ns_per_point = 0.0;

    void operator()(box<2> const& part, window<double, 2>& a) const {
        auto const start = steady::now();
        kernels::heat::body{space}(part, a);
        if (ns_per_point <= 0.0) return;
        auto const until = start + std::chrono::nanoseconds(
                                           static_cast<std::int64_t>(ns_per_point * static_cast<double>(part.size())));
        while (steady::now() < until) {
        }
    }
};

/// The static pipeline: rank r owns columns [r U_c / P, (r+1) U_c / P) and all
/// rows; per block of `rows` rows it receives the left neighbour's last column,
/// runs the same body, and sends its own last column on. `slowdown`: sleep
/// that many times each block's compute time (an emulated slower rank).
double static_pipeline(MPI_Comm comm, costed_heat const& body, index_t rows, double slowdown) {
    int rank = 0, size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    box<2> const& space = body.space;
    index_t const n0 = space.extent(0), n1 = space.extent(1);
    index_t const c0 = n1 * rank / size, c1 = n1 * (rank + 1) / size;
    MPI_Barrier(comm);
    double const start = MPI_Wtime();
    // The strip, its left halo and the column after it (the sweep reads its old values).
    window<double, 2> a(space.slice(1, std::max<index_t>(0, c0 - 1), std::min(n1, c1 + 1)));
    a.fill(a.region(), std::get<0>(kernels::heat::fields()).initial);
    std::vector<double> column(static_cast<std::size_t>(rows));
    detail::emulated_slowness slowness(slowdown); // as the library emulates it, oversleep carried as credit
    for (index_t r0 = 0; r0 < n0; r0 += rows) {
        index_t const r1 = std::min(n0, r0 + rows), count = r1 - r0;
        if (rank > 0) {
            MPI_Recv(column.data(), static_cast<int>(count), MPI_DOUBLE, rank - 1, 0, comm, MPI_STATUS_IGNORE);
            for (index_t i = r0; i < r1; ++i) a(i, c0 - 1) = column[static_cast<std::size_t>(i - r0)];
        }
        auto const begin = steady::now();
        body(space.slice(0, r0, r1).slice(1, c0, c1), a);
        slowness.after(seconds_since(begin));
        if (rank + 1 < size) {
            for (index_t i = r0; i < r1; ++i) column[static_cast<std::size_t>(i - r0)] = a(i, c1 - 1);
            MPI_Send(column.data(), static_cast<int>(count), MPI_DOUBLE, rank + 1, 0, comm);
        }
    }
    MPI_Barrier(comm);
    return MPI_Wtime() - start;
}

struct ours_run {
    double seconds = 0.0;
    index_t interval = 0;
};

/// One parallel_for_doacross of the body under `policy` (a chunk policy or a static mapping).
template <class Policy>
ours_run ours(boost::mpi::communicator const& world, costed_heat const& body, Policy const& policy,
              doacross_options o) {
    world.barrier();
    double const start = MPI_Wtime();
    auto r = kernels::run_with<kernels::heat>(world, body.space, policy, body, o,
                                              false); // like the static pipeline, results stay where they were computed
    world.barrier();
    return {MPI_Wtime() - start, r.interval};
}

void line(boost::mpi::communicator const& world, std::string const& name, double a, double b) {
    if (world.rank() == 0) std::printf("%s: ours=%.6g baseline=%.6g ratio=%.3f\n", name.c_str(), a, b, a / b);
}

/// A body to compare on: heat with `ns_per_point` over `space`.
struct workload {
    std::string name;
    box<2> space;
    double ns_per_point = 0.0;
};

/// "NS:RxC" -> heat+NSns over R x C.
workload parse_workload(std::string const& spec) {
    double ns = 0;
    long long r = 0, c = 0;
    char colon = 0, x = 0;
    std::istringstream in(spec);
    if (!(in >> ns >> colon >> r >> x >> c) || colon != ':' || (x != 'x' && x != 'X') || ns < 0 || r <= 0 || c <= 0)
        throw invalid_parameter("--costed", spec, "must read NS:ROWSxCOLUMNS, for example 500:1000x1000");
    std::ostringstream name;
    name << "heat+" << ns << "ns";
    return {name.str(), box<2>::from_extents({r, c}), ns};
}

/// The schemes compared, and the configurations each runs under.
struct scheme {
    std::string name;
    std::function<ours_run(costed_heat const&, doacross_options const&)> run;
    std::vector<double> even{}, slow{}; ///< the timed runs
};

struct condition_options {
    doacross_options even, slow;
};

/// Every scheme and the pipeline, `repetitions` times after one warm-up round
/// (so that each side's buffers are warm in the heap, see main), the order of
/// our runs rotated each round; prints a table and one line per scheme and condition.
index_t compare(boost::mpi::communicator const& world, workload const& w, condition_options const& conditions,
                int repetitions) {
    costed_heat const body{w.space, w.ns_per_point};
    auto const s_css = parse_policy("s-css:h=auto"), sw_css = parse_policy("sw-css:h=auto"),
               s_dtss = parse_policy("s-dtss:h=auto");
    index_t h_model = 0;
    auto mapped = [&world](char const* name) {
        return [&world, m = parse_doacross_mapping(name)](costed_heat const& b, doacross_options const& o) {
            return ours(world, b, m, o);
        };
    };
    std::vector<scheme> schemes = {
            {"s-css h=auto", [&](costed_heat const& b, doacross_options const& o) { return ours(world, b, s_css, o); }},
            {"s-css h=auto, one chunk at a time",
             [&](costed_heat const& b, doacross_options const& o) { // as in the documents
                 doacross_options strict = o;
                 strict.extend_when_waiting = false;
                 return ours(world, b, s_css, strict);
             }},
            {"sw-css h=auto",
             [&](costed_heat const& b, doacross_options const& o) { return ours(world, b, sw_css, o); }},
            {"s-dtss h=auto",
             [&](costed_heat const& b, doacross_options const& o) { return ours(world, b, s_dtss, o); }},
            {"sds", mapped("sds")},
            {"cyclic", mapped("cyclic")},
            {"cps", mapped("cps")},
            {"acs", mapped("acs")},
    };
    std::vector<index_t> const row_blocks = {16, 64, 256};
    std::vector<double> pipeline_even, pipeline_slow;
    std::size_t const runs = 2 * schemes.size();
    for (int round = 0; round <= repetitions; ++round) {
        bool const timed = round > 0;
        for (std::size_t i = 0; i < runs; ++i) {
            std::size_t const k = (i + static_cast<std::size_t>(round)) % runs;
            scheme& s = schemes[k / 2];
            bool const slow = k % 2 == 1;
            auto const r = s.run(body, slow ? conditions.slow : conditions.even);
            if (!timed) continue;
            (slow ? s.slow : s.even).push_back(r.seconds);
            if (k == 0) h_model = r.interval;
        }
        double best_even = 1e300, best_slow = 1e300;
        for (index_t block : row_blocks) {
            best_even = std::min(best_even, static_pipeline(world, body, block, 0.0));
            best_slow = std::min(best_slow, static_pipeline(world, body, block, world.rank() == 1 ? 1.0 : 0.0));
        }
        if (!timed) continue;
        pipeline_even.push_back(best_even);
        pipeline_slow.push_back(best_slow);
    }

    // The sequential loop, on rank 0 alone, warm like the others.
    double sequential = 0.0;
    if (world.rank() == 0) {
        std::vector<double> t;
        for (int rep = 0; rep < 2; ++rep) {
            auto const start = steady::now();
            window<double, 2> a(w.space);
            a.fill(w.space, std::get<0>(kernels::heat::fields()).initial);
            body(w.space, a);
            t.push_back(seconds_since(start));
            if (a.values()[0] < -1.0) std::printf("impossible\n"); // keeps the loop observable
        }
        sequential = t.back();
    }

    double const pe = median(pipeline_even), ps = median(pipeline_slow);
    if (world.rank() == 0) {
        std::printf("\n%s, %lldx%lld on %d ranks: median of %d runs after a warm-up; the model's h = %lld; "
                    "pipeline: best of 16/64/256 rows per message; sequential %.4f s\n",
                    w.name.c_str(), static_cast<long long>(w.space.extent(0)),
                    static_cast<long long>(w.space.extent(1)), world.size(), repetitions,
                    static_cast<long long>(h_model), sequential);
        std::printf("  %-34s %10s %10s %14s %10s\n", "scheme", "even T_p", "/pipeline", "rank 1 at 1/2", "/pipeline");
        std::printf("  %-34s %10.4f %10.3f %14.4f %10.3f\n", "static pipeline (raw MPI)", pe, 1.0, ps, 1.0);
        for (auto const& s : schemes)
            std::printf("  %-34s %10.4f %10.3f %14.4f %10.3f\n", s.name.c_str(), median(s.even), median(s.even) / pe,
                        median(s.slow), median(s.slow) / ps);
    }
    for (auto const& s : schemes) {
        std::string name = s.name;
        std::ranges::replace(name, ' ', '_');
        std::erase(name, ',');
        line(world, "doacross_seconds_" + w.name + "_" + name + "_vs_static_pipeline_even", median(s.even), pe);
        line(world, "doacross_seconds_" + w.name + "_" + name + "_vs_static_pipeline_rank1_half_speed", median(s.slow),
             ps);
    }
    line(world, "doacross_seconds_" + w.name + "_s-css_h=auto_vs_sequential", median(schemes[0].even), sequential);
    return h_model;
}

} // namespace

int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    examples::command_line command(
            "doacross_bench",
            "DOACROSS on 2 ranks: parallel_for_doacross (S-CSS, SW-CSS, S-DTSS, SDS, cyclic, CPS, ACS) against a "
            "hand-written pipelined wavefront in raw MPI, even and with rank 1 at half speed, on heat's own body and "
            "on heat with a set cost per point.",
            "mpiexec -n 2 doacross_bench 4000 4000 --costed 50:2000x2000,500:1000x1000");
    index_t rows = 4000, cols = 4000;
    std::vector<std::string> costed = {"50:2000x2000", "500:1000x1000"};
    int repetitions = 5;
    command.add_option("rows", rows, "rows of the space of heat's own body")
            ->check(examples::positive_number)
            ->capture_default_str();
    command.add_option("columns", cols, "columns of that space")->check(examples::positive_number)->capture_default_str();
    command.add_option("--costed", costed, "bodies of a set cost: NS:ROWSxCOLUMNS, heat then a spin to NS a point")
            ->delimiter(',')
            ->capture_default_str();
    command.add_option("--repetitions", repetitions, "timed runs of each configuration (the median is printed)")
            ->check(examples::positive_number)
            ->capture_default_str();
    if (auto code = command.parse(argc, argv)) return *code;
    std::vector<workload> workloads = {{"heat", box<2>::from_extents({rows, cols}), 0.0}};
    for (auto const& spec : costed) workloads.push_back(parse_workload(spec));
    if (world.size() != 2 && world.rank() == 0) std::printf("note: written for 2 ranks, running on %d\n", world.size());

    // Why runs of one commit swung from 0.23x to 1.21x: here, writing pages
    // fresh from the kernel costs tens of times writing them again (a fault per
    // page in a virtual machine), and whether a side's buffers come fresh or
    // warm from glibc's heap depended on what the process had freed before
    // (glibc's sliding mmap threshold). Measured, then taken out of the
    // comparison: every allocation comes from a heap that is never trimmed, and
    // each configuration runs once untimed first.
    auto const [fresh, warm] = first_touch_and_rewrite(std::size_t{32} << 20);
    if (world.rank() == 0)
        std::printf("this machine: writing 32 MiB of fresh pages %.4f s, writing them again %.4f s (%.0fx)\n", fresh,
                    warm, fresh / warm);

    // Memory first, before any baseline run raises the peak: how much one of
    // our loops grows each rank's peak resident set.
    world.barrier();
    double const rss_before = peak_rss();
    (void)ours(world, costed_heat{workloads[0].space}, parse_policy("s-css:h=auto"), doacross_options{});
    double const rss_after = peak_rss();
    double const chunk = static_cast<double>(detail::ceil_div(cols, 2 * world.size()) + 2) * static_cast<double>(rows) *
                         sizeof(double);
    double const grown = boost::mpi::all_reduce(world, rss_after - rss_before, boost::mpi::maximum<double>());
    // Against two chunk-plus-halo windows (the running chunk and the one before it) and the whole array.
    line(world, "peak_memory_growth_bytes_per_rank_vs_two_chunk_plus_halo_windows", grown, 2.0 * chunk);
    line(world, "two_chunk_plus_halo_windows_vs_whole_array_bytes", 2.0 * chunk,
         static_cast<double>(rows * cols) * sizeof(double));

    mallopt(M_MMAP_MAX, 0);             // every block from the heap...
    mallopt(M_TRIM_THRESHOLD, 1 << 30); // ...which keeps what is freed

    condition_options conditions;
    conditions.even.read_os_load = conditions.slow.read_os_load = false; // the two ranks' own spinning is no load
    conditions.slow.powers = {1.0, 0.5};
    conditions.slow.emulate_powers = true;
    index_t h_model = 0;
    for (auto const& w : workloads) {
        index_t const h = compare(world, w, conditions, repetitions);
        if (w.ns_per_point == 0.0) h_model = h;
    }

    // Parallel time against h around the model's optimum, heat's own body.
    if (world.rank() == 0) std::printf("\nh sweep (heat, S-CSS, even machine, median of 3):\n");
    for (double factor : {0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0}) {
        index_t const h = std::max<index_t>(1, static_cast<index_t>(static_cast<double>(h_model) * factor));
        std::vector<double> t;
        for (int rep = 0; rep < 3; ++rep)
            t.push_back(ours(world, costed_heat{workloads[0].space}, parse_policy("s-css:h=" + std::to_string(h)),
                             conditions.even)
                                .seconds);
        if (world.rank() == 0)
            std::printf("  h = %6lld  T_p = %.4f s%s\n", static_cast<long long>(h), median(t),
                        factor == 1.0 ? "  (model)" : "");
    }
    return 0;
}
