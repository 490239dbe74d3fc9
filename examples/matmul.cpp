// matmul: Kazouris's master-worker experiment as a task farm. C = A x B in
// doubles with the naive triple loop (as the document's baseline); B goes to
// every rank first and is not timed; A is cut into n tasks of rows, each task
// carrying its rows and returning its block of C. Checked against a sequential
// product, bit for bit.
//   mpiexec -n 4 matmul --rows 900 --inner 600 --cols 600 --tasks 300 --scheme kazouris
#include "cli.hpp"

#include <loopsched/mpi/task_farm.hpp>
#include <loopsched/serialization.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/environment.hpp>
#include <boost/serialization/vector.hpp>

#include <chrono>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

using namespace loopsched;

namespace {

/// Rows [first, first + count) of A: one task.
struct row_block {
    std::int64_t first = 0, count = 0;
    std::vector<double> rows; // count x inner, row-major
    template <class Archive>
    void serialize(Archive& a, unsigned) {
        a& first& count& rows;
    }
};

/// The naive product of `count` rows of A (row-major, `inner` wide) with B (inner x cols).
std::vector<double> multiply(std::vector<double> const& a_rows, std::int64_t count, std::vector<double> const& b,
                             std::int64_t inner, std::int64_t cols) {
    std::vector<double> c(static_cast<std::size_t>(count * cols), 0.0);
    for (std::int64_t i = 0; i < count; ++i)
        for (std::int64_t j = 0; j < cols; ++j) {
            double sum = 0.0;
            for (std::int64_t k = 0; k < inner; ++k)
                sum += a_rows[static_cast<std::size_t>(i * inner + k)] * b[static_cast<std::size_t>(k * cols + j)];
            c[static_cast<std::size_t>(i * cols + j)] = sum;
        }
    return c;
}

double entry(std::int64_t i, std::int64_t j, double scale) {
    return static_cast<double>((i * 31 + j * 17) % 101) * scale - 0.5;
}

} // namespace

int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    examples::command_line line("matmul",
                                "C = A x B as Kazouris's master-worker experiment: B sent to every rank first (not "
                                "timed), A cut into tasks of rows scheduled by a task farm; checked against a "
                                "sequential product.",
                                "mpiexec -n 4 matmul --rows 900 --inner 600 --cols 600 --tasks 300 --scheme kazouris");
    std::int64_t rows = 900, inner = 600, cols = 600, tasks = 300;
    std::string scheme = "kazouris";
    bool dedicated = false;
    std::vector<double> powers;
    line.add_option("--rows", rows, "rows of A and C (RowsA)")->capture_default_str();
    line.add_option("--inner", inner, "columns of A, rows of B (ColsA)")->capture_default_str();
    line.add_option("--cols", cols, "columns of B and C (ColsB)")->capture_default_str();
    line.add_option("--tasks", tasks, "tasks A is cut into (n)")->capture_default_str();
    line.add_option("--scheme", scheme, "kazouris, ss, or a chunk policy's spec (fss, af, ...)")->capture_default_str();
    line.add_flag("--dedicated-master", dedicated, "the root only schedules (the document's set-up)");
    line.add_option("--powers", powers, "each rank's relative speed, emulated by sleeping (e.g. 4,1,1,1)")
            ->delimiter(',');
    if (auto code = line.parse(argc, argv)) return *code;
    try {
        detail::require(rows >= 1, "--rows", rows, "must be >= 1");
        detail::require(inner >= 1, "--inner", inner, "must be >= 1");
        detail::require(cols >= 1, "--cols", cols, "must be >= 1");
        detail::require(tasks >= 1 && tasks <= rows, "--tasks", tasks, "must be in [1, rows]");

        // B everywhere before the clock starts, as the document measures.
        std::vector<double> b;
        if (world.rank() == 0) {
            b.resize(static_cast<std::size_t>(inner * cols));
            for (std::int64_t k = 0; k < inner; ++k)
                for (std::int64_t j = 0; j < cols; ++j) b[static_cast<std::size_t>(k * cols + j)] = entry(k, j, 0.02);
        }
        boost::mpi::broadcast(world, b, 0);

        task_farm_options options;
        options.placement = scheme;
        options.expected_tasks = static_cast<std::size_t>(tasks);
        options.master_computes = !dedicated;
        if (!powers.empty()) {
            options.powers = powers;
            options.emulate_powers = true;
        }
        std::vector<double> a; // on the root: the producer cuts it into tasks
        if (world.rank() == 0) {
            a.resize(static_cast<std::size_t>(rows * inner));
            for (std::int64_t i = 0; i < rows; ++i)
                for (std::int64_t k = 0; k < inner; ++k) a[static_cast<std::size_t>(i * inner + k)] = entry(i, k, 0.01);
        }
        std::vector<double> c(static_cast<std::size_t>(rows * cols));
        world.barrier();
        auto const start = std::chrono::steady_clock::now();
        auto out = task_farm<row_block>(
                world,
                [&](auto& farm) {
                    farm.on_result([&](std::uint64_t id, std::vector<double>&& block) {
                        std::int64_t const first = static_cast<std::int64_t>(id) * rows / tasks;
                        std::copy(block.begin(), block.end(), c.begin() + first * cols);
                    });
                    for (std::int64_t t = 0; t < tasks; ++t) {
                        std::int64_t const first = t * rows / tasks, last = (t + 1) * rows / tasks;
                        farm.submit(
                                row_block{first, last - first,
                                          std::vector<double>(a.begin() + first * inner, a.begin() + last * inner)});
                    }
                },
                [&](row_block const& t) { return multiply(t.rows, t.count, b, inner, cols); }, options);
        double const parallel = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

        if (world.rank() == 0) {
            auto const seq_start = std::chrono::steady_clock::now();
            std::vector<double> const expected = multiply(a, rows, b, inner, cols);
            double const sequential =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - seq_start).count();
            std::size_t mismatches = 0;
            for (std::size_t i = 0; i < c.size(); ++i) mismatches += c[i] != expected[i];
            std::cout << "C = A x B, " << rows << "x" << inner << " times " << inner << "x" << cols << ", " << tasks
                      << " tasks, scheme " << scheme << " on " << world.size() << " rank(s)"
                      << (dedicated ? " (dedicated master)" : "") << "\n"
                      << out.statistics << "time " << parallel << " s, sequential " << sequential << " s, speedup "
                      << sequential / parallel << "\nentries differing from a sequential product: " << mismatches
                      << '\n';
            if (mismatches != 0) return 1;
        }
    } catch (std::exception const& e) {
        std::cerr << "matmul (rank " << world.rank() << "): " << e.what() << '\n';
        return 1;
    }
}
