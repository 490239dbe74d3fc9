// Ciorba's static experiments (section 5.2): Table 5.1 (where BSDA's OP
// falls between LB and UB over random uniform-dependence loops in 2-5
// dimensions; and whether DA schedules each with max(LB1, LB2, LB3)), and CPS
// against cyclic mapping (the points each sends for the dependences of Figure 3.7).
//   static_tables [--loops 200] [--seed 1]
#include "../examples/cli.hpp"

#include <loopsched/dependence/bsda.hpp>
#include <loopsched/dependence/chains.hpp>

#include <array>
#include <iomanip>
#include <iostream>
#include <random>
#include <string>
#include <vector>

using namespace loopsched;

namespace {

/// Where OP lies in [LB, UB], as Table 5.1's columns.
struct shares {
    int at_lb = 0, within_10 = 0, within_50 = 0, below_ub = 0, at_ub = 0, with_lb3 = 0, loops = 0;

    void add(std::size_t op, std::size_t lb, std::size_t ub, bool lb3_schedules) {
        ++loops;
        with_lb3 += lb3_schedules ? 1 : 0;
        if (op == lb) ++at_lb;
        else if (op == ub) ++at_ub;
        else if (op <= lb + lb / 10) ++within_10;
        else if (op <= lb + lb / 2) ++within_50;
        else ++below_ub;
    }
    [[nodiscard]] double pct(int n) const { return 100.0 * n / loops; }
};

/// A random loop: `count` distinct lexicographically positive vectors with
/// components in [0, 3], over a cube of `side` points per dimension.
template <std::size_t N>
void random_loops(std::mt19937_64& rng, int loops, std::size_t lo, std::size_t hi, index_t side, shares& out) {
    std::uniform_int_distribution<index_t> component(0, 3);
    std::uniform_int_distribution<std::size_t> how_many(lo, hi);
    typename box<N>::point extents{};
    extents.fill(side);
    for (int l = 0; l < loops; ++l) {
        std::vector<distance_vector<N>> v;
        std::size_t const count = how_many(rng);
        while (v.size() < count) {
            distance_vector<N> d{};
            for (auto& c : d) c = component(rng);
            if (is_lexicographically_positive<N>(d) && std::ranges::find(v, d) == v.end()) v.push_back(d);
        }
        time_steps<N> const t(box<N>::from_extents(extents), dependence_set<N>(std::move(v)));
        auto const b = bounds_of(t);
        auto const r = minimum_processors(t);
        bool const legal = !schedule_violation(r.schedule, t).has_value();
        if (!legal) throw error("loopsched: BSDA returned an illegal schedule");
        out.add(r.processors, b.lb(), b.ub, decide(t, b.dynamic_lb()).has_value());
    }
}

template <std::size_t N>
void table_row(std::mt19937_64& rng, int loops, index_t side) {
    for (auto [lo, hi] : {std::pair<std::size_t, std::size_t>{3, 6}, {7, 10}}) {
        shares s;
        random_loops<N>(rng, loops, lo, hi, side, s);
        std::cout << "| " << N << " | " << lo << "-" << hi << " | " << std::fixed << std::setprecision(1)
                  << s.pct(s.at_lb) << " | " << s.pct(s.within_10) << " | " << s.pct(s.within_50) << " | "
                  << s.pct(s.below_ub) << " | " << s.pct(s.at_ub) << " | " << s.pct(s.with_lb3) << " |\n";
    }
}

} // namespace

int main(int argc, char** argv) {
    examples::command_line line("static_tables",
                                "Ciorba's static experiments: Table 5.1 over random uniform-dependence loops, and "
                                "CPS against cyclic mapping for Figure 3.7's dependences.",
                                "static_tables --loops 200");
    int loops = 200;
    std::uint64_t seed = 1;
    line.add_option("--loops", loops, "random loops per row of Table 5.1")->capture_default_str();
    line.add_option("--seed", seed, "the random loops' seed")->capture_default_str();
    if (auto code = line.parse(argc, argv)) return *code;
    try {
        detail::require(loops >= 1, "--loops", loops, "must be >= 1");
        std::mt19937_64 rng(seed);
        std::cout << "Table 5.1: " << loops
                  << " random loops per row (components in [0,3]; sides 20, 10, 6, 4 for 2-5 dimensions), "
                     "% of loops by where OP falls (LB = max(LB1, LB2))\n\n"
                  << "| dim | vectors | OP = LB | 1-10% | 10-50% | 50-99% | UB | DA succeeds with max(LB1,LB2,LB3) |\n"
                  << "|---|---|---|---|---|---|---|---|\n";
        table_row<2>(rng, loops, 20);
        table_row<3>(rng, loops, 10);
        table_row<4>(rng, loops, 6);
        table_row<5>(rng, loops, 4);

        std::cout << "\nCPS against cyclic mapping, dependences (1,3),(2,2),(4,1),(4,3), d_c = (2,2): points sent\n\n"
                  << "| space | P | cyclic | CPS | CPS split | reduction |\n|---|---|---|---|---|---|\n";
        dependence_set<2> const figure_37{{1, 3}, {2, 2}, {4, 1}, {4, 3}};
        for (index_t n : {10, 100, 1000})
            for (std::size_t p = 5; p <= 8; ++p) {
                chain_set const chains(box<2>::from_extents({n, n}), figure_37);
                auto const cyclic = communication_volume(chains, map_cyclic(chains, p));
                auto const cps_map = map_cps(chains, p);
                auto const cps = communication_volume(chains, cps_map);
                std::cout << "| " << n << "x" << n << " | " << p << " | " << cyclic << " | " << cps << " | "
                          << cps_map.split[0] << "+" << cps_map.split[1] << " | " << std::setprecision(1)
                          << 100.0 * (1.0 - static_cast<double>(cps) / static_cast<double>(cyclic)) << "% |\n";
            }
    } catch (error const& e) {
        std::cerr << "static_tables: " << e.what() << '\n';
        return 2;
    }
}
