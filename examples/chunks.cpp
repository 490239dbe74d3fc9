// chunks: prints the schedule a policy produces when the workers ask in
// round-robin order, one line per chunk: <worker> <first-iteration> <size>.
//   chunks --policy SPEC --iterations N --workers P [--powers V1,..,VP] [--loads Q1,..,QP]
#include "cli.hpp"

#include <loopsched/loopsched.hpp>

#include <iostream>

int main(int argc, char** argv) {
    using namespace loopsched;
    try {
        examples::options opt(argc, argv, {"policy", "iterations", "workers", "powers", "loads"});
        if (!opt.has("policy") || !opt.has("iterations") || !opt.has("workers"))
            throw error("usage: chunks --policy SPEC --iterations N --workers P [--powers V1,..,VP] [--loads Q1,..,QP]");
        auto policy = parse_policy(opt.text("policy"));
        long long const workers = opt.integer("workers", 1);
        detail::require(workers >= 1, "--workers", workers, "must be >= 1");
        loop_info info{opt.integer("iterations", 0), static_cast<std::size_t>(workers), {}};
        auto powers = opt.reals("powers"), loads = opt.reals("loads");
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
