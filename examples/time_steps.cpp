// time_steps: a time-stepping program on MPI ranks. Each step renders a frame
// of a window panning across the Mandelbrot set (so the columns' costs move
// from step to step); every fixed candidate of `automatic` and `auto` itself
// render the same frames, interleaved step by step so that the machine's noise
// falls on all of them alike. Prints each one's total time against the best
// fixed scheme's, and checks that every run computed the same frames.
#include "cli.hpp"
#include "mandelbrot.hpp"

#include <loopsched/detail/fingerprint.hpp>
#include <loopsched/error.hpp>
#include <loopsched/mpi/parallel_for.hpp>
#include <loopsched/options.hpp>
#include <loopsched/policy/automatic.hpp>
#include <loopsched/spec.hpp>

#include <boost/mpi/environment.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <numbers>
#include <span>
#include <string>
#include <vector>

using namespace loopsched;

namespace {

/// Frame `step` of `steps`: the window pans right and back, and zooms in and out.
examples::mandelbrot frame(examples::mandelbrot m, int step, int steps) {
    double const phase = 2.0 * std::numbers::pi * static_cast<double>(step) / static_cast<double>(std::max(steps, 1));
    double const centre = -0.75 + 0.9 * std::sin(phase), width = 2.2 + 1.0 * std::cos(2.0 * phase);
    m.left = centre - width / 2.0;
    m.right = centre + width / 2.0;
    return m;
}

} // namespace

int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    examples::command_line line(
            "time_steps",
            "A time-stepping program: each step renders a frame of a window panning across the Mandelbrot set. "
            "Every fixed candidate of auto, and auto itself, render the same frames, step by step in turn; prints "
            "each one's total time against the best fixed scheme's.",
            "mpiexec -n 2 time_steps --steps 200 --size 400x200 --method exhaustive");
    int steps = 200;
    std::string size = "400x200", method = "exhaustive";
    examples::mandelbrot problem;
    problem.max_iterations = 400;
    problem.sampling = 1; // the natural column order: a frame's cost lies where the set is
    bool dedicated = false;
    line.add_option("--steps", steps, "time steps (frames)")->capture_default_str()->check(examples::in_range(1, 1000000));
    line.add_option("--size", size, "frame size WIDTHxHEIGHT")->capture_default_str();
    line.add_option("--max-iterations", problem.max_iterations, "escape-time iterations per pixel")
            ->capture_default_str();
    line.add_option("--method", method, "auto's method: exhaustive, bandit or expert")->capture_default_str();
    line.add_flag("--dedicated-master", dedicated, "the root schedules only, computes nothing");
    if (auto code = line.parse(argc, argv)) return *code;
    try {
        auto const cross = size.find('x');
        if (cross == std::string::npos) throw invalid_parameter("--size", size, "expects WIDTHxHEIGHT, e.g. 400x200");
        problem.width = std::stoll(size.substr(0, cross));
        problem.height = std::stoll(size.substr(cross + 1));
        detail::require(problem.width >= 1 && problem.height >= 1, "--size", size, "needs positive sides");
        auto const automatic_policy = parse_policy("auto:method=" + method + ",key=time_steps");
        std::vector<any_policy> runs;
        std::vector<std::string> names;
        for (auto const& c : automatic::default_candidates()) {
            runs.push_back(c);
            names.push_back(c.spec());
        }
        runs.push_back(automatic_policy);
        names.push_back("auto:method=" + method);
        parallel_for_options o;
        o.master_computes = !dedicated;
        std::vector<double> seconds(runs.size(), 0.0);
        std::vector<std::uint64_t> frames(runs.size(), 0);
        for (int step = 0; step < steps; ++step) {
            auto const m = frame(problem, step, steps);
            auto const body = m.body();
            for (std::size_t r = 0; r < runs.size(); ++r) {
                auto result = parallel_for(world, make_range(m.width), runs[r], body,
                                           gather<std::uint8_t>{m.column_bytes()}, o);
                seconds[r] += result.statistics.parallel_seconds;
                if (world.rank() == o.root) // every frame so far, as one fingerprint
                    frames[r] = detail::fingerprint().add(frames[r]).add_bytes(std::as_bytes(std::span(result.value))).value();
            }
        }
        if (world.rank() != o.root) return 0;
        std::size_t const fixed = runs.size() - 1;
        double const best = *std::min_element(seconds.begin(), seconds.begin() + static_cast<long>(fixed));
        std::cout << "scheme total_seconds x_best_fixed (" << steps << " steps of " << size << " on "
                  << world.size() << " ranks)\n";
        for (std::size_t r = 0; r < runs.size(); ++r)
            std::cout << names[r] << ' ' << seconds[r] << ' ' << seconds[r] / best << '\n';
        std::cout << automatic_policy.target<automatic>()->history().explain() << '\n';
        bool const identical = std::all_of(frames.begin(), frames.end(), [&](auto f) { return f == frames[0]; });
        std::cout << (identical ? "every scheme's frames identical\n" : "FRAMES DIFFER between schemes\n");
        return identical ? 0 : 1;
    } catch (std::exception const& e) {
        std::cerr << "time_steps: " << e.what() << '\n';
        return 1;
    }
}
