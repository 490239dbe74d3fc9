// Runs loopsched's own master and worker engines on a simulated cluster
// (SimGrid) and prints the parallel time and the per-worker table.
#include "cli.hpp"
#include "simulation.hpp"

#include <fstream>
#include <iostream>
#include <limits>
#include <optional>
#include <string_view>

namespace {

/// "sds", "cyclic", "cps" or "acs", with an optional ":tile=AxB[xC]"; nothing for any other spec (a chunk policy).
std::optional<loopsched::doacross_mapping> static_mapping_of(std::string_view spec) {
    auto const colon = spec.find(':');
    auto const name = spec.substr(0, colon);
    if (name != "sds" && name != "cyclic" && name != "cps" && name != "acs") return std::nullopt;
    std::vector<loopsched::index_t> tile;
    if (colon != std::string_view::npos) {
        auto const rest = spec.substr(colon + 1);
        if (!rest.starts_with("tile="))
            throw loopsched::invalid_parameter("policy", std::string(spec), "a mapping takes only :tile=AxB[xC]");
        tile = loopsched::examples::parse_size(std::string(rest.substr(5)));
    }
    return loopsched::parse_doacross_mapping(name, std::move(tile));
}

} // namespace

int main(int argc, char** argv) try {
    using namespace loopsched;
    using namespace loopsched::examples;
    command_line line(
            "simulate",
            "Runs loopsched's own master and worker engines on a simulated cluster (SimGrid) and prints the parallel "
            "time and the per-worker table.\n\n"
            "Platforms: seed001[:loaded], seed003-w, seed003-sw[:m=M][:loaded], seed003-dmps, kids, twins, hetero,\n"
            "  uniform[:n=N][:bandwidth=B], speeds[:v=4/1/1/1][:loads=0/0/1/0], machine[:n=N][:c_d=S][:c_c=S],\n"
            "  or a SimGrid XML file.\n"
            "Workloads: mandelbrot:size=WxH[:sf=4][:max=1000][:bytes=1], uniform:n=N[:cost=F], "
            "ramp:n=N[:cost=F][:growth=9],\n"
            "  random:n=N[:mean=F][:dist=exp|uniform|normal][:seed=S], "
            "heat|floyd-steinberg|hydro:size=AxB[xC][:cost=F],\n"
            "  matmul[:rows=900][:inner=600][:cols=600][:tasks=300], "
            "convolution[:n=120][:tasks=400][:order=decreasing|increasing]\n"
            "With --farm the iterations run as the tasks of a task farm and --policy names its scheme: kazouris, ss,\n"
            "  or a chunk policy.\n"
            "A DOACROSS workload also takes a static mapping as its policy (no self-scheduling): sds, cyclic, cps or\n"
            "  acs, tiles chosen; sds:tile=AxB gives the tile.",
            "simulate --platform seed001:loaded --workload mandelbrot:size=4000x2000 --policy tss --policy dtss");
    // --policy may repeat: every policy runs on the same simulated platform.
    std::vector<std::string> policies{"tss"}, perturbations;
    std::string platform_text = "seed001", workload_text = "mandelbrot:size=4000x2000:sf=4", trace, gantt;
    sim::simulation_options so;
    bool master_computes = false, csv = false, quiet = false, farm = false, hide_load = false, reissue = false;
    line.add_option("--policy", policies, "scheduling policy (repeat the flag to compare several)")
            ->capture_default_str();
    line.add_option("--platform", platform_text, "simulated cluster, a preset or FILE.xml")->capture_default_str();
    line.add_option("--workload", workload_text, "the loop's costs")->capture_default_str();
    line.add_option("--trace", trace, "write the chunks as a Chrome trace (JSON)");
    line.add_option("--gantt", gantt, "write the chunks as an SVG Gantt chart");
    line.add_option("--message-overhead", so.message_overhead, "seconds added to every message")->capture_default_str();
    line.add_flag("--master-computes", master_computes, "the master's host also runs chunks");
    line.add_flag("--charge-engine", so.charge_engine_time, "charge the engines' own CPU time to the simulated clock");
    line.add_flag("--hide-load", hide_load,
                  "the library is told every run queue is 1 (the load starts after the loop opens)");
    line.add_flag("--reissue", reissue,
                  "once every chunk (or task) is out, idle workers get copies of unfinished ones (first finish wins)");
    line.add_flag("--farm", farm, "run the iterations as the tasks of a task farm (--policy: its scheme)");
    bool masterless = false;
    line.add_flag("--masterless", masterless,
                  "no master: every rank claims the policy's next step with a remote atomic on rank 0's counter");
    line.add_option("--atomic-latency", so.atomic_latency, "round trip of a remote atomic, in seconds")
            ->capture_default_str();
    line.add_option("--atomic-service", so.atomic_service,
                    "seconds one atomic occupies the counter host's network interface")
            ->capture_default_str();
    line.add_option("--perturb", perturbations,
                    "a host's speed changes mid-run (repeatable): slow:rank=K[:from=0.3][:factor=10], "
                    "stop:rank=K[:from=0.3][:for=0.2], load:rank=K[:period=0.2][:on=0.5][:factor=3]; times as "
                    "fractions of the unperturbed ideal");
    std::vector<std::string> failures;
    line.add_option("--fail", failures,
                    "a host is turned off mid-run (repeatable): failure:rank=K[:at=0.5], at a fraction of the "
                    "unperturbed ideal");
    double lost_after = std::numeric_limits<double>::infinity();
    line.add_option("--lost-after", lost_after,
                    "seconds of silence after which the master presumes a worker lost "
                    "(presumed_lost_after; with --reissue its work goes to others)");
    std::vector<int> predict_at;
    line.add_option("--predict-at", predict_at,
                    "DOACROSS with h=auto: also print the model's predicted time at these intervals H1,H2,... "
                    "(Ciorba's theoretical curve against h)")
            ->delimiter(',')
            ->check(examples::in_range(1, 1'000'000'000));
    index_t steps = 0;
    line.add_option("--steps", steps,
                    "time-stepping: run the DOALL loop N times in one simulation, one after the other (each policy "
                    "through all the steps; `auto` learns across them)")
            ->check(examples::in_range(0, 100'000'000));
    std::vector<std::string> step_perturbations;
    line.add_option("--step-perturb", step_perturbations,
                    "with --steps, a host slowed during some steps (repeatable): "
                    "slow:rank=K:steps=A-B[:every=E:for=F][:factor=10] (with every: the first F of every E steps)");
    bool redraw = false;
    line.add_flag("--redraw", redraw, "with --steps, a random workload draws new costs each step (seed + step)");
    line.add_flag("--csv", csv, "one CSV line per policy");
    line.add_flag("--quiet", quiet, "leave out the per-worker table");
    if (auto code = line.parse(argc, argv)) return *code;
    if (steps == 0 && (!step_perturbations.empty() || redraw))
        throw invalid_parameter("steps", "0", "must be >= 1 with --step-perturb or --redraw");
    auto const w = make_workload(workload_text);
    auto simulator = platform_text.ends_with(".xml") ? sim::simulator::from_xml(platform_text, so)
                                                     : sim::simulator(make_platform(platform_text), so);
    if (csv)
        std::cout << "platform,workload,policy,seconds,h,wall_seconds,ideal_seconds,predicted_seconds,workers,"
                     "iterations,predicted_curve,chen_xue_h,lost,step_seconds,step_schemes\n";
    // Ideal: the whole work spread over the workers' speeds as they change, no waiting, no messages.
    int const first_worker = master_computes ? 0 : 1;
    double const unperturbed = simulator.layout().ideal_seconds(w.total_flops(), first_worker);
    for (auto const& text : perturbations) simulator.perturb(make_perturbation(text, unperturbed));
    for (auto const& text : failures) simulator.fail(make_failure(text, unperturbed));
    double const ideal = simulator.layout().ideal_seconds(w.total_flops(), first_worker);
    if (steps > 0) {
        if (farm || reissue || masterless || !failures.empty() || !trace.empty() || !gantt.empty())
            throw invalid_parameter("steps", std::to_string(steps),
                                    "runs plain DOALL loops (no --farm, --reissue, --masterless, --fail, --trace, "
                                    "--gantt)");
        std::vector<sim::perturbation> changes;
        for (auto const& text : step_perturbations) changes.push_back(make_step_perturbation(text));
        for (auto const& spec : policies) {
            auto const policy = parse_policy(spec);
            auto const r = simulate_steps(simulator, workload_text, policy, steps, changes, redraw, master_computes,
                                          hide_load);
            if (csv) {
                std::cout << '"' << platform_text << "\",\"" << workload_text << "\",\"" << spec << "\"," << r.total()
                          << ",0," << r.wall << ',' << ideal * static_cast<double>(steps) << ",,,,,,,\"";
                for (std::size_t k = 0; k < r.seconds.size(); ++k) std::cout << (k ? ";" : "") << r.seconds[k];
                std::cout << "\",\"";
                for (std::size_t k = 0; k < r.schemes.size(); ++k) std::cout << (k ? ";" : "") << r.schemes[k];
                std::cout << "\"\n";
            } else {
                std::cout << "== " << spec << " on " << platform_text << ", " << workload_text << ", " << steps
                          << " steps (simulated in " << r.wall << " s)\n";
                if (auto const* a = policy.target<automatic>()) std::cout << a->history().explain() << '\n';
                std::cout << "total parallel time " << r.total() << " s, ideal of the unperturbed steps "
                          << ideal * static_cast<double>(steps) << " s\n\n";
            }
        }
        return 0;
    }
    for (auto const& spec : policies) {
        bool const tracing = !trace.empty() || !gantt.empty();
        auto const mapping = static_mapping_of(spec);
        examples::robustness const robust{reissue, lost_after};
        auto const r = farm      ? simulate_farm(simulator, w, spec, master_computes, tracing, 0, 0.0, robust)
                       : mapping ? simulate(simulator, w, *mapping, master_computes, tracing, hide_load)
                                 : simulate(simulator, w, parse_policy(spec), master_computes, tracing, hide_load,
                                            robust, masterless);
        if (csv) {
            std::cout << '"' << platform_text << "\",\"" << workload_text << "\",\"" << spec << "\"," << r.seconds
                      << ',' << r.interval << ',' << r.wall << ',' << ideal << ',';
            if (r.model) std::cout << r.model->predicted_seconds(static_cast<double>(r.interval));
            // Each worker's T_comm/T_wait/T_comp, in rank order (Chronopoulos et al.'s per-PE columns).
            std::cout << ",\"";
            for (std::size_t k = 0; k < r.statistics.workers.size(); ++k) {
                auto const& s = r.statistics.workers[k];
                std::cout << (k ? ";" : "") << s.comm_seconds << '/' << s.wait_seconds << '/' << s.compute_seconds;
            }
            // Each worker's iterations, in rank order (Ciorba's Tables 5.8 and 5.10).
            std::cout << "\",\"";
            for (std::size_t k = 0; k < r.statistics.workers.size(); ++k)
                std::cout << (k ? ";" : "") << r.statistics.workers[k].iterations;
            // The model's T at each --predict-at interval, h:T;h:T (empty without h=auto).
            std::cout << "\",\"";
            if (r.model)
                for (std::size_t k = 0; k < predict_at.size(); ++k)
                    std::cout << (k ? ";" : "") << predict_at[k] << ':'
                              << r.model->predicted_seconds(static_cast<double>(predict_at[k]));
            // Chen and Xue's h on the same measured costs, the loop cut into one block per worker (Ciorba's
            // comparison): each class's V times the model's k.
            std::cout << "\",";
            if (r.model) {
                auto blocks = r.model->classes;
                double workers = 0.0;
                for (auto& c : blocks) {
                    c.chunk *= r.model->subproblems;
                    workers += c.count;
                }
                if (workers > 1.0) std::cout << chen_xue_interval(r.model->costs, r.model->extent_s, blocks);
            }
            // The ranks the master presumed lost (--fail, --lost-after), in rank order.
            std::cout << ",\"";
            for (std::size_t k = 0; k < r.statistics.lost.size(); ++k)
                std::cout << (k ? ";" : "") << r.statistics.lost[k];
            std::cout << "\",,\n"; // step_seconds, step_schemes: --steps only
        } else {
            std::cout << "== " << spec << " on " << platform_text << ", " << workload_text;
            if (w.doacross()) std::cout << ", h = " << r.interval;
            if (r.model) std::cout << " (the model predicts " << r.model->predicted_seconds(static_cast<double>(r.interval))
                                   << " s)";
            std::cout << " (simulated in " << r.wall << " s)\n";
            if (r.model)
                for (int h : predict_at)
                    std::cout << "the model predicts " << r.model->predicted_seconds(static_cast<double>(h))
                              << " s at h = " << h << '\n';
            if (!quiet) std::cout << r.statistics;
            std::cout << "parallel time " << r.seconds << " s, ideal " << ideal << " s\n\n";
        }
        if (!trace.empty()) {
            std::ofstream f(trace);
            write_chrome_trace(f, r.statistics, spec);
        }
        if (!gantt.empty()) {
            std::ofstream f(gantt);
            write_svg_gantt(f, r.statistics, spec + " on " + platform_text);
        }
    }
} catch (std::exception const& e) {
    std::cerr << "simulate: " << e.what() << '\n';
    return 1;
}
