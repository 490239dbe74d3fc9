// chunks: prints the schedule a policy produces when the workers ask in
// round-robin order, one line per chunk: <worker> <first-iteration> <size>.
#include "cli.hpp"

#include <loopsched/schedule.hpp>
#include <loopsched/spec.hpp>

#include <iostream>

int main(int argc, char** argv) {
    using namespace loopsched;
    examples::command_line line("chunks",
                                "The schedule a policy produces when the workers ask in round-robin order, "
                                "one line per chunk: <worker> <first-iteration> <size>.",
                                "chunks --policy gss --iterations 1000 --workers 4");
    std::string spec;
    long long iterations = 0, workers = 1;
    std::vector<double> powers, loads;
    line.add_option("--policy", spec, "scheduling policy, as a spec string (css:chunk=4, gss, dtss, fsc:h=..,sigma=..)")
            ->required();
    line.add_option("--iterations", iterations, "iterations in the loop")->required();
    line.add_option("--workers", workers, "workers asking for chunks")->required();
    line.add_option("--powers", powers, "each worker's virtual power V_k, comma-separated")->delimiter(',');
    line.add_option("--loads", loads, "each worker's run-queue length Q_k, comma-separated")->delimiter(',');
    if (auto code = line.parse(argc, argv)) return *code;
    try {
        auto policy = parse_policy(spec);
        detail::require(workers >= 1, "--workers", workers, "must be >= 1");
        loop_info info{iterations, static_cast<std::size_t>(workers), {}};
        if (!powers.empty() || !loads.empty()) {
            info.status.assign(info.workers, worker_status{});
            detail::require(powers.empty() || powers.size() == info.workers, "--powers count", powers.size(),
                            "must equal --workers");
            detail::require(loads.empty() || loads.size() == info.workers, "--loads count", loads.size(),
                            "must equal --workers");
            for (std::size_t k = 0; k < info.workers; ++k) {
                if (!powers.empty()) info.status[k].power = powers[k];
                if (!loads.empty()) info.status[k].run_queue = loads[k];
            }
        }
        for (auto const& a : round_robin_schedule(policy, info))
            std::cout << a.worker << ' ' << a.range.first << ' ' << a.range.size << '\n';
    } catch (std::exception const& e) {
        std::cerr << "chunks: " << e.what() << '\n';
        return 2;
    }
}
