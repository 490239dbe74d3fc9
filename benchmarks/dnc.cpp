// Divide and conquer's placements on simulated clusters (SimGrid), the real
// engines in simulated time:
// 1. Kazouris's Tables A.1/A.2: the Mandelbrot quadtree (1000x1000, halved
//    while a side is above 100: leaves of 62-63 pixels a side) on 2-15 equal 1997 workstations on 10 Mbit/s links, the
//    manager sharing rank 0 with a worker: APRIL against Kazouris's scheme (and stealing), as a markdown table with the
//    document's times beside ours.
// 2. What the document could not run: 4 workers of speeds 4:1:1:1, and 4
//    equal workers two of which run a competing process, each placement's
//    makespan against the ideal (the total work over the total speed):
//      "dnc_makespan_over_ideal_<placement>_<cluster>_leaf<L>: ours=<s> baseline=<ideal s> ratio=<ours/ideal>"
#include "../examples/cli.hpp"
#include "../examples/simulation.hpp"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

using namespace loopsched;
using namespace loopsched::examples;

namespace {

/// Tables A.1 and A.2: APRIL's and the new scheme's average times (s), by processors.
struct reported {
    int processors;
    double april, kazouris;
};
constexpr reported document[] = {{2, 218.41, 212.99}, {3, 218.43, 208.63}, {4, 159.48, 157.51}, {5, 159.55, 153.25},
                                 {6, 158.84, 146.23}, {7, 158.76, 154.17}, {8, 158.24, 88.73},  {9, 158.24, 88.74},
                                 {10, 141.14, 76.76}, {11, 141.08, 85.50}, {12, 140.88, 64.76}, {13, 140.93, 67.72},
                                 {14, 140.91, 59.83}, {15, 140.87, 53.31}};
constexpr double document_sequential = 389.0; // speedup x time, Table A.1 (digest 000, section 3)
constexpr double workstation_speed = 1.7e6;   // flop/s of a 1997 workstation, as benchmarks/farm.cpp

double ideal_seconds(sim::platform const& p, double flops, bool master_computes) {
    double speed = 0.0;
    for (std::size_t k = master_computes ? 0 : 1; k < p.hosts().size(); ++k)
        speed += p.hosts()[k].speed / (1.0 + p.hosts()[k].background);
    return flops / speed;
}

} // namespace

int main(int argc, char** argv) try {
    command_line line("dnc",
                      "Divide and conquer's placements on simulated clusters: Kazouris's Mandelbrot tables (A.1/A.2), "
                      "APRIL against the new scheme and stealing, then heterogeneous and loaded clusters.",
                      "dnc --max-processors 15");
    int most = 15;
    double overhead = 1e-3, medium = 0.0;
    bool tables = false;
    std::string trace_prefix;
    line.add_option("--max-processors", most, "the tables' largest processor count (2 to 15)")->capture_default_str();
    line.add_option("--shared-medium", medium,
                    "the tables' workstations share one Ethernet segment of this many bytes/s (0: switched links)")
            ->capture_default_str();
    line.add_option("--message-overhead", overhead, "CPU seconds per message sent or received (PVM in 1997)")
            ->capture_default_str();
    line.add_flag("--tables", tables, "print each heterogeneous run's per-worker table (compute, wait, tasks)");
    line.add_option("--trace", trace_prefix,
                    "write each heterogeneous run's task trace as Chrome trace JSON to PREFIX<placement>_<cluster>_leaf<L>.json");
    std::vector<std::string> extra_clusters;
    std::vector<int> leaves{100, 32};
    line.add_option("--cluster", extra_clusters,
                    "more heterogeneous clusters to run after the two above, as simulate's speeds platform "
                    "(e.g. speeds:v=3/1/1/1:loads=0/0/1/0; the links are the tables')");
    line.add_option("--leaf", leaves, "the heterogeneous runs' leaf sides (the quadtree halves a side above it)")
            ->capture_default_str();
    if (auto code = line.parse(argc, argv)) return *code;
    for (int leaf : leaves) detail::require(leaf >= 1, "--leaf", leaf, "must be >= 1 pixel");
    detail::require(most >= 2 && most <= 15, "--max-processors", most, "must be in [2, 15]");
    detail::require(medium >= 0.0, "--shared-medium", medium, "must be >= 0 bytes/s");

    dnc_mandelbrot coarse(1000, 100); // the tables' tree; the heterogeneous runs' come from --leaf
    // The document's sequential time on one workstation sets the cost of an iteration.
    coarse.flops_per_iteration =
            document_sequential * workstation_speed / static_cast<double>(coarse.iterations(0, 0, 1000, 1000));

    sim::simulation_options so;
    so.message_overhead = overhead;
    std::vector<sim::simulator> sims; // every simulator made before the first run (SimGrid's rule)
    for (int p = 2; p <= most; ++p)
        sims.emplace_back(make_platform("uniform:n=" + std::to_string(p - 1) +
                                        ":speed=1.7e6:bandwidth=1.25e6:latency=5e-4" +
                                        (medium > 0.0 ? ":shared=" + std::to_string(medium) : std::string())),
                          so);
    std::string const link = ":speed=1.7e6:bandwidth=1.25e6:latency=5e-4";
    std::vector<std::pair<std::string, std::string>> clusters{{"4to1", "speeds:v=4/1/1/1" + link},
                                                              {"loaded", "speeds:v=1/1/1/1:loads=0/1/0/1" + link}};
    for (auto const& c : extra_clusters) clusters.emplace_back(c, c + link);
    std::vector<dnc_mandelbrot> trees;
    for (int leaf : leaves) {
        trees.emplace_back(1000, leaf);
        trees.back().flops_per_iteration = coarse.flops_per_iteration;
    }
    std::size_t const first_cluster = sims.size();
    for (auto const& c : clusters) sims.emplace_back(make_platform(c.second), so);

    std::printf("| P | APRIL (s) | kazouris (s) | steal (s) | improvement | document: APRIL | document: new | "
                "document: improvement |\n|---|---|---|---|---|---|---|---|\n");
    for (int p = 2; p <= most; ++p) {
        auto& s = sims[static_cast<std::size_t>(p - 2)];
        double const april = simulate_dnc(s, coarse, "april").seconds;
        double const kazouris = simulate_dnc(s, coarse, "kazouris").seconds;
        double const steal = simulate_dnc(s, coarse, "steal").seconds;
        auto const& d = document[p - 2];
        std::printf("| %d | %.1f | %.1f | %.1f | %.1f%% | %.1f | %.1f | %.1f%% |\n", p, april, kazouris, steal,
                    100.0 * (april - kazouris) / april, d.april, d.kazouris, 100.0 * (d.april - d.kazouris) / d.april);
    }
    std::printf("\n");
    for (std::size_t c = 0; c < clusters.size(); ++c) {
        auto& s = sims[first_cluster + c];
        for (auto const& tree : trees) {
            auto const* m = &tree;
            double const ideal = ideal_seconds(s.layout(), m->total_flops(), false);
            for (char const* placement : {"kazouris", "steal", "steal-half", "april"}) {
                auto const run = simulate_dnc(s, *m, placement, false, !trace_prefix.empty());
                double const t = run.seconds;
                std::printf("dnc_makespan_over_ideal_%s_%s_leaf%d: ours=%.2f baseline=%.2f ratio=%.3f\n", placement,
                            clusters[c].first.c_str(), m->leaf, t, ideal, t / ideal);
                if (tables) std::cout << run.statistics;
                if (!trace_prefix.empty()) {
                    std::string const path = trace_prefix + placement + "_" + clusters[c].first + "_leaf" +
                                             std::to_string(m->leaf) + ".json";
                    std::ofstream out(path);
                    write_chrome_trace(out, run.statistics, placement);
                    if (!out) throw error("dnc: --trace: cannot write " + path);
                }
            }
        }
    }
} catch (std::exception const& e) {
    std::cerr << "dnc: " << e.what() << '\n';
    return 1;
}
