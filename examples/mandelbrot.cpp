// mandelbrot: seed 001's test problem scheduled by any policy on MPI ranks.
// Writes the image as PNG (identical for every rank count and policy) and
// prints the per-worker table; optionally a chunk trace and a Gantt chart.
//   mpiexec -n 3 mandelbrot --policy dtss --size 2000x1000 --output m.png --powers 1,1,0.5 --emulate
#include "cli.hpp"
#include "mandelbrot.hpp"

#include <boost/mpi/environment.hpp>

#include <fstream>
#include <iostream>

using namespace loopsched;

int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    try {
        examples::options args(argc, argv,
                               {"policy", "size", "max-iterations", "sampling", "output", "powers", "run-queues",
                                "trace", "gantt", "request-ahead", "root"},
                               {"dedicated-master", "emulate", "deterministic", "sequential", "calibrate"});
        examples::mandelbrot problem;
        std::string const size = args.text("size", "1000x500");
        auto const cross = size.find('x');
        if (cross == std::string::npos) throw invalid_parameter("--size", size, "expects WIDTHxHEIGHT, e.g. 1000x500");
        problem.width = std::stoll(size.substr(0, cross));
        problem.height = std::stoll(size.substr(cross + 1));
        detail::require(problem.width >= 1 && problem.height >= 1, "--size", size, "needs positive sides");
        problem.max_iterations = static_cast<int>(args.integer("max-iterations", 1000));
        detail::require(problem.max_iterations >= 1, "--max-iterations", problem.max_iterations, "must be >= 1");
        problem.sampling = args.integer("sampling", 4);
        detail::require(problem.sampling >= 1, "--sampling", problem.sampling, "must be >= 1");

        parallel_for_options o;
        o.root = static_cast<int>(args.integer("root", 0));
        o.master_computes = !args.flag("dedicated-master");
        o.powers = args.reals("powers");
        if (args.flag("calibrate")) o.powers = measure_powers(world, 0);
        o.run_queues = args.reals("run-queues");
        o.emulate_powers = args.flag("emulate");
        o.deterministic = args.flag("deterministic");
        o.request_ahead = args.real("request-ahead", 0.0);
        o.trace = args.has("trace") || args.has("gantt");
        std::string const spec = args.text("policy", "dtss");

        std::vector<std::uint8_t> image;
        if (args.flag("sequential")) {
            if (world.rank() == o.root) image = problem.sequential_png();
        } else {
            auto out = parallel_for(world, make_range(problem.width), parse_policy(spec), problem.body(),
                                    gather<std::uint8_t>{problem.column_bytes()}, o);
            if (world.rank() == o.root) {
                std::cout << "mandelbrot " << problem.width << "x" << problem.height << ", " << spec << ", "
                          << world.size() << " rank(s)\n"
                          << out.statistics;
                image = problem.png(out.values);
                if (args.has("trace")) {
                    std::ofstream json(args.text("trace"));
                    write_chrome_trace(json, out.statistics, spec);
                }
                if (args.has("gantt")) {
                    std::ofstream svg(args.text("gantt"));
                    write_svg_gantt(svg, out.statistics, "mandelbrot, " + spec);
                }
            }
        }
        if (world.rank() == o.root && args.has("output")) {
            std::ofstream png(args.text("output"), std::ios::binary);
            png.write(reinterpret_cast<char const*>(image.data()), static_cast<std::streamsize>(image.size()));
            if (!png) throw error("cannot write " + args.text("output"));
        }
    } catch (std::exception const& e) {
        std::cerr << "mandelbrot (rank " << world.rank() << "): " << e.what() << '\n';
        return 1;
    }
}
