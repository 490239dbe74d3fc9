// demo: Mandelbrot (Chronopoulos et al.'s test problem) on the ranks of MPI_COMM_WORLD,
// one master and the rest workers, for simple schemes and their load-aware
// twins, on the real machine and on an emulated heterogeneous cluster where the
// last worker runs at 40% speed. Prints a comparison table, checks every image
// against a sequential run, and writes the image, a Gantt chart and a trace.
// Then a DOACROSS loop (Floyd-Steinberg, Ciorba) on the same emulated
// cluster, S-TSS against SW-TSS, with Gantt charts where the pipeline shows.
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

#include <boost/mpi/environment.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>

using namespace loopsched;

namespace {

struct row {
    std::string spec, cluster;
    loop_statistics stats;
    bool identical = false;
};

void print(std::vector<row> const& rows) {
    std::cout << std::left << std::setw(10) << "scheme" << std::setw(15) << "cluster" << std::right << std::setw(9)
              << "T_p(s)" << std::setw(8) << "chunks"
              << "   per worker: T_comp / T_wait (s), iterations\n";
    for (auto const& r : rows) {
        std::cout << std::left << std::setw(10) << r.spec << std::setw(15) << r.cluster << std::right << std::fixed
                  << std::setprecision(3) << std::setw(9) << r.stats.parallel_seconds << std::setw(8)
                  << r.stats.chunks() << "  ";
        for (auto const& w : r.stats.workers)
            std::cout << "  r" << w.rank << ": " << w.compute_seconds << "/" << w.wait_seconds << ", " << w.iterations;
        std::cout << (r.identical ? "" : "   IMAGE DIFFERS") << '\n';
    }
}

} // namespace

int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    examples::command_line line(
            "demo",
            "Mandelbrot (Chronopoulos et al.) with simple schemes and their load-aware twins, on this machine and on an "
            "emulated cluster whose last worker runs at 40% speed; then a DOACROSS loop (Floyd-Steinberg, "
            "Ciorba), S-TSS against SW-TSS. Checks every result against a sequential run.",
            "mpiexec -n 3 demo --size 1200x600 --out build/demo");
    std::string size = "1200x600", out_dir = "build/demo", dsize = "2500x2500";
    int max_iterations = 2000;
    line.add_option("--size", size, "Mandelbrot image WIDTHxHEIGHT")->capture_default_str();
    line.add_option("--max-iterations", max_iterations, "escape-time iterations per pixel")->capture_default_str();
    line.add_option("--out", out_dir, "directory for the images, Gantt charts and traces")->capture_default_str();
    line.add_option("--doacross-size", dsize, "Floyd-Steinberg image ROWSxCOLUMNS")->capture_default_str();
    if (auto code = line.parse(argc, argv)) return *code;
    try {
        if (world.size() < 2) throw error("demo: run on at least 2 ranks (1 master + workers), e.g. mpiexec -n 3");
        examples::mandelbrot problem;
        problem.width = std::stoll(size.substr(0, size.find('x')));
        problem.height = std::stoll(size.substr(size.find('x') + 1));
        problem.max_iterations = max_iterations;
        std::filesystem::path const out = out_dir;

        if (world.rank() == 0) {
            std::filesystem::create_directories(out);
            std::cout << "Mandelbrot " << problem.width << "x" << problem.height << ", " << problem.max_iterations
                      << " iterations max, columns reordered with S_f = " << problem.sampling << "; " << world.size()
                      << " ranks: a dedicated master (rank 0) and " << world.size() - 1 << " workers\n\n";
        }

        std::vector<double> slow(static_cast<std::size_t>(world.size()), 1.0);
        slow.back() = 0.4; // the last worker runs at 40% speed: it sleeps 1.5x its compute time
        struct experiment {
            std::string spec;
            bool heterogeneous;
        };
        std::vector<experiment> plan;
        for (std::string s : {"static", "gss", "tss", "fss", "fiss", "tfss", "af"}) plan.push_back({s, false});
        for (std::string s : {"tss", "dtss", "fss", "dfss", "fiss", "dfiss", "tfss", "dtfss", "gss", "w-gss", "awf-b"})
            plan.push_back({s, true});

        std::vector<row> rows;
        std::vector<std::vector<std::uint8_t>> columns;
        examples::progress shown("demo", plan.size()); // on rank 0: the others are quiet
        for (auto const& e : plan) {
            if (world.rank() == 0) shown.next(e.spec + (e.heterogeneous ? ", V = 1, 0.4" : ", dedicated"));
            parallel_for_options o;
            o.master_computes = false;
            o.trace = true;
            o.read_os_load = false; // the ranks share 2 cores: the emulated powers are the load under study
            if (e.heterogeneous) {
                o.powers = slow;
                o.emulate_powers = true;
            }
            auto result = parallel_for(world, make_range(problem.width), parse_policy(e.spec), problem.body(),
                                       gather<std::uint8_t>{problem.column_bytes()}, o);
            if (world.rank() != 0) continue;
            // Images are made after all runs: meanwhile the workers would wait for the master.
            rows.push_back({e.spec, e.heterogeneous ? "V = 1, 0.4" : "dedicated", result.statistics});
            columns.push_back(std::move(result.value));
        }
        if (world.rank() == 0) {
            for (std::size_t i = 0; i < rows.size(); ++i) {
                auto const& r = rows[i];
                if (r.cluster == "dedicated") continue;
                if (r.spec == "dtss") {
                    auto const image = problem.png(columns[i]);
                    std::ofstream(out / "mandelbrot.png", std::ios::binary)
                            .write(reinterpret_cast<char const*>(image.data()),
                                   static_cast<std::streamsize>(image.size()));
                    std::ofstream svg(out / "gantt-dtss.svg");
                    write_svg_gantt(svg, r.stats, "Mandelbrot, DTSS, workers at V = 1 and 0.4");
                    std::ofstream json(out / "trace-dtss.json");
                    write_chrome_trace(json, r.stats, "dtss");
                }
                if (r.spec == "tss") {
                    std::ofstream svg(out / "gantt-tss.svg");
                    write_svg_gantt(svg, r.stats, "Mandelbrot, TSS, workers at V = 1 and 0.4");
                }
            }
        }
        shown.clear();
        if (world.rank() == 0) {
            auto const reference = problem.sequential_png(); // after the runs: workers must not wait for it
            for (std::size_t i = 0; i < rows.size(); ++i) rows[i].identical = problem.png(columns[i]) == reference;
            print(rows);
            bool const all = std::ranges::all_of(rows, &row::identical);
            std::cout << "\nevery image identical to the sequential run: " << (all ? "yes" : "NO") << '\n'
                      << "wrote " << (out / "mandelbrot.png").string() << ", " << (out / "gantt-dtss.svg").string()
                      << " and " << (out / "gantt-tss.svg").string() << " (open in a browser), "
                      << (out / "trace-dtss.json").string() << " (open in https://ui.perfetto.dev)\n";
            if (!all) return 1;
        }

        // DOACROSS: error diffusion, each pixel waiting for its neighbours above and to the left.
        box<2> const image = box<2>::from_extents(
                {std::stoll(dsize.substr(0, dsize.find('x'))), std::stoll(dsize.substr(dsize.find('x') + 1))});
        if (world.rank() == 0)
            std::cout << "\nFloyd-Steinberg " << dsize
                      << " (DOACROSS: dependences (0,1) (1,-1) (1,0) (1,1)), same cluster V = 1, 0.4:\n";
        // The sequential reference and the printing come after both loops, so that
        // no worker waits in a loop for rank 0 (its wait would count in the table).
        struct doacross_run {
            std::string spec;
            loop_statistics statistics;
            index_t interval;
            std::vector<char> bytes;
        };
        std::vector<doacross_run> runs;
        for (std::string spec : {"s-tss", "sw-tss"}) {
            doacross_options o;
            o.master_computes = false;
            o.trace = true;
            o.read_os_load = false;
            o.powers = slow;
            o.emulate_powers = true;
            auto r = kernels::run<kernels::floyd_steinberg>(world, image, parse_policy(spec), o);
            if (world.rank() == 0) runs.push_back({spec, r.statistics, r.interval, kernels::raw_bytes(r.value)});
        }
        bool all_same = true;
        if (world.rank() == 0) {
            auto const reference = kernels::raw_bytes(kernels::sequential<kernels::floyd_steinberg>(image));
            for (auto const& r : runs) {
                bool const same = r.bytes == reference;
                all_same = all_same && same;
                std::cout << std::left << std::setw(10) << r.spec << std::right << "T_p = " << std::fixed
                          << std::setprecision(3) << r.statistics.parallel_seconds << " s, h = " << r.interval << ", "
                          << r.statistics.chunks() << " chunks";
                for (auto const& w : r.statistics.workers)
                    std::cout << "  r" << w.rank << ": " << w.compute_seconds << "/" << w.wait_seconds << ", "
                              << w.iterations;
                std::cout << (same ? "" : "   RESULT DIFFERS") << '\n';
                std::ofstream svg(out / ("gantt-doacross-" + r.spec + ".svg"));
                write_svg_gantt(svg, r.statistics,
                                "Floyd-Steinberg, " + r.spec + ", workers at V = 1 and 0.4 (one bar per subchunk)");
            }
        }
        if (world.rank() == 0) {
            std::cout << "DOACROSS results identical to the sequential loop: " << (all_same ? "yes" : "NO") << '\n'
                      << "wrote " << (out / "gantt-doacross-s-tss.svg").string() << " and "
                      << (out / "gantt-doacross-sw-tss.svg").string() << '\n';
            if (!all_same) return 1;
        }
    } catch (std::exception const& e) {
        std::cerr << "demo (rank " << world.rank() << "): " << e.what() << '\n';
        return 1;
    }
}
