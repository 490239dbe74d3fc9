// divide: divide_and_conquer on Kazouris's and Karamcheti and Wah's problems, each
// checked against the sequential recursion:
//   mandelbrot  the document's quadtree: [-2,2]x[-2,2], 1000x1000 pixels, each
//               division halves the larger side until it is at most --leaf
//               (the document's 100; halving 1000 never gives 100, so the
//               leaves are 62 or 63 pixels a side, 256 of them); the image is also checked
//               byte for byte against the loop version (parallel_for by columns)
//   fib         Fibonacci: the work in the internal nodes
//   quicksort   Karamcheti and Wah's program: three uneven parts per division
//   nqueens     all solutions: degree up to N
//   mpiexec -n 4 divide --problem mandelbrot --placement kazouris
#include "cli.hpp"
#include "dnc_problems.hpp"
#include "mandelbrot.hpp"

#include <loopsched/concepts.hpp>
#include <loopsched/mapping/dlpt.hpp>
#include <loopsched/mpi/divide_and_conquer.hpp>
#include <loopsched/mpi/parallel_for.hpp>
#include <loopsched/options.hpp>
#include <loopsched/policies.hpp>

#include <boost/mpi/environment.hpp>
#include <boost/serialization/vector.hpp>

#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

using namespace loopsched;
using namespace loopsched::examples;

namespace {

/// A rectangle of the image: columns [x, x + w), rows [y, y + h).
struct region {
    std::int32_t x = 0, y = 0, w = 0, h = 0;
};

/// Kazouris's Mandelbrot quadtree: a region's result is its pixels, row by row (3 bytes each).
struct mandelbrot_tree {
    mandelbrot image;
    std::int32_t leaf = 100;

    [[nodiscard]] bool is_leaf(region const& r) const { return std::max(r.w, r.h) <= leaf; }
    [[nodiscard]] std::vector<std::uint8_t> solve(region const& r) const {
        std::vector<std::uint8_t> px(static_cast<std::size_t>(r.w) * static_cast<std::size_t>(r.h) * 3);
        for (std::int32_t j = 0; j < r.h; ++j)
            for (std::int32_t i = 0; i < r.w; ++i)
                image.pixel(r.x + i, r.y + j,
                            &px[(static_cast<std::size_t>(j) * static_cast<std::size_t>(r.w) +
                                 static_cast<std::size_t>(i)) *
                                3]);
        return px;
    }
    [[nodiscard]] std::vector<region> divide(region const& r) const {
        if (r.w > r.h) return {{r.x, r.y, r.w / 2, r.h}, {r.x + r.w / 2, r.y, r.w - r.w / 2, r.h}};
        // A square is halved into top and bottom: the set is symmetric about the
        // real axis, so the first halves cost the same (APRIL's 1.78 on 2 processors).
        return {{r.x, r.y, r.w, r.h / 2}, {r.x, r.y + r.h / 2, r.w, r.h - r.h / 2}};
    }
    [[nodiscard]] std::vector<std::uint8_t> combine(region const& r, std::span<std::vector<std::uint8_t>> parts) const {
        if (r.w <= r.h) { // top and bottom: rows follow each other
            auto out = std::move(parts[0]);
            out.insert(out.end(), parts[1].begin(), parts[1].end());
            return out;
        }
        std::int32_t const left = r.w / 2, right = r.w - left; // left and right: row by row
        std::vector<std::uint8_t> out;
        out.reserve(static_cast<std::size_t>(r.w) * static_cast<std::size_t>(r.h) * 3);
        for (std::int32_t j = 0; j < r.h; ++j) {
            auto const a = parts[0].begin() + static_cast<std::ptrdiff_t>(j) * left * 3;
            auto const b = parts[1].begin() + static_cast<std::ptrdiff_t>(j) * right * 3;
            out.insert(out.end(), a, a + left * 3);
            out.insert(out.end(), b, b + right * 3);
        }
        return out;
    }
};

/// Runs the problem; on the root prints the per-worker rows and checks the
/// result against the sequential recursion. Returns the exit code and the result.
template <class Problem, class Ops>
std::pair<int, dnc_result_t<Ops, Problem>> run(boost::mpi::communicator const& world, std::string const& name,
                                               Problem const& problem, Ops ops, dnc_options const& options,
                                               bool check, bool sequential_only) {
    auto timed_sequential = [&] {
        auto const seq_start = std::chrono::steady_clock::now();
        auto expected = sequential_divide_and_conquer(problem, ops);
        return std::pair(std::move(expected),
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - seq_start).count());
    };
    if (sequential_only) { // the recursion alone, in a fresh process: the baseline a parallel run must beat
        auto [expected, sequential] = timed_sequential();
        if (world.rank() == options.root) std::cout << name << ": sequential " << sequential << " s\n";
        return {0, std::move(expected)};
    }
    world.barrier();
    auto const start = std::chrono::steady_clock::now();
    auto out = divide_and_conquer(world, problem, ops, options);
    double const parallel = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (world.rank() != options.root) return {0, {}};
    std::cout << name << " on " << world.size() << " rank(s), placement " << options.placement << ": " << parallel
              << " s\n";
    std::cout << "  rank     nodes   tasks inlined   given received steals  idle(s)\n";
    for (auto const& w : out.workers)
        std::cout << "  " << std::setw(4) << w.rank << std::setw(10) << w.nodes << std::setw(8) << w.tasks
                  << std::setw(8) << w.inlined << std::setw(8) << w.given << std::setw(9) << w.received << std::setw(7)
                  << w.steals << std::setw(9) << std::fixed << std::setprecision(4) << w.idle_seconds
                  << std::defaultfloat << '\n';
    if (!check) return {0, std::move(out.value)};
    auto const [expected, sequential] = timed_sequential();
    bool const same = out.value == expected;
    std::cout << "  sequential " << sequential << " s, speedup " << sequential / parallel << "; result "
              << (same ? "identical to" : "DIFFERS from") << " the sequential recursion\n";
    return {same ? 0 : 1, std::move(out.value)};
}

} // namespace

int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    command_line line("divide",
                      "Divide-and-conquer problems scheduled by divide_and_conquer, each checked against the "
                      "sequential recursion (and the Mandelbrot image against the loop version).",
                      "mpiexec -n 4 divide --problem mandelbrot --placement kazouris");
    std::string problem = "mandelbrot", placement = "kazouris", output;
    int n = 0, leaf = 0;
    bool no_check = false, dedicated = false, sequential_only = false;
    std::vector<double> powers;
    line.add_option("--problem", problem, "mandelbrot, fib, quicksort or nqueens")->capture_default_str();
    line.add_option("--placement", placement,
                    "kazouris, april, steal, steal-half, dlpt, random, round-robin, objects or messages")->capture_default_str();
    line.add_option("--size", n,
                    "mandelbrot: pixels per side (1000); fib: n (32); quicksort: elements (2000000); nqueens: N (12)");
    line.add_option("--leaf", leaf,
                    "mandelbrot: largest leaf side (100); fib: cutoff (20); quicksort: leaf size (4096); nqueens: "
                    "rows left to a leaf (5)");
    line.add_option("--output", output, "mandelbrot: write the image as a PNG");
    line.add_option("--powers", powers, "each rank's relative speed, emulated by sleeping (e.g. 4,1,1,1)")
            ->delimiter(',');
    line.add_flag("--dedicated-master", dedicated, "the root only manages (no worker of its own)");
    line.add_flag("--no-check", no_check, "skip the sequential run");
    line.add_flag("--sequential", sequential_only, "only the sequential recursion, timed (no scheduling)");
    if (auto code = line.parse(argc, argv)) return *code;
    try {
        dnc_options options;
        options.placement = placement;
        options.master_computes = !dedicated;
        if (!powers.empty()) {
            options.powers = powers;
            options.emulate_powers = true;
        }
        auto positive = [](char const* flag, int v) { detail::require(v >= 1, flag, v, "must be >= 1"); };
        if (problem == "mandelbrot") {
            mandelbrot_tree ops;
            int const side = n > 0 ? n : 1000;
            positive("--size", side);
            ops.image = mandelbrot{side, side, 255, 1, -2.0, 2.0, -2.0, 2.0};
            ops.leaf = leaf > 0 ? leaf : 100;
            auto [code, image] = run(world, "mandelbrot " + std::to_string(side) + "x" + std::to_string(side),
                                     region{0, 0, side, side}, ops, options, !no_check, sequential_only);
            if (sequential_only) return code;
            // The loop version: the same pixels by columns.
            auto const columns = parallel_for(
                    world, make_range(side), fss(),
                    [&](index_range const& part, std::span<std::uint8_t> px) {
                        std::size_t at = 0;
                        for (index_t x : part.indices()) {
                            ops.image.column(x, px.subspan(at, ops.image.column_bytes()));
                            at += ops.image.column_bytes();
                        }
                    },
                    gather<std::uint8_t>{ops.image.column_bytes()});
            if (world.rank() == 0) {
                std::size_t differing = 0;
                for (index_t x = 0; x < side; ++x)
                    for (index_t y = 0; y < side; ++y)
                        for (int c = 0; c < 3; ++c)
                            differing +=
                                    image[(static_cast<std::size_t>(y * side + x)) * 3 + static_cast<std::size_t>(c)] !=
                                    columns.value[static_cast<std::size_t>(x) * ops.image.column_bytes() +
                                                   static_cast<std::size_t>(y) * 3 + static_cast<std::size_t>(c)];
                std::cout << "  bytes differing from the loop version's image: " << differing << '\n';
                if (differing != 0) code = 1;
                if (!output.empty()) {
                    auto const png =
                            encode_png(image, static_cast<std::uint32_t>(side), static_cast<std::uint32_t>(side));
                    std::ofstream(output, std::ios::binary)
                            .write(reinterpret_cast<char const*>(png.data()), static_cast<std::streamsize>(png.size()));
                }
            }
            return code;
        }
        if (problem == "fib") {
            int const size = n > 0 ? n : 32;
            detail::require(size <= 90, "--size", size, "must be <= 90 for fib (64-bit results)");
            return run(world, "fib(" + std::to_string(size) + ")", size, fibonacci{leaf > 0 ? leaf : 20, 0}, options,
                       !no_check, sequential_only)
                    .first;
        }
        if (problem == "quicksort") {
            int const size = n > 0 ? n : 2000000;
            positive("--size", size);
            std::vector<int> data(static_cast<std::size_t>(size));
            std::mt19937 random(2002);
            for (auto& x : data) x = static_cast<int>(random() % 1000000);
            return run(world, "quicksort of " + std::to_string(size), data,
                       quicksort{static_cast<std::size_t>(leaf > 0 ? leaf : 4096)}, options, !no_check, sequential_only)
                    .first;
        }
        if (problem == "nqueens") {
            int const size = n > 0 ? n : 12;
            detail::require(size >= 1 && size <= 20, "--size", size, "must be in [1, 20] for nqueens");
            return run(world, std::to_string(size) + "-queens", queens_board{size}, nqueens{leaf > 0 ? leaf : 5},
                       options, !no_check, sequential_only)
                    .first;
        }
        detail::require(false, "--problem", problem, "must be mandelbrot, fib, quicksort or nqueens");
    } catch (std::exception const& e) {
        std::cerr << "divide (rank " << world.rank() << "): " << e.what() << '\n';
        return 1;
    }
}
