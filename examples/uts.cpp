// uts: the Unbalanced Tree Search benchmark over divide_and_conquer. Counts
// the nodes of a named UTS tree (T1: geometric, 4,130,071 nodes; T3:
// binomial, 4,112,897 nodes) with a placement, and prints nodes, time and
// nodes per second; --check also counts them sequentially and compares.
//   mpiexec -n 2 uts --tree T1 --placement steal
#include "uts.hpp"
#include "cli.hpp"

#include <loopsched/mpi/divide_and_conquer.hpp>

#include <boost/mpi/environment.hpp>

#include <chrono>
#include <iostream>
#include <string>
#include <vector>

using namespace loopsched;
using namespace loopsched::examples;

int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    command_line line("uts",
                      "Unbalanced Tree Search: counts a UTS tree's nodes with divide_and_conquer and prints nodes, "
                      "time and nodes per second.",
                      "mpiexec -n 2 uts --tree T1 --placement steal");
    std::string tree = "T1", placement = "kazouris";
    bool check = false, sequential_only = false, dedicated = false;
    int repeat = 1;
    line.add_option("--tree", tree, "T1 (4,130,071 nodes), T3 (4,112,897), T1L, T1-small, T3-small")
            ->capture_default_str();
    line.add_option("--placement", placement,
                    "kazouris, april, steal, steal-half, dlpt, random, round-robin, objects or messages")->capture_default_str();
    line.add_option("--repeat", repeat, "runs (the best time is printed)")->capture_default_str();
    line.add_flag("--check", check, "also count sequentially on the root and compare");
    line.add_flag("--sequential", sequential_only, "only the sequential count, on the root");
    line.add_flag("--dedicated-master", dedicated, "the root only manages (no worker of its own)");
    if (auto code = line.parse(argc, argv)) return *code;
    try {
        detail::require(repeat >= 1, "--repeat", repeat, "must be >= 1");
        uts_tree const t = uts_tree::named(tree);
        auto report = [&](char const* how, std::uint64_t nodes, double seconds) {
            std::cout << "tree " << tree << " placement " << how << " ranks " << world.size() << " nodes " << nodes
                      << " time " << seconds << " s nodes/s " << static_cast<double>(nodes) / seconds << '\n';
        };
        auto sequential = [&] {
            double best = 1e300;
            std::uint64_t nodes = 0;
            for (int i = 0; i < repeat; ++i) {
                auto const start = std::chrono::steady_clock::now();
                nodes = t.count(t.root());
                best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
            }
            return std::pair{nodes, best};
        };
        if (sequential_only) {
            if (world.rank() == 0) {
                auto const [nodes, seconds] = sequential();
                report("sequential", nodes, seconds);
            }
            return 0;
        }
        dnc_options options;
        options.placement = placement;
        options.master_computes = !dedicated;
        double best = 1e300;
        std::uint64_t nodes = 0;
        for (int i = 0; i < repeat; ++i) {
            world.barrier();
            auto const start = std::chrono::steady_clock::now();
            auto out = divide_and_conquer(world, t.root(), uts_search{t}, options);
            best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
            nodes = out.value;
        }
        if (world.rank() != 0) return 0;
        report(placement.c_str(), nodes, best);
        if (check) {
            auto const [expected, seconds] = sequential();
            report("sequential", expected, seconds);
            if (expected != nodes) {
                std::cerr << "uts: " << nodes << " nodes counted in parallel, " << expected << " sequentially\n";
                return 1;
            }
        }
    } catch (std::exception const& e) {
        std::cerr << "uts (rank " << world.rank() << "): " << e.what() << '\n';
        return 1;
    }
}
