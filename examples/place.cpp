// place: a static set of independent tasks (all ready at time 0, no migration
// cost) placed on processors of different speeds by D_LPT (Karamcheti and Wah) or a
// baseline. Prints one line per task, `<task> <processor>`, then
// `makespan=<v> bound=<v>`; --optimal adds the exhaustive optimum.
// --random-sets N instead compares D_LPT with the optimum over N random sets.
//   place --placement dlpt --speeds 4,1,1,1 --costs 5,3,8,2,7
#include "cli.hpp"

#include <loopsched/mapping/dlpt.hpp>
#include <loopsched/mapping/estimates.hpp>
#include <loopsched/placement_spec.hpp>

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <random>
#include <string>
#include <vector>

using namespace loopsched;
using namespace loopsched::examples;

namespace {

/// D_LPT's makespan over the optimum on `sets` random sets of 1 to `max_tasks`
/// tasks with costs uniform in [1, 100]: the mean and the worst ratio.
void compare_with_optimum(std::vector<double> const& speeds, int sets, int max_tasks, std::uint64_t seed) {
    std::mt19937_64 random(seed);
    std::uniform_int_distribution<int> count(1, max_tasks);
    std::uniform_real_distribution<double> cost(1.0, 100.0);
    double sum = 0.0, worst = 1.0;
    int optimal = 0;
    for (int s = 0; s < sets; ++s) {
        std::vector<double> costs(static_cast<std::size_t>(count(random)));
        for (auto& c : costs) c = cost(random);
        double const ours = place_static(dlpt_placement{}, costs, speeds).makespan;
        double const best = optimal_makespan(costs, speeds).makespan;
        double const ratio = ours / best;
        sum += ratio;
        worst = std::max(worst, ratio);
        if (ratio <= 1.0 + 1e-9) ++optimal;
    }
    std::cout << std::setprecision(4) << "sets=" << sets << " tasks<=" << max_tasks << " mean_ratio=" << sum / sets
              << " worst_ratio=" << worst << " optimal=" << optimal << '\n';
}

} // namespace

int main(int argc, char** argv) {
    command_line line("place",
                      "Places a static set of independent tasks on processors of different speeds (D_LPT of Karamcheti and Wah, "
                      "or a baseline) and prints each task's processor, the makespan and the lower bound.",
                      "place --placement dlpt --speeds 4,1,1,1 --costs 5,3,8,2,7");
    std::string placement = "dlpt";
    std::vector<double> speeds{4, 1, 1, 1}, costs;
    bool optimal = false;
    int random_sets = 0, max_tasks = 10;
    std::uint64_t seed = 1;
    line.add_option("--placement", placement, "dlpt, random[:seed=N], round-robin, objects or messages")
            ->capture_default_str();
    line.add_option("--speeds", speeds, "each processor's speed b (a task of cost c takes c / b)")
            ->delimiter(',')
            ->capture_default_str();
    line.add_option("--costs", costs, "each task's cost on a speed-1 processor")->delimiter(',');
    line.add_flag("--optimal", optimal, "also print the optimal makespan (exhaustive search: small sets only)");
    line.add_option("--random-sets", random_sets, "compare D_LPT with the optimum over this many random sets instead");
    line.add_option("--max-tasks", max_tasks, "tasks per random set, at most")->capture_default_str();
    line.add_option("--seed", seed, "random placement's and random sets' seed")->capture_default_str();
    if (auto code = line.parse(argc, argv)) return *code;
    try {
        if (random_sets > 0) {
            detail::require(max_tasks >= 1 && max_tasks <= 14, "--max-tasks", max_tasks, "must be in [1, 14]");
            compare_with_optimum(speeds, random_sets, max_tasks, seed);
            return 0;
        }
        detail::require(!costs.empty(), "--costs", "(none)", "must list at least one task");
        placement_choice const choice = resolve(placement_choice(placement), "placement");
        detail::require(choice.placement() != nullptr, "--placement", placement, "must be one placement");
        any_placement const chosen = *choice.placement();
        auto const* by_estimates = chosen.estimates();
        detail::require(by_estimates != nullptr, "--placement", placement,
                        "must place by estimates: dlpt, random, round-robin, objects or messages");
        // --seed is the random placement's unless its spec gives one ("random:seed=N")
        auto const s = placement == "random" ? place_static(random_placement{seed}, costs, speeds)
                                             : place_static(*by_estimates, costs, speeds);
        for (std::size_t i = 0; i < costs.size(); ++i) std::cout << i << ' ' << s.processor[i] << '\n';
        std::cout << std::setprecision(6) << "makespan=" << s.makespan << " bound=" << makespan_bound(costs, speeds);
        if (optimal) {
            detail::require(costs.size() <= 14, "--costs", costs.size(), "must list at most 14 tasks with --optimal");
            std::cout << " optimal=" << optimal_makespan(costs, speeds).makespan;
        }
        std::cout << '\n';
    } catch (error const& e) {
        std::cerr << "place: " << e.what() << '\n';
        return 2;
    }
}
