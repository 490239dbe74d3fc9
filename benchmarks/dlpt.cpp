// Karamcheti and Wah's experiment on simulated clusters (SimGrid), the real engines in
// simulated time: QuickSort on 4 workers of speeds 4:1:1:1 (and a dedicated
// manager), D_LPT against its baselines (random, round robin, fewest objects,
// fewest pending messages) and Kazouris's scheme and stealing, over input sizes;
// then D_LPT with estimates of decreasing quality; then a 10x slowdown of one
// worker in the middle of the run. Every figure is the makespan over the lower
// bound max(total work / total speed, critical path on the fastest worker)
// (with the slowdown: full speed until it, the reduced total speed after);
// each run's sorted output is checked against std::sort.
//   "dlpt_<experiment>_<placement>_n<N>: ours=<s> baseline=<bound s> ratio=<ours/bound>"
#include "../examples/cli.hpp"
#include "../examples/simulation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <vector>

using namespace loopsched;
using namespace loopsched::examples;

namespace {

constexpr double flops_per_element = 20.0; // a comparison and a move, charged per element and level
constexpr double unit_speed = 1e8;         // flop/s of a speed-1 worker

/// How good the estimates are: exact n log2 n, that times a factor uniform in
/// [1 - noise, 1 + noise] (a hash of the task: the same task, the same
/// estimate), or none (every task costs 1).
struct estimate_quality {
    double noise = 0.0;
    bool none = false;
    [[nodiscard]] std::string name() const {
        if (none) return "none";
        return noise == 0.0 ? "exact" : "noise" + std::to_string(static_cast<int>(noise * 100));
    }
};

/// A slowdown the estimates do not foresee: worker rank `rank` computes
/// `factor` times slower from simulated time `at` on.
struct slowdown {
    int rank = -1;
    double at = 0.0, factor = 1.0;
};

struct sim_quicksort {
    sim::transport* t;
    std::size_t leaf;
    estimate_quality quality;
    slowdown slow;

    void charge(double flops) const {
        if (t->rank() == slow.rank && t->now() >= slow.at) flops *= slow.factor;
        t->compute(flops);
    }
    [[nodiscard]] bool is_leaf(std::vector<int> const& v) const { return v.size() <= leaf; }
    [[nodiscard]] std::vector<int> solve(std::vector<int> const& v) const {
        auto s = v;
        std::ranges::sort(s);
        double const n = static_cast<double>(v.size());
        charge(flops_per_element * n * std::log2(std::max(2.0, n)));
        return s;
    }
    [[nodiscard]] std::vector<std::vector<int>> divide(std::vector<int> const& v) const {
        int const pivot = v[v.size() / 2];
        std::vector<std::vector<int>> parts(3);
        for (int x : v) parts[x < pivot ? 0 : (x == pivot ? 1 : 2)].push_back(x);
        charge(flops_per_element * static_cast<double>(v.size()));
        return parts;
    }
    [[nodiscard]] std::vector<int> combine(std::vector<int> const&, std::span<std::vector<int>> parts) const {
        std::vector<int> out;
        for (auto& p : parts) out.insert(out.end(), p.begin(), p.end());
        return out;
    }
    static constexpr loopsched::hook_set hooks{.cost = true};
    [[nodiscard]] double cost(std::vector<int> const& v) const {
        if (quality.none) return 1.0;
        double const n = static_cast<double>(v.size());
        double c = n * std::log2(std::max(2.0, n));
        if (quality.noise > 0.0 && !v.empty()) {
            std::uint64_t h = v.size() * 0x9E3779B97F4A7C15ull ^ static_cast<std::uint64_t>(v.front()) * 0xBF58476D1CE4E5B9ull;
            h ^= h >> 31;
            double const u = static_cast<double>(h % 1000003) / 1000003.0; // [0, 1)
            c *= 1.0 + quality.noise * (2.0 * u - 1.0);
        }
        return c;
    }
};

/// The lower bound: total work over total speed, and the critical path (the
/// partitions down the longest chain, then its leaf) on the fastest worker.
/// With a slowdown: no schedule does more than the full speed until `at`,
/// and the reduced speed after it.
double lower_bound(std::vector<int> const& data, std::size_t leaf, std::vector<double> const& speeds,
                   slowdown const& slow = {}) {
    double total = 0.0;
    auto walk = [&](auto& self, std::vector<int> const& v) -> double {
        double const n = static_cast<double>(v.size());
        if (v.size() <= leaf) {
            double const c = flops_per_element * n * std::log2(std::max(2.0, n));
            total += c;
            return c;
        }
        int const pivot = v[v.size() / 2];
        std::vector<std::vector<int>> parts(3);
        for (int x : v) parts[x < pivot ? 0 : (x == pivot ? 1 : 2)].push_back(x);
        total += flops_per_element * n;
        double longest = 0.0;
        for (auto const& p : parts) longest = std::max(longest, self(self, p));
        return flops_per_element * n + longest;
    };
    double const path = walk(walk, data);
    double speed_sum = 0.0, fastest = 0.0;
    for (double s : speeds) {
        speed_sum += s * unit_speed;
        fastest = std::max(fastest, s * unit_speed);
    }
    double const bound = std::max(total / speed_sum, path / fastest);
    if (slow.rank < 1) return bound;
    double const after = speed_sum - speeds[static_cast<std::size_t>(slow.rank - 1)] * unit_speed * (1.0 - 1.0 / slow.factor);
    return std::max(bound, slow.at + std::max(0.0, total - slow.at * speed_sum) / after);
}

struct run_result {
    double seconds = 0.0;
    bool sorted = false;
};

run_result run_once(sim::simulator& s, std::vector<int> const& data, std::size_t leaf, std::string const& placement,
                    estimate_quality quality, slowdown slow) {
    run_result out;
    auto const& p = s.layout();
    auto program = [&](sim::transport& t) {
        dnc_options o;
        o.placement = placement;
        o.master_computes = false;
        o.powers = p.powers();
        o.run_queues = p.run_queues();
        auto r = divide_and_conquer(t, data, sim_quicksort{&t, leaf, quality, slow}, o);
        if (t.rank() == 0) {
            out.seconds = r.statistics.parallel_seconds;
            out.sorted = std::ranges::is_sorted(r.value) && r.value.size() == data.size();
        }
    };
    s.run(program);
    return out;
}

sim::platform cluster(std::vector<double> const& speeds) {
    sim::platform p;
    p.add(sim::host{"manager", unit_speed, 125e6, 25e-6, 0});
    for (std::size_t i = 0; i < speeds.size(); ++i)
        p.add(sim::host{"worker-" + std::to_string(i + 1), speeds[i] * unit_speed, 125e6, 25e-6, 0});
    return p;
}

} // namespace

int main(int argc, char** argv) try {
    command_line line("dlpt",
                      "Karamcheti and Wah's experiment in simulation: QuickSort on workers of speeds 4:1:1:1, D_LPT against its "
                      "baselines over input sizes, estimate quality, and a 10x slowdown in mid-run.",
                      "dlpt --sizes 200000,1000000");
    std::vector<int> sizes{100000, 300000, 1000000};
    std::size_t leaf_divisor = 256;
    line.add_option("--sizes", sizes, "input sizes (elements)")->delimiter(',')->capture_default_str();
    line.add_option("--leaf-divisor", leaf_divisor, "a problem of at most n / this elements is a leaf")
            ->capture_default_str();
    if (auto code = line.parse(argc, argv)) return *code;

    std::vector<double> const speeds{4, 1, 1, 1};
    std::vector<std::string> const placements{"dlpt", "random", "round-robin", "objects", "messages", "kazouris",
                                              "steal"};
    std::vector<estimate_quality> const qualities{{0.0, false}, {0.2, false}, {0.5, false}, {0.0, true}};
    std::size_t const runs = sizes.size() * (placements.size() + qualities.size() + 2 * placements.size());
    std::vector<sim::simulator> sims; // every simulator made before the first run (SimGrid's rule)
    sim::simulation_options so;
    so.message_overhead = 5e-6;
    for (std::size_t i = 0; i < runs; ++i) sims.emplace_back(cluster(speeds), so);
    std::size_t next = 0;
    bool all_sorted = true;
    auto report = [&](std::string const& experiment, std::string const& placement, int n, run_result const& r,
                      double bound) {
        all_sorted = all_sorted && r.sorted;
        std::printf("dlpt_%s_%s_n%d: ours=%.4f baseline=%.4f ratio=%.3f%s\n", experiment.c_str(), placement.c_str(), n,
                    r.seconds, bound, r.seconds / bound, r.sorted ? "" : " NOT SORTED");
        std::fflush(stdout);
    };
    for (int n : sizes) {
        std::mt19937 random(static_cast<std::uint32_t>(n));
        std::vector<int> data(static_cast<std::size_t>(n));
        for (auto& x : data) x = static_cast<int>(random() % 1000000000u);
        std::size_t const leaf = std::max<std::size_t>(64, static_cast<std::size_t>(n) / leaf_divisor);
        double const bound = lower_bound(data, leaf, speeds);
        for (auto const& p : placements)
            report("placement", p, n, run_once(sims[next++], data, leaf, p, {}, {}), bound);
        for (auto const& q : qualities)
            report("estimates_" + q.name(), "dlpt", n, run_once(sims[next++], data, leaf, "dlpt", q, {}), bound);
        // the perturbation: the fast worker (rank 1), then a slow one (rank 2), 10x slower from a third of the bound on
        for (int rank : {1, 2}) {
            slowdown const slow{rank, bound / 3.0, 10.0};
            double const slowed = lower_bound(data, leaf, speeds, slow);
            for (auto const& p : placements)
                report("slowdown_rank" + std::to_string(rank), p, n,
                       run_once(sims[next++], data, leaf, p, {}, slow), slowed);
        }
    }
    if (!all_sorted) {
        std::cerr << "dlpt: a run's output was not sorted\n";
        return 1;
    }
} catch (loopsched::error const& e) {
    std::cerr << "dlpt: " << e.what() << '\n';
    return 2;
}
