// UTS on many simulated workers (SimGrid): where the single manager, or
// random stealing, stops scaling. The real tree (our SHA-1 generator) and the
// real engines; a node costs `--node-seconds` of simulated time (0.35 us: a
// node's cost on this machine's plain traversal), charged in batches of about
// 10 us (30 nodes at 0.35 us; one simulated computation per batch, not per
// node, but never more than one node when nodes are dearer: a worker answers
// thieves between charges, as UTS's own polling does between nodes). Prints each
// placement's simulated time and its fraction of the ideal (the nodes' time
// over the workers):
//   "uts_scale_<tree>_<workers>_<placement>: ours=<s> baseline=<ideal s> ratio=<ideal/ours>"
#include "../examples/cli.hpp"
#include "../examples/simulation.hpp"
#include "../examples/uts.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

using namespace loopsched;
using namespace loopsched::examples;

namespace {

/// UTS whose nodes cost simulated time, charged every `batch` nodes.
struct timed_uts : uts_search {
    sim::transport* t = nullptr;
    double node_seconds = 0.35e-6, speed = 1e9;
    int batch = 30;
    mutable int pending = 0;
    void charge() const {
        if (++pending < batch) return;
        t->compute(pending * node_seconds * speed);
        pending = 0;
    }
    [[nodiscard]] std::uint64_t solve(uts_node const&) const {
        charge();
        return 1;
    }
    [[nodiscard]] boost::container::small_vector<uts_node, 8> divide(uts_node const& n) const {
        charge();
        return uts_search::divide(n);
    }
};

} // namespace

int main(int argc, char** argv) try {
    command_line line("uts_scale",
                      "UTS on 64 and 256 simulated workers: each placement's time against the ideal (SimGrid).",
                      "uts_scale --tree T1 --workers 256 --workers 1024 --ideal 1 --placement steal");
    std::string tree = "T1";
    std::vector<int> counts{64, 256};
    double node_seconds = 0.35e-6, ideal_seconds = 0.0;
    std::vector<std::string> placements{"kazouris", "steal", "steal-half", "april"};
    line.add_option("--tree", tree, "a UTS tree (T1, T3, T1-small, ...)")->capture_default_str();
    line.add_option("--workers", counts, "simulated worker counts")->capture_default_str();
    line.add_option("--node-seconds", node_seconds, "simulated seconds per node")->capture_default_str();
    line.add_option("--ideal", ideal_seconds,
                    "instead of --node-seconds: the ideal time in seconds at every worker count (a node then costs "
                    "ideal x workers / nodes, as UTS's granularity option makes nodes dearer)");
    line.add_option("--placement", placements, "the placements to run")->capture_default_str();
    if (auto code = line.parse(argc, argv)) return *code;
    uts_tree const u = uts_tree::named(tree);
    std::uint64_t const nodes = u.count(u.root());
    std::vector<sim::simulator> sims; // every simulator made before the first run (SimGrid's rule)
    for (int w : counts) sims.emplace_back(make_platform("uniform:n=" + std::to_string(w - 1) + ":latency=5e-6"));
    for (std::size_t c = 0; c < counts.size(); ++c) {
        if (ideal_seconds > 0.0) node_seconds = ideal_seconds * counts[c] / static_cast<double>(nodes);
        for (std::string const& placement : placements) {
            std::uint64_t counted = 0, waits = 0, steals = 0;
            double seconds = 0.0, idle = 0.0;
            std::size_t computing = 0;
            auto const r = sims[c].run([&](sim::transport& t) {
                dnc_options o;
                o.placement = placement;
                timed_uts ops;
                ops.tree = u;
                ops.t = &t;
                ops.node_seconds = node_seconds;
                ops.batch = std::max(1, static_cast<int>(10e-6 / node_seconds + 0.5));
                auto out = divide_and_conquer(t, u.root(), ops, o);
                if (t.rank() == 0) {
                    counted = out.value;
                    seconds = out.statistics.parallel_seconds;
                    computing = out.workers.size();
                    for (auto const& w : out.workers) {
                        waits = std::max(waits, w.peak_waits);
                        steals += w.steals;
                        idle += w.idle_seconds / (seconds * static_cast<double>(out.workers.size()));
                    }
                }
            });
            // Over the ranks that compute (the manager is dedicated).
            double const ideal = static_cast<double>(nodes) * node_seconds / static_cast<double>(computing);
            std::printf(
                    "uts_scale_%s_%d_%s: ours=%.4f baseline=%.4f ratio=%.3f (nodes %s, %zu computing, %.3g s a node, "
                    "most nested waits %llu, idle %.1f%%, steals %llu, simulator %.0f s)\n",
                    tree.c_str(), counts[c], placement.c_str(), seconds, ideal, ideal / seconds,
                    counted == nodes ? "exact" : "WRONG", computing, node_seconds,
                    static_cast<unsigned long long>(waits), 100.0 * idle, static_cast<unsigned long long>(steals),
                    r.wall_seconds);
            std::fflush(stdout);
        }
    }
} catch (std::exception const& e) {
    std::cerr << "uts_scale: " << e.what() << '\n';
    return 1;
}
