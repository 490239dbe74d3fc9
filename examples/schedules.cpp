// schedules: the chunk sequences of every scheme side by side, for Chronopoulos et al.'s
// example loop (I = 1000, p = 4) and for a heterogeneous, loaded cluster.
#include "cli.hpp"

#include <loopsched/schedule.hpp>
#include <loopsched/spec.hpp>

#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr std::size_t shown_chunks = 18; // longer rows end in "... (+N)"

void print_row(std::string const& spec, loopsched::loop_info const& info, bool heterogeneous) {
    using namespace loopsched;
    auto schedule = round_robin_schedule(parse_policy(spec), info);
    std::vector<index_t> per_worker(info.workers);
    std::ostringstream sizes;
    for (std::size_t i = 0; i < schedule.size(); ++i) {
        per_worker[schedule[i].worker] += schedule[i].range.size;
        if (i < shown_chunks)
            sizes << ' ' << schedule[i].range.size << (heterogeneous ? "@" + std::to_string(schedule[i].worker) : "");
    }
    if (schedule.size() > shown_chunks) sizes << " ... (+" << schedule.size() - shown_chunks << ")";
    std::cout << std::left << std::setw(9) << spec << std::right << std::setw(5) << schedule.size();
    if (heterogeneous) {
        std::cout << " |";
        for (auto n : per_worker) std::cout << std::setw(5) << n;
    }
    std::cout << " |" << sizes.str() << '\n';
}

} // namespace

int main(int argc, char** argv) {
    using namespace loopsched;
    examples::command_line line("schedules",
                                "The chunk sequences of every scheme side by side, for Chronopoulos et al.'s example loop "
                                "(I = 1000, p = 4) and for a heterogeneous, loaded cluster. No flags.",
                                "schedules");
    if (auto code = line.parse(argc, argv)) return *code;
    std::cout << "loopsched demo: the chunks each scheme hands out when the workers ask in turn.\n"
                 "Pick a scheme by name in your code with parse_policy(\"gss:min=80\"), or by type: gss(80).\n"
                 "Inspect one yourself: ./run chunks -- --policy SPEC --iterations N --workers P\n\n";

    std::cout << "== Chronopoulos et al., Table 1: I = 1000 iterations, p = 4 identical workers ==\n"
              << "scheme   chunks | chunk sizes in the order handed out\n";
    for (auto name : policy_names()) print_row(std::string(name), loop_info{1000, 4, {}}, false);

    loop_info cluster{1000, 4, {{3.0, 1.0}, {3.0, 2.0}, {1.0, 1.0}, {1.0, 2.0}}};
    std::cout << "\n== A heterogeneous, loaded cluster: powers V = 3, 3, 1, 1; run queues Q = 1, 2, 1, 2 ==\n"
              << "   V/Q = 3, 1.5, 1, 0.5: the distributed schemes (d...) and the weighting adaptor (w-)\n"
              << "   give each worker work in proportion; the simple schemes do not. The adaptive\n"
              << "   schemes (awf-*, af) learn from measured chunk times; this listing measures none,\n"
              << "   so they stay at their starting sizes (af: probe chunks).\n"
              << "scheme   chunks |   iterations per worker | size@worker in the order handed out\n";
    for (auto name : policy_names()) {
        print_row(std::string(name), cluster, true);
        print_row("w-" + std::string(name), cluster, true);
    }
}
