// The simulation guide's first example (docs/simulation.md), compiled and run as a test so it stays true.
#include <loopsched/algorithm/parallel_for.hpp>
#include <loopsched/concepts.hpp>
#include <loopsched/space/box.hpp>
#include <loopsched/spec.hpp>
#include <loopsched/transport/simgrid.hpp>

#include <iostream>

int main() {
    using namespace loopsched;

    sim::platform cluster;                           // a star: each host on its own link to a switch
    cluster.add({"master", 1e9, 12.5e6, 50e-6});     // name, flop/s, bytes/s, one-way latency
    cluster.add({"fast", 3e9, 12.5e6, 50e-6}, 3);    // fast-1 .. fast-3
    cluster.add({"slow", 1e9, 1.25e6, 50e-6, 1}, 5); // slow-1 .. slow-5, one competing process each
    sim::simulator simulator(cluster);
    simulator.run([&](sim::transport& t) { // every rank, as under mpiexec
        parallel_for_options o;
        o.master_computes = false;
        o.powers = cluster.powers();         // V_k from the speeds
        o.run_queues = cluster.run_queues(); // Q_k = 1 + competing processes
        auto run = parallel_for(
                t, make_range(4000), parse_policy("dtss"),
                [&](index_range const& part) { t.compute(1e6 * static_cast<double>(part.size())); }, o);
        if (t.rank() == 0) std::cout << run.statistics; // simulated seconds
    });
}
