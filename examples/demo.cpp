// demo: the chunk sequences of every scheme side by side, for seed 001's
// example loop (I = 1000, p = 4) and for a heterogeneous, loaded cluster.
#include <loopsched/loopsched.hpp>

#include <iomanip>
#include <iostream>
#include <string>

namespace {

void print_schedules(loopsched::loop_info const& info, bool show_workers) {
    using namespace loopsched;
    for (auto name : policy_names()) {
        for (std::string spec : {std::string(name), "w-" + std::string(name)}) {
            auto schedule = round_robin_schedule(parse_policy(spec), info);
            std::cout << std::left << std::setw(8) << spec << std::right << std::setw(4) << schedule.size() << " |";
            for (auto const& a : schedule) {
                std::cout << ' ' << a.range.size;
                if (show_workers) std::cout << "@" << a.worker;
            }
            std::cout << '\n';
        }
    }
}

} // namespace

int main() {
    using namespace loopsched;
    std::cout << "loopsched: chunk sizes handed out when the workers ask in turn (worker 0, 1, ...).\n"
                 "Columns: policy spec, number of chunks, chunk sizes. Pick one with parse_policy(\"spec\").\n\n";

    std::cout << "== Seed 001, Table 1: I = 1000 iterations, p = 4 identical workers ==\n";
    print_schedules(loop_info{1000, 4, {}}, false);

    loop_info cluster{1000, 4, {{3.0, 1.0}, {3.0, 2.0}, {1.0, 1.0}, {1.0, 2.0}}};
    std::cout << "\n== A heterogeneous, loaded cluster: V = 3, 3, 1, 1 and run queues Q = 1, 2, 1, 2 ==\n"
                 "   (size@worker; the distributed schemes and the w- adaptor size chunks by V/Q)\n";
    print_schedules(cluster, true);
}
