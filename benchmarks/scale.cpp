// How far one master scales: a DOALL loop with 10 ms average iterations
// (exponentially distributed) on N simulated workers, 100 iterations per
// worker. The master's own work is charged: the real time its engine code
// runs between messages on this machine, plus an MPI overhead per message.
// Prints, per policy, the fraction of ideal throughput (ideal time / parallel
// time) and the simulator's own run time.
#include "../examples/cli.hpp"
#include "../examples/progress.hpp"
#include "../examples/simulation.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace loopsched;

int main(int argc, char** argv) try {
    examples::command_line line("scale",
                                "How far one master scales: a DOALL loop with 10 ms average iterations on N simulated "
                                "workers, the master's engine time charged; prints each policy's fraction of ideal "
                                "throughput.",
                                "scale 64 1024");
    std::vector<int> sizes{1024, 4096};
    line.add_option("workers", sizes, "simulated worker counts")->check(CLI::PositiveNumber)->capture_default_str();
    if (auto code = line.parse(argc, argv)) return *code;
    // 1 us of CPU per message sent or received (MPI's o on a fast network):
    // the master pays it twice per chunk, on top of its engine's measured time.
    sim::simulation_options costs;
    costs.message_overhead = 1e-6;
    costs.charge_engine_time = true;
    std::vector<sim::simulator> simulators; // all made before the first run
    for (int n : sizes) simulators.emplace_back(examples::make_platform("uniform:n=" + std::to_string(n)), costs);
    std::printf("%8s %-10s %12s %12s %10s %10s %12s\n", "workers", "policy", "T_p (s)", "ideal (s)", "fraction",
                "chunks", "simulator s");
    std::vector<char const*> const specs{"ss", "css:chunk=10", "gss", "tss", "fss", "dtss", "af", "w-fss"};
    examples::progress shown("scale", sizes.size() * specs.size());
    for (std::size_t s = 0; s < sizes.size(); ++s) {
        int const n = sizes[s];
        auto const w = examples::make_workload("random:n=" + std::to_string(100 * n) + ":mean=1e7:dist=exp:seed=7");
        double const ideal = w.total_flops() / (examples::reference_speed * n);
        for (char const* spec : specs) {
            shown.next(std::to_string(n) + " workers, " + spec);
            auto const r = examples::simulate(simulators[s], w, parse_policy(spec));
            shown.clear();
            std::printf("%8d %-10s %12.4f %12.4f %10.3f %10lld %12.1f\n", n, spec, r.seconds, ideal, ideal / r.seconds,
                        static_cast<long long>(r.statistics.chunks()), r.wall);
            std::fflush(stdout);
        }
    }
} catch (std::exception const& e) {
    std::fprintf(stderr, "scale: %s\n", e.what());
    return 1;
}
