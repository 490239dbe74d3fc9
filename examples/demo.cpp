// demo: what loopsched does on the real ranks of this machine, measured so that
// it shows the library and not the machine. Run it with at most one rank per
// core (./run demo uses 2). In three parts:
//  1. the machine: each rank's speed on the Mandelbrot body alone and with
//     every rank computing at once (two vCPUs may share one physical core);
//  2. Mandelbrot (Chronopoulos et al.'s test problem) with a computing master:
//     the sequential loop and several schemes, in interleaved rounds, medians
//     and spread; every image identical to the sequential one; a Gantt chart;
//  3. a DOACROSS loop (Ciorba's artificial nest) pipelined by S-TSS, its
//     result identical to the sequential loop, its Gantt chart.
// Comparing schemes on a heterogeneous cluster needs that cluster: ./run demo
// then simulates the documents' own (examples/demo_simulation.py).
#include "cli.hpp"
#include "doacross_kernels.hpp"
#include "mandelbrot.hpp"
#include "progress.hpp"

#include <loopsched/concepts.hpp>
#include <loopsched/mpi/parallel_for.hpp>
#include <loopsched/mpi/parallel_for_doacross.hpp>
#include <loopsched/options.hpp>
#include <loopsched/runtime/core/trace.hpp>
#include <loopsched/space/box.hpp>
#include <loopsched/spec.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/environment.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>

#include <malloc.h>

using namespace loopsched;

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

/// Median, smallest and largest of a sample.
struct spread {
    double median = 0, low = 0, high = 0;
    explicit spread(std::vector<double> v) {
        std::ranges::sort(v);
        low = v.front();
        high = v.back();
        median = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
    }
};

std::ostream& operator<<(std::ostream& out, spread const& s) {
    return out << std::fixed << std::setprecision(3) << s.median << " s (" << s.low << "-" << s.high << ")";
}

/// Seconds for this rank to compute the body over `part` of the problem.
double body_seconds(examples::mandelbrot const& problem, index_range const& part) {
    std::vector<std::uint8_t> out(static_cast<std::size_t>(part.size()) * problem.column_bytes());
    double const start = now();
    problem.body()(part, out);
    return now() - start;
}

} // namespace

int main(int argc, char** argv) {
    // Every block from a heap that keeps what is freed: the timings are then the
    // schedule's, not the kernel's first-touch page faults (docs/performance.md).
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    examples::command_line line(
            "demo",
            "What loopsched does on the real ranks of this machine: the machine's own speed with every rank "
            "computing, Mandelbrot (Chronopoulos et al.) under several schemes in interleaved rounds against the "
            "sequential loop, and a DOACROSS pipeline (Ciorba's artificial nest); every result checked against a "
            "sequential run. Use at most one rank per core.",
            "mpiexec -n 2 demo --size 1200x600 --rounds 5 --out build/demo");
    std::string size = "1200x600", out_dir = "build/demo", dsize = "3000x3000", dpolicy = "s-tss:h=auto";
    int max_iterations = 2000, rounds = 5;
    line.add_option("--size", size, "Mandelbrot image WIDTHxHEIGHT")->capture_default_str();
    line.add_option("--max-iterations", max_iterations, "escape-time iterations per pixel")->capture_default_str();
    line.add_option("--rounds", rounds, "interleaved rounds of every run (the figures are their medians)")
            ->capture_default_str();
    line.add_option("--out", out_dir, "directory for the image and the Gantt charts")->capture_default_str();
    line.add_option("--doacross-size", dsize, "the DOACROSS loop's ROWSxCOLUMNS")->capture_default_str();
    line.add_option("--doacross-policy", dpolicy, "the DOACROSS loop's policy (with S)")->capture_default_str();
    if (auto code = line.parse(argc, argv)) return *code;
    try {
        if (world.size() < 2) throw error("demo: run on at least 2 ranks, one per core, e.g. mpiexec -n 2");
        if (rounds < 1) throw invalid_parameter("--rounds", std::to_string(rounds), "must be at least 1");
        examples::mandelbrot problem;
        problem.width = std::stoll(size.substr(0, size.find('x')));
        problem.height = std::stoll(size.substr(size.find('x') + 1));
        problem.max_iterations = max_iterations;
        std::filesystem::path const out = out_dir;
        bool const root = world.rank() == 0;
        if (root) std::filesystem::create_directories(out);

        // 1. The machine: every rank times the same columns alone, then all at once.
        index_range const sample = make_range(std::min<index_t>(problem.width, 200));
        std::vector<double> alone;
        for (int r = 0; r < world.size(); ++r) {
            world.barrier();
            double const t = world.rank() == r ? body_seconds(problem, sample) : 0.0;
            alone.push_back(boost::mpi::all_reduce(world, t, std::plus<>()));
        }
        world.barrier();
        std::vector<double> together;
        boost::mpi::all_gather(world, body_seconds(problem, sample), together);
        if (root) {
            std::cout << "1. This machine, " << world.size() << " ranks: the same " << sample.size()
                      << " Mandelbrot columns on each rank alone, then on every rank at once\n";
            for (int r = 0; r < world.size(); ++r) {
                auto const k = static_cast<std::size_t>(r);
                std::cout << "   rank " << r << ": " << std::fixed << std::setprecision(3) << alone[k] << " s alone, "
                          << together[k] << " s with the others computing (" << std::setprecision(2)
                          << alone[k] / together[k] << " of its speed alone)\n";
            }
            double const share = alone[0] / *std::ranges::max_element(together);
            std::cout << "   so " << world.size() << " ranks can reach a speedup of about " << std::setprecision(2)
                      << share * world.size() << " over one rank here" << (share < 0.8 ? " (the ranks' CPUs share "
                                                                                          "a physical core)" : "")
                      << ".\n\n";
        }

        // 2. Mandelbrot, rounds in rotating order; the sequential loop runs on the root alone.
        std::vector<std::string> const schemes{"static", "gss", "fss", "dtss", "af"};
        std::vector<std::vector<double>> times(schemes.size() + 1);
        std::vector<loop_statistics> last(schemes.size());
        std::vector<std::uint8_t> reference(static_cast<std::size_t>(problem.width) * problem.column_bytes());
        if (root) problem.body()(make_range(problem.width), reference); // the image every run must give
        std::vector<std::uint8_t> scratch(reference.size());
        std::vector<bool> identical(schemes.size(), true);
        examples::progress shown("demo", static_cast<std::size_t>(rounds) * (schemes.size() + 1));
        for (int round = 0; round < rounds; ++round) {
            for (std::size_t j = 0; j <= schemes.size(); ++j) {
                std::size_t const i = (j + static_cast<std::size_t>(round)) % (schemes.size() + 1);
                world.barrier();
                if (i == schemes.size()) { // the sequential loop
                    if (root) shown.next("sequential, round " + std::to_string(round + 1));
                    if (root) {
                        double const start = now();
                        problem.body()(make_range(problem.width), scratch);
                        times[i].push_back(now() - start);
                    }
                    continue;
                }
                if (root) shown.next(schemes[i] + ", round " + std::to_string(round + 1));
                parallel_for_options o;
                o.trace = round == rounds - 1;
                auto result = parallel_for(world, make_range(problem.width), parse_policy(schemes[i]), problem.body(),
                                           gather<std::uint8_t>{problem.column_bytes()}, o);
                if (!root) continue;
                times[i].push_back(result.statistics.parallel_seconds);
                last[i] = result.statistics;
                identical[i] = identical[i] && result.value == reference;
            }
        }
        shown.clear();
        if (root) {
            spread const sequential(times.back());
            std::cout << "2. Mandelbrot " << problem.width << "x" << problem.height << ", " << problem.max_iterations
                      << " iterations max, one column per iteration, on " << world.size()
                      << " ranks (the root computes too); " << rounds
                      << (rounds == 1 ? " round" : " rounds in rotating order") << ", median (range)\n"
                      << "   sequential loop on one rank: " << sequential << '\n'
                      << "   scheme   parallel time               speedup  chunks  not computing  image\n";
            for (std::size_t i = 0; i < schemes.size(); ++i) {
                spread const t(times[i]);
                // The ranks' time outside the body in the last round: the library's
                // messages and bookkeeping, and the wait for the last chunk.
                double computing = 0;
                for (auto const& w : last[i].workers) computing += w.compute_seconds;
                double const idle = 1.0 - computing / (last[i].parallel_seconds * world.size());
                std::cout << "   " << std::left << std::setw(8) << schemes[i] << std::right << " " << t << "   "
                          << std::setprecision(2) << std::setw(6) << sequential.median / t.median << std::setw(8)
                          << last[i].chunks() << std::setw(13) << std::setprecision(1) << 100 * idle << "%  "
                          << (identical[i] ? "identical" : "DIFFERS") << '\n';
            }
            std::cout << "   'not computing': the ranks' time outside the body, the library's messages and the "
                         "wait for the last chunk together (docs/performance.md has the per-chunk cost against "
                         "raw MPI).\n   The schemes differ little here: two equal ranks and a spread-out cost "
                         "(columns reordered, S_f = "
                      << problem.sampling << ") are the easy case. Their differences on uneven and loaded "
                                             "machines follow, simulated.\n";
            auto const image = problem.png(reference);
            std::ofstream(out / "mandelbrot.png", std::ios::binary)
                    .write(reinterpret_cast<char const*>(image.data()), static_cast<std::streamsize>(image.size()));
            std::ofstream svg(out / "gantt-fss.svg");
            write_svg_gantt(svg, last[2], "Mandelbrot, FSS, " + std::to_string(world.size()) + " real ranks");
            std::cout << "   wrote " << (out / "mandelbrot.png").string() << " and " << (out / "gantt-fss.svg").string()
                      << " (open in a browser)\n\n";
        }
        bool const images_right = std::ranges::all_of(identical, [](bool b) { return b; });
        if (!boost::mpi::all_reduce(world, images_right, std::logical_and<>())) return 1;

        // 3. DOACROSS: each point waits for five earlier ones, up to 8 rows and columns back.
        box<2> const picture = box<2>::from_extents(
                {std::stoll(dsize.substr(0, dsize.find('x'))), std::stoll(dsize.substr(dsize.find('x') + 1))});
        std::vector<double> pipelined, plain;
        loop_statistics shown_run;
        index_t interval = 0;
        bool same = true;
        std::vector<char> expected;
        for (int round = 0; round < rounds; ++round) {
            world.barrier();
            if (root) {
                double const start = now();
                auto const windows = kernels::sequential<kernels::artificial>(picture);
                plain.push_back(now() - start);
                if (expected.empty()) expected = kernels::raw_bytes(windows);
            }
            world.barrier();
            doacross_options o;
            o.trace = round == rounds - 1;
            auto r = kernels::run<kernels::artificial>(world, picture, parse_policy(dpolicy), o);
            if (!root) continue;
            pipelined.push_back(r.statistics.parallel_seconds);
            same = same && kernels::raw_bytes(r.value) == expected;
            shown_run = r.statistics;
            interval = r.interval;
        }
        if (root) {
            spread const seq(plain), par(pipelined);
            std::cout << "3. Ciorba's artificial DOACROSS loop " << dsize
                      << " (dependences (1,8) (8,1) (2,5) (3,3) (6,2), two fields), " << dpolicy << ": h = "
                      << interval << ", " << rounds << (rounds == 1 ? " round" : " rounds") << ", median (range)\n"
                      << "   sequential loop: " << seq << "\n   pipelined on " << world.size() << " ranks: " << par
                      << ", speedup " << std::setprecision(2) << seq.median / par.median << ", " << shown_run.chunks()
                      << " chunks; result " << (same ? "identical to" : "DIFFERENT FROM") << " the sequential loop\n"
                      << "   The parallel time includes the pipeline's fill and drain and gathering both fields ("
                      << expected.size() / 1000000 << " MB) on the root; docs/performance.md compares the pipeline "
                         "with a hand-written one.\n";
            std::ofstream svg(out / "gantt-doacross.svg");
            write_svg_gantt(svg, shown_run, "Ciorba's artificial loop, " + dpolicy + ": the pipeline (one bar per subchunk)");
            std::cout << "   wrote " << (out / "gantt-doacross.svg").string() << '\n';
        }
        if (!boost::mpi::all_reduce(world, same, std::logical_and<>())) return 1;
    } catch (std::exception const& e) {
        std::cerr << "demo (rank " << world.rank() << "): " << e.what() << '\n';
        return 1;
    }
}
