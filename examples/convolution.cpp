// convolution: Kazouris's adjoint convolution (Figure 4.1) as a task farm:
// A(i) = sum over k = i..M of B(k) C(k - i), M = N^2, one task per block of i.
// Task costs fall with i (decreasing, the document's order) or, with
// --order increasing, rise: where a cost model fitted on the replies should
// pay off. Checked against a sequential run, bit for bit.
//   mpiexec -n 4 convolution --n 120 --tasks 400 --scheme kazouris --powers 4,1,1,1
#include "cli.hpp"

#include <loopsched/mpi/task_farm.hpp>

#include <boost/mpi/environment.hpp>
#include <boost/serialization/vector.hpp>

#include <chrono>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

using namespace loopsched;

namespace {

/// Entries [first, first + count) of A.
struct block {
    std::int64_t first = 0, count = 0;
};

std::vector<double> convolve(block const& t, std::vector<double> const& b, std::vector<double> const& c) {
    auto const m = static_cast<std::int64_t>(b.size());
    std::vector<double> a(static_cast<std::size_t>(t.count), 0.0);
    for (std::int64_t j = 0; j < t.count; ++j) {
        std::int64_t const i = t.first + j;
        double sum = 0.0;
        for (std::int64_t k = i; k < m; ++k) sum += b[static_cast<std::size_t>(k)] * c[static_cast<std::size_t>(k - i)];
        a[static_cast<std::size_t>(j)] = sum;
    }
    return a;
}

} // namespace

int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    examples::command_line line("convolution",
                                "Kazouris's adjoint convolution as a task farm: tasks of decreasing (or increasing) "
                                "cost, scheduled over the MPI ranks; checked against a sequential run.",
                                "mpiexec -n 4 convolution --n 120 --tasks 400 --scheme kazouris --powers 4,1,1,1");
    std::int64_t n = 120, tasks = 400;
    std::string scheme = "kazouris", order = "decreasing";
    bool hints = false, dedicated = false;
    std::vector<double> powers;
    line.add_option("--n", n, "the problem's N: A, B and C have N^2 entries")->capture_default_str();
    line.add_option("--tasks", tasks, "tasks (blocks of A's entries)")->capture_default_str();
    line.add_option("--scheme", scheme, "kazouris, ss, or a chunk policy's spec (fss, af, awf-b, ...)")
            ->capture_default_str();
    line.add_option("--order", order, "task costs by creation order: decreasing or increasing")->capture_default_str();
    line.add_flag("--hints", hints, "give each task's cost (its inner-loop length) to the farm");
    line.add_flag("--dedicated-master", dedicated, "the root only schedules");
    line.add_option("--powers", powers, "each rank's relative speed, emulated by sleeping (e.g. 4,1,1,1)")
            ->delimiter(',');
    if (auto code = line.parse(argc, argv)) return *code;
    try {
        detail::require(n >= 1 && n <= 3000, "--n", n, "must be in [1, 3000]");
        detail::require(order == "decreasing" || order == "increasing", "--order", order,
                        "must be decreasing or increasing");
        std::int64_t const m = n * n;
        detail::require(tasks >= 1 && tasks <= m, "--tasks", tasks, "must be in [1, N^2]");
        std::vector<double> b(static_cast<std::size_t>(m)), c(static_cast<std::size_t>(m));
        for (std::int64_t k = 0; k < m; ++k) {
            b[static_cast<std::size_t>(k)] = static_cast<double>(k % 13) * 0.25 - 1.0;
            c[static_cast<std::size_t>(k)] = static_cast<double>(k % 7) * 0.5 - 1.0;
        }
        auto block_of = [&](std::int64_t t) {
            std::int64_t const u = order == "decreasing" ? t : tasks - 1 - t;
            return block{u * m / tasks, (u + 1) * m / tasks - u * m / tasks};
        };

        task_farm_options options;
        options.placement = scheme;
        options.expected_tasks = static_cast<std::size_t>(tasks);
        options.master_computes = !dedicated;
        if (!powers.empty()) {
            options.powers = powers;
            options.emulate_powers = true;
        }
        std::vector<double> a(static_cast<std::size_t>(m));
        auto const start = std::chrono::steady_clock::now();
        auto out = task_farm<block>(
                world,
                [&](auto& farm) {
                    farm.on_result([&](std::uint64_t id, std::vector<double>&& values) {
                        block const t = block_of(static_cast<std::int64_t>(id));
                        std::copy(values.begin(), values.end(), a.begin() + t.first);
                    });
                    for (std::int64_t t = 0; t < tasks; ++t) {
                        block const bl = block_of(t);
                        // Its inner loops' total length: what the task costs.
                        double const cost = static_cast<double>(bl.count) * static_cast<double>(m - bl.first);
                        farm.submit(bl, hints ? task_hints{.cost = cost} : task_hints{});
                    }
                },
                [&](block const& t) { return convolve(t, b, c); }, options);
        double const parallel = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

        if (world.rank() == 0) {
            auto const seq_start = std::chrono::steady_clock::now();
            std::vector<double> const expected = convolve(block{0, m}, b, c);
            double const sequential =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - seq_start).count();
            std::size_t mismatches = 0;
            for (std::size_t i = 0; i < a.size(); ++i) mismatches += a[i] != expected[i];
            std::cout << "adjoint convolution, N^2 = " << m << ", " << tasks << " tasks of " << order
                      << " cost, scheme " << scheme << (hints ? " with cost hints" : "") << " on " << world.size()
                      << " rank(s)\n"
                      << out.statistics << "time " << parallel << " s, sequential " << sequential << " s, speedup "
                      << sequential / parallel << "\nentries differing from a sequential run: " << mismatches << '\n';
            if (mismatches != 0) return 1;
        }
    } catch (std::exception const& e) {
        std::cerr << "convolution (rank " << world.rank() << "): " << e.what() << '\n';
        return 1;
    }
}
