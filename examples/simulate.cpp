// Runs loopsched's own master and worker engines on a simulated cluster
// (SimGrid) and prints the parallel time and the per-worker table:
//   simulate --platform P|FILE.xml --workload W --policy SPEC [--policy SPEC2 ...]
//            [--master-computes] [--trace FILE.json] [--gantt FILE.svg] [--csv]
#include "cli.hpp"
#include "simulation.hpp"

#include <fstream>
#include <iostream>

int main(int argc, char** argv) try {
    using namespace loopsched;
    using namespace loopsched::examples;
    // --policy may repeat: every policy runs on the same simulated platform.
    std::vector<std::string> policies;
    std::vector<char*> rest{argv[0]};
    for (int i = 1; i < argc; ++i) {
        if (std::string_view(argv[i]) == "--policy" && i + 1 < argc) policies.emplace_back(argv[++i]);
        else rest.push_back(argv[i]);
    }
    options opts(static_cast<int>(rest.size()), rest.data(),
                 {"platform", "workload", "trace", "gantt", "message-overhead"},
                 {"master-computes", "csv", "charge-engine", "quiet"});
    if (policies.empty()) policies.emplace_back("tss");
    std::string const platform_text = opts.text("platform", "seed001");
    std::string const workload_text = opts.text("workload", "mandelbrot:size=4000x2000:sf=4");
    auto const w = make_workload(workload_text);
    sim::simulation_options so;
    so.message_overhead = opts.real("message-overhead", 0.0);
    so.charge_engine_time = opts.flag("charge-engine");
    auto simulator = platform_text.ends_with(".xml") ? sim::simulator::from_xml(platform_text, so)
                                                     : sim::simulator(make_platform(platform_text), so);
    bool const csv = opts.flag("csv");
    if (csv) std::cout << "platform,workload,policy,seconds,h,wall_seconds,ideal_seconds\n";
    // Ideal: the whole work spread over the workers' speeds, no waiting, no messages.
    double speed_sum = 0;
    auto const& hosts = simulator.layout().hosts();
    for (std::size_t k = opts.flag("master-computes") ? 0 : 1; k < hosts.size(); ++k)
        speed_sum += hosts[k].speed / (1.0 + hosts[k].background);
    double const ideal = w.total_flops() / speed_sum;
    for (auto const& spec : policies) {
        auto const policy = parse_policy(spec);
        bool const trace = opts.has("trace") || opts.has("gantt");
        auto const r = simulate(simulator, w, policy, opts.flag("master-computes"), trace);
        if (csv) {
            std::cout << '"' << platform_text << "\",\"" << workload_text << "\",\"" << spec << "\"," << r.seconds << ','
                      << r.interval << ',' << r.wall << ',' << ideal << '\n';
        } else {
            std::cout << "== " << spec << " on " << platform_text << ", " << workload_text;
            if (w.doacross()) std::cout << ", h = " << r.interval;
            std::cout << " (simulated in " << r.wall << " s)\n";
            if (!opts.flag("quiet")) std::cout << r.statistics;
            std::cout << "parallel time " << r.seconds << " s, ideal " << ideal << " s\n\n";
        }
        if (opts.has("trace")) {
            std::ofstream f(opts.text("trace"));
            write_chrome_trace(f, r.statistics, spec);
        }
        if (opts.has("gantt")) {
            std::ofstream f(opts.text("gantt"));
            write_svg_gantt(f, r.statistics, spec + " on " + platform_text);
        }
    }
} catch (std::exception const& e) {
    std::cerr << "simulate: " << e.what() << '\n';
    return 1;
}
