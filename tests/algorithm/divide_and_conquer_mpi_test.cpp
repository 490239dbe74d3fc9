// divide_and_conquer over real MPI (run by ctest under mpiexec with 1 to 4
// ranks): every placement with exact results (Fibonacci, an uneven tree of
// degree 0-4, QuickSort's serialized vectors), exact UTS node counts on small
// trees, every root, a dedicated manager, emulated speeds, and a throwing
// solve that every rank must see; D_LPT and its baselines as well.
#include "../../examples/dnc_problems.hpp"
#include "../../examples/uts.hpp"
#include "../support/dnc_checks.hpp"
#include "../support/mpi_check.hpp"
#include "../support/mpi_programs.hpp"
#include "../support/user_placement.hpp"

#include <loopsched/error.hpp>
#include <loopsched/mapping/dlpt.hpp>
#include <loopsched/mpi/divide_and_conquer.hpp>
#include <loopsched/placement_spec.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/environment.hpp>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

using namespace loopsched;
using namespace loopsched::examples;

namespace {

template <class Problem, class Ops>
void check(boost::mpi::communicator const& world, testing::tally& t, Problem const& p, Ops const& ops,
           dnc_options const& o, std::string const& what) {
    auto out = divide_and_conquer(world, p, ops, o);
    if (world.rank() == o.root) {
        t.check(out.value == sequential_divide_and_conquer(p, ops), what + ": the sequential result");
        std::uint64_t tasks = 0, waits = 0;
        for (auto const& w : out.workers) {
            tasks += w.tasks;
            waits = std::max(waits, w.peak_waits);
        }
        t.check(tasks >= 1, what + ": statistics from every worker");
        t.check(waits <= testing::tree_depth(p, ops),
                what + ": waits nested at most the tree's depth (" + std::to_string(waits) + ")");
    }
}

struct failing_tree : uneven_tree {
    [[nodiscard]] std::uint64_t solve(node const& p) const {
        if (p.level >= 6) throw std::runtime_error("a leaf failed");
        return uneven_tree::solve(p);
    }
};

} // namespace

int loopsched::testing::divide_and_conquer_mpi_test(int argc, char** argv) {
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    testing::tally t(world.rank());
    std::vector<int> data(30000);
    std::mt19937 random(11);
    for (auto& x : data) x = static_cast<int>(random() % 10000);

    // A type of the user's that is a farm's placement and a tree's: in a tree, work-first stealing.
    for (bool computes : {true, false}) {
        dnc_options o;
        o.placement = testing::steal_or_pairs_placement{};
        o.master_computes = computes;
        std::string const what = std::string("the user's steal-or-pairs") + (computes ? "" : " dedicated");
        check(world, t, 24, fibonacci{10, 0}, o, what + " fib");
        check(world, t, uneven_tree::node{}, uneven_tree{9}, o, what + " uneven tree");
    }

    for (char const* placement :
         {"kazouris", "april", "steal", "steal-half", "dlpt", "random", "round-robin", "objects", "messages"}) {
        std::string const name = placement;
        bool const by_estimates = parse_placement(name).estimates() != nullptr; // a task per division
        for (int root = 0; root < world.size(); ++root)
            for (bool computes : {true, false}) {
                dnc_options o;
                o.placement = placement;
                o.root = root;
                o.master_computes = computes;
                std::string const what = name + " root " + std::to_string(root) + (computes ? "" : " dedicated");
                check(world, t, 24, fibonacci{10, 0}, o, what + " fib");
                check(world, t, uneven_tree::node{}, uneven_tree{9}, o, what + " uneven tree");
                if (root == 0) check(world, t, data, quicksort{512}, o, what + " quicksort");
                if (root == 0) check(world, t, testing::wide_tree::node{}, testing::wide_tree{}, o, what + " wide tree");
            }
        dnc_options o;
        o.placement = placement;
        for (auto const& [tree, nodes] : {std::pair{"T1-small", 16000ull}, std::pair{"T3-small", 193585ull}}) {
            if (by_estimates && std::string_view(tree) == "T3-small") continue;
            uts_tree const u = uts_tree::named(tree);
            auto out = divide_and_conquer(world, u.root(), uts_search{u}, o);
            if (world.rank() == 0)
                t.check(out.value == nodes, name + " UTS " + tree + ": " + std::to_string(out.value) + " nodes");
        }
        // Emulated speeds 4:1:...: the fast rank sleeps nothing, the others 3x their compute time.
        dnc_options slow = o;
        slow.powers.assign(static_cast<std::size_t>(world.size()), 1.0);
        slow.powers[0] = 4.0;
        slow.emulate_powers = true;
        check(world, t, 22, fibonacci{12, 100}, slow, name + " emulated 4:1:1:1");
        // A failing leaf: every rank throws remote_error, and the next run works.
        bool threw = false;
        try {
            (void)divide_and_conquer(world, uneven_tree::node{}, failing_tree{{9}}, o);
        } catch (remote_error const& e) {
            threw = std::string(e.original_message()) == "a leaf failed";
        }
        t.check(threw, name + ": a failing solve throws remote_error on every rank");
        check(world, t, 20, fibonacci{8, 0}, o, name + " after a failure");
    }
    return t.finish();
}
