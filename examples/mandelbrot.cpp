// mandelbrot: Chronopoulos et al.'s test problem scheduled by any policy on MPI ranks.
// Writes the image as PNG (identical for every rank count and policy) and
// prints the per-worker table; optionally a chunk trace and a Gantt chart.
#include "mandelbrot.hpp"
#include "cli.hpp"

#include <loopsched/concepts.hpp>
#include <loopsched/error.hpp>
#include <loopsched/mpi/calibration.hpp>
#include <loopsched/mpi/parallel_for.hpp>
#include <loopsched/options.hpp>
#include <loopsched/runtime/core/trace.hpp>
#include <loopsched/spec.hpp>

#include <boost/mpi/environment.hpp>

#include <fstream>
#include <iostream>

using namespace loopsched;

int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    examples::command_line line(
            "mandelbrot",
            "Chronopoulos et al.'s Mandelbrot test problem, its columns scheduled by any policy over the MPI ranks; "
            "writes the image as PNG (identical for every rank count and policy).",
            "mpiexec -n 3 mandelbrot --policy dtss --size 2000x1000 --output m.png --powers 1,1,0.5 --emulate");
    std::string size = "1000x500", spec = "dtss", output, trace, gantt;
    examples::mandelbrot problem;
    problem.max_iterations = 1000;
    problem.sampling = 4;
    parallel_for_options o;
    bool dedicated = false, calibrate = false, sequential = false;
    line.add_option("--policy", spec, "scheduling policy, as a spec string")->capture_default_str();
    line.add_option("--size", size, "image size WIDTHxHEIGHT")->capture_default_str();
    line.add_option("--max-iterations", problem.max_iterations, "escape-time iterations per pixel")
            ->capture_default_str();
    line.add_option("--sampling", problem.sampling, "column reordering S_f (Chronopoulos et al.)")->capture_default_str();
    line.add_option("--output", output, "write the image to this PNG file");
    line.add_option("--powers", o.powers, "each rank's virtual power V_k, comma-separated")->delimiter(',');
    line.add_option("--run-queues", o.run_queues, "each rank's run-queue length Q_k, comma-separated")->delimiter(',');
    line.add_option("--request-ahead", o.request_ahead, "ask for the next chunk this fraction before the end");
    line.add_option("--root", o.root, "the rank that holds the image")->capture_default_str();
    line.add_option("--trace", trace, "write the chunks as a Chrome trace (JSON)");
    line.add_option("--gantt", gantt, "write the chunks as an SVG Gantt chart");
    line.add_flag("--dedicated-master", dedicated, "the root schedules only, computes nothing");
    line.add_flag("--emulate", o.emulate_powers, "slow each rank down to its --powers by sleeping");
    line.add_flag("--deterministic", o.deterministic, "the same assignment of chunks on every run");
    line.add_flag("--sequential", sequential, "no scheduling: the root computes the image alone");
    line.add_flag("--calibrate", calibrate, "measure the ranks' powers first");
    if (auto code = line.parse(argc, argv)) return *code;
    try {
        auto const cross = size.find('x');
        if (cross == std::string::npos) throw invalid_parameter("--size", size, "expects WIDTHxHEIGHT, e.g. 1000x500");
        problem.width = std::stoll(size.substr(0, cross));
        problem.height = std::stoll(size.substr(cross + 1));
        detail::require(problem.width >= 1 && problem.height >= 1, "--size", size, "needs positive sides");
        detail::require(problem.max_iterations >= 1, "--max-iterations", problem.max_iterations, "must be >= 1");
        detail::require(problem.sampling >= 1, "--sampling", problem.sampling, "must be >= 1");
        o.master_computes = !dedicated;
        if (calibrate) o.powers = measure_powers(world, 0);
        o.trace = !trace.empty() || !gantt.empty();

        std::vector<std::uint8_t> image;
        if (sequential) {
            if (world.rank() == o.root) image = problem.sequential_png();
        } else {
            auto out = parallel_for(world, make_range(problem.width), parse_policy(spec), problem.body(),
                                    gather<std::uint8_t>{problem.column_bytes()}, o);
            if (world.rank() == o.root) {
                std::cout << "mandelbrot " << problem.width << "x" << problem.height << ", " << spec << ", "
                          << world.size() << " rank(s)\n"
                          << out.statistics;
                image = problem.png(out.value);
                if (!trace.empty()) {
                    std::ofstream json(trace);
                    write_chrome_trace(json, out.statistics, spec);
                }
                if (!gantt.empty()) {
                    std::ofstream svg(gantt);
                    write_svg_gantt(svg, out.statistics, "mandelbrot, " + spec);
                }
            }
        }
        if (world.rank() == o.root && !output.empty()) {
            std::ofstream png(output, std::ios::binary);
            png.write(reinterpret_cast<char const*>(image.data()), static_cast<std::streamsize>(image.size()));
            if (!png) throw error("cannot write " + output);
        }
    } catch (std::exception const& e) {
        std::cerr << "mandelbrot (rank " << world.rank() << "): " << e.what() << '\n';
        return 1;
    }
}
