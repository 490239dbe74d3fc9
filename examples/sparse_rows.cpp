// sparse_rows: the user's view of an irregular loop. y = A x for a sparse A
// whose row lengths follow a power law (a few rows hold most of the work); one
// row is one iteration, and each row's y_i is gathered on the root rank.
//   mpiexec -n 3 sparse_rows --policy af --rows 200000
#include "cli.hpp"

#include <loopsched/mpi/parallel_for.hpp>
#include <loopsched/spec.hpp>

#include <boost/mpi/environment.hpp>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <span>
#include <vector>

using namespace loopsched;

namespace {

/// A compressed-sparse-row matrix, built identically on every rank from a seed.
struct csr {
    std::vector<std::int64_t> start; // row i holds entries [start[i], start[i+1])
    std::vector<std::int64_t> column;
    std::vector<double> value;

    static csr power_law(index_t rows, std::uint64_t seed) {
        csr m;
        m.start.push_back(0);
        std::uint64_t s = seed;
        auto next = [&s] { // splitmix64: the same numbers on every rank and machine
            std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
            return z ^ (z >> 31);
        };
        for (index_t i = 0; i < rows; ++i) {
            double const u = static_cast<double>(next() >> 11) * 0x1.0p-53;
            auto const length = static_cast<std::int64_t>(2.0 / std::pow(1.0 - u, 0.8)); // Pareto tail
            for (std::int64_t k = 0; k < std::min<std::int64_t>(length, rows); ++k) {
                m.column.push_back(static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(rows)));
                m.value.push_back(static_cast<double>(next() % 1000) / 1000.0);
            }
            m.start.push_back(static_cast<std::int64_t>(m.column.size()));
        }
        return m;
    }

    [[nodiscard]] double row_times(index_t i, std::vector<double> const& x) const {
        double sum = 0.0;
        for (auto k = start[static_cast<std::size_t>(i)]; k < start[static_cast<std::size_t>(i) + 1]; ++k)
            sum += value[static_cast<std::size_t>(k)] *
                   x[static_cast<std::size_t>(column[static_cast<std::size_t>(k)])];
        return sum;
    }
};

} // namespace

int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    examples::command_line line("sparse_rows",
                                "y = A x for a sparse matrix with power-law rows (costs that differ by orders of "
                                "magnitude), rows scheduled over the MPI ranks; checks y against a sequential run.",
                                "mpiexec -n 3 sparse_rows --policy awf-c --rows 200000");
    index_t rows = 200000;
    double request_ahead = 0.25;
    std::string spec = "af";
    line.add_option("--policy", spec, "scheduling policy, as a spec string")->capture_default_str();
    line.add_option("--rows", rows, "rows of the matrix")->capture_default_str();
    line.add_option("--request-ahead", request_ahead, "ask for the next chunk this fraction before the end")
            ->capture_default_str();
    if (auto code = line.parse(argc, argv)) return *code;
    try {
        detail::require(rows >= 1, "--rows", rows, "must be >= 1");
        csr const a = csr::power_law(rows, 2026);
        std::vector<double> x(static_cast<std::size_t>(rows));
        for (index_t i = 0; i < rows; ++i) x[static_cast<std::size_t>(i)] = 1.0 / static_cast<double>(i + 1);

        parallel_for_options options;
        options.request_ahead = request_ahead;
        // The body writes one value per row of its part; loopsched carries them to the root.
        auto y = parallel_for(
                world, make_range(rows), parse_policy(spec),
                [&](index_range const& part, std::span<double> out) {
                    std::size_t j = 0;
                    for (index_t i : part.indices()) out[j++] = a.row_times(i, x);
                },
                gather<double>{}, options);

        if (world.rank() == 0) {
            std::size_t mismatches = 0;
            for (index_t i = 0; i < rows; ++i)
                mismatches += y.value[static_cast<std::size_t>(i)] != a.row_times(i, x); // bit-identical
            std::cout << "y = A x, " << rows << " rows, " << a.value.size() << " non-zeros, longest row " <<
                    [&] {
                        std::int64_t longest = 0;
                        for (std::size_t i = 0; i + 1 < a.start.size(); ++i)
                            longest = std::max(longest, a.start[i + 1] - a.start[i]);
                        return longest;
                    }()
                      << "; " << spec << " on " << world.size() << " rank(s)\n"
                      << y.statistics << "rows differing from a sequential run: " << mismatches << '\n';
            if (mismatches != 0) return 1;
        }
    } catch (std::exception const& e) {
        std::cerr << "sparse_rows (rank " << world.rank() << "): " << e.what() << '\n';
        return 1;
    }
}
