// How far one master scales, and how far a hierarchy of them does: a DOALL
// loop of exponentially distributed iterations (10 ms and 1 ms on average) on
// N simulated workers, 100 iterations per worker. The masters' own work is
// charged: the real time their engine code runs between messages on this
// machine, plus an MPI overhead per message. Prints, per policy, the fraction
// of ideal throughput (ideal time / parallel time) of the flat loop and of the
// hierarchical one side by side, and the simulator's own run time; with
// --masterless, also the loop without a master (every rank claims its steps
// with a remote atomic on rank 0's counter), for the policies it takes.
#include "../examples/cli.hpp"
#include "../examples/progress.hpp"
#include "../examples/simulation.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <queue>
#include <string>
#include <vector>

using namespace loopsched;

namespace {

/// The hierarchical counterpart of a flat policy:
/// - weighted schemes at both levels (a group's power is its workers' summed V/Q);
/// - distributed ones (DTSS, DFSS, ...) between groups, FSS within: inside a
///   group each root chunk is a loop of about 50 iterations per worker, where
///   Chronopoulos et al.'s integer decrement D = floor((F - L) / (N - 1)) is 0 and TSS
///   and its kin degenerate to CSS(F);
/// - the others within groups under FSS between them (SS or AF between groups
///   would send the root a request per group per iteration or two).
std::string hierarchy_of(std::string const& flat) {
    if (flat.starts_with("w-")) return flat + "/" + flat;
    if (flat.starts_with("d")) return flat + "/fss";
    return "fss/" + flat;
}

/// What a policy's own chunks reach at no cost: each, in the order the
/// policy cuts them, to the first worker free (its claim costs nothing). With
/// SS every iteration goes alone: what a perfect self-scheduler reaches, near
/// the ceiling of every row (with exponential iterations its last ones end
/// about ln(P) means after the average worker: the tail no scheduler that does
/// not know iteration costs avoids; other chunks, in other orders, may land a
/// little above it). A loop without a master runs exactly its policy's
/// chunks, so it is measured against that policy's figure. Not for a policy
/// that learns from timings (it sees none here).
double schedule_bound(examples::workload const& w, int workers, std::string const& spec) {
    auto const policy = any_policy(parse_policy(spec));
    chunk_sequencer<any_policy> chunks(policy, loop_info{static_cast<index_t>(w.prefix.size() - 1),
                                                         static_cast<std::size_t>(workers), {}});
    using free_worker = std::pair<double, std::size_t>; // when, who
    std::priority_queue<free_worker, std::vector<free_worker>, std::greater<>> free_at;
    for (int k = 0; k < workers; ++k) free_at.push({0.0, static_cast<std::size_t>(k)});
    double makespan = 0.0;
    while (!chunks.done() && !free_at.empty()) {
        auto const [at, worker] = free_at.top();
        free_at.pop();
        auto const c = chunks.next(request{worker, {}, {}});
        if (!c) continue; // left out by the policy: this worker is done
        auto const first = static_cast<std::size_t>(c->first);
        double const end = at + (w.prefix[first + static_cast<std::size_t>(c->size)] - w.prefix[first]) /
                                        examples::reference_speed;
        free_at.push({end, worker});
        makespan = std::max(makespan, end);
    }
    double const ideal = w.total_flops() / (examples::reference_speed * workers);
    return ideal / makespan;
}

/// Where a flat run's time went: the ranks charged the most engine time, and
/// the workers' tasks and busy time (computing, waiting, sending), lowest,
/// median and highest.
void explain_run(examples::simulated_run const& run) {
    std::vector<std::size_t> ranks(run.engine_seconds.size());
    for (std::size_t i = 0; i < ranks.size(); ++i) ranks[i] = i;
    std::ranges::sort(ranks, std::greater<>{}, [&](std::size_t i) { return run.engine_seconds[i]; });
    std::printf("  engine seconds charged, most first:");
    for (std::size_t i = 0; i < std::min<std::size_t>(4, ranks.size()); ++i)
        std::printf(" rank %zu %.4f s;", ranks[i], run.engine_seconds[ranks[i]]);
    auto const& rows = run.statistics.workers;
    if (rows.empty()) return (void)std::printf("\n");
    auto spread = [&](char const* what, auto of) {
        std::vector<double> v;
        for (auto const& w : rows) v.push_back(of(w));
        std::ranges::sort(v);
        std::printf(" %s %.4g / %.4g / %.4g;", what, v.front(), v[v.size() / 2], v.back());
    };
    std::printf("\n  workers (lowest / median / highest):");
    spread("tasks", [](auto const& w) { return static_cast<double>(w.iterations); });
    spread("chunks", [](auto const& w) { return static_cast<double>(w.chunks); });
    spread("computing s", [](auto const& w) { return w.compute_seconds; });
    spread("busy s", [](auto const& w) { return w.compute_seconds + w.wait_seconds + w.comm_seconds; });
    std::printf(" parallel %.4f s\n", run.seconds);
}

} // namespace

int main(int argc, char** argv) try {
    examples::command_line line("scale",
                                "One master against a hierarchy of them: a DOALL loop of exponential iterations on N "
                                "simulated workers, the masters' engine time charged; prints each policy's fraction "
                                "of ideal throughput, flat and hierarchical side by side.",
                                "scale 1024 4096 --task-ms 10 --policies ss,fss");
    std::vector<int> sizes{1024, 4096};
    std::vector<double> task_ms{10.0, 1.0};
    std::vector<std::string> policies{"ss", "fss", "af", "w-fss", "dtss", "tss", "gss"};
    std::vector<std::string> farms;
    std::size_t group = 0, task_bytes = 0, per_worker = 100;
    bool flat = true, compute = false, in_groups = false, charged = true, lend = true, explain = false;
    std::string dist = "exp";
    double ahead = 0.0;
    line.add_option("workers", sizes, "simulated worker counts")->check(examples::positive_number)->capture_default_str();
    line.add_option("--task-ms", task_ms, "mean iteration times, in milliseconds")
            ->check(examples::positive_number)
            ->delimiter(',')
            ->capture_default_str();
    line.add_option("--policies", policies, "flat policies; each one's hierarchical form is printed beside it")
            ->delimiter(',')
            ->capture_default_str();
    line.add_option("--dist", dist, "iteration times: exp (exponential), uniform (in [0, 2 x mean]) or const")
            ->check(examples::one_of({"exp", "uniform", "const"}))
            ->capture_default_str();
    line.add_option("--request-ahead", ahead,
                    "hierarchical loops' workers ask for their next chunk when this fraction of the current one "
                    "remains (0: after it)")
            ->check(examples::in_range(0.0, 0.99))
            ->capture_default_str();
    line.add_option("--farms", farms,
                    "task farm schemes, flat against the hierarchical ss/SCHEME (each iteration a task; none by "
                    "default)")
            ->delimiter(',');
    line.add_option("--per-worker", per_worker,
                    "iterations (farm tasks) per worker: the root's book and result store grow with the total, its "
                    "cache footprint per turn with the workers")
            ->check(examples::positive_number)
            ->capture_default_str();
    line.add_option("--group", group, "workers per group (0: automatic)")->capture_default_str();
    line.add_option("--task-bytes", task_bytes,
                    "bytes each farm task carries to its worker (0: its 8-byte index; 800: 100 doubles)")
            ->capture_default_str();
    line.add_flag("--sub-masters-compute", compute, "sub-masters also run iterations");
    line.add_flag("--producers-in-groups", in_groups,
                  "hierarchical farms: each sub-master makes its group's part of the tasks (none pass through the "
                  "root)");
    line.add_flag("!--no-lending", lend,
                  "with --producers-in-groups: groups do not lend each other tasks (each runs only its own)");
    line.add_flag("!--no-flat", flat, "skip the flat loops (they take the longest at 16,384 workers)");
    line.add_flag("--explain", explain,
                  "after each flat run, the ranks charged the most engine time and the workers' spread of tasks "
                  "and busy time (what made a run slow)");
    double time_scale = 1.0;
    line.add_option("--engine-time-scale", time_scale,
                    "simulated seconds per real second of the engines' measured time (3: a root three times as "
                    "slow, as when another process shares its core)")
            ->check(examples::positive_number)
            ->capture_default_str();
    bool masterless = false;
    double atomic_latency = 1.5e-6;
    line.add_flag("--masterless", masterless,
                  "add a column: the loop without a master (every rank computes; a policy that learns from timings shows -)");
    line.add_option("--atomic-latency", atomic_latency, "round trip of the masterless loop's remote atomic, seconds")
            ->capture_default_str();
    line.add_flag("!--no-engine-time", charged,
                  "charge no engine time, only the messages' 1 us (deterministic: what the engines' measured time "
                  "costs, side by side)");
    if (auto code = line.parse(argc, argv)) return *code;
    std::erase(policies, ""); // --policies "": farms only
    // 1 us of CPU per message sent or received (MPI's o on a fast network):
    // a master pays it twice per chunk, on top of its engine's measured time.
    sim::simulation_options costs;
    costs.message_overhead = 1e-6;
    costs.charge_engine_time = charged;
    costs.engine_time_scale = time_scale;
    costs.atomic_latency = atomic_latency;
    std::vector<sim::simulator> simulators; // all made before the first run
    for (int n : sizes) simulators.emplace_back(examples::make_platform("uniform:n=" + std::to_string(n)), costs);
    std::printf("| workers | task | bound | policy | flat | chunks | hierarchical | groups | fraction | chunks | "
                "simulator s (flat, hierarchical) | root engine us per iteration (flat, hierarchical) | "
                "busiest sub-master's engine us per iteration of its group |%s\n"
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|%s\n",
                masterless ? " masterless | policy bound | simulator s (masterless) |" : "", masterless ? "---|---|---|" : "");
    examples::progress shown("scale", sizes.size() * task_ms.size() * (policies.size() + farms.size()));
    for (double ms : task_ms) {
        for (std::size_t s = 0; s < sizes.size(); ++s) {
            int const n = sizes[s];
            double const mean = ms * 1e-3 * examples::reference_speed; // flops
            std::string const iterations = std::to_string(per_worker * static_cast<std::size_t>(n));
            auto w = examples::make_workload(
                    dist == "const"
                            ? "uniform:n=" + iterations + ":cost=" + std::to_string(mean)
                            : "random:n=" + iterations + ":mean=" + std::to_string(mean) + ":dist=" + dist + ":seed=7");
            w.task_bytes = task_bytes;
            double const ideal = w.total_flops() / (examples::reference_speed * n);
            double const bound = schedule_bound(w, n, "ss");
            auto row = [&](std::string const& name, std::string const& levels, examples::simulated_run const& f,
                           examples::simulated_run const& r, examples::simulated_run const* m = nullptr,
                           std::optional<double> own = std::nullopt) {
                shown.clear();
                auto fraction = [&](examples::simulated_run const& x) {
                    return x.seconds > 0.0 ? ideal / x.seconds : 0.0;
                };
                char flat_text[64] = "-", flat_chunks[32] = "-";
                if (flat) {
                    std::snprintf(flat_text, sizeof flat_text, "%.3f", fraction(f));
                    std::snprintf(flat_chunks, sizeof flat_chunks, "%lld",
                                  static_cast<long long>(f.statistics.chunks()));
                }
                // the root's charged engine time per iteration (a farm's task)
                auto per_iteration = [](examples::simulated_run const& x) {
                    auto const ran = x.statistics.iterations();
                    return ran > 0 ? 1e6 * x.root_engine_seconds / static_cast<double>(ran) : 0.0;
                };
                double busiest = 0.0; // the sub-master that spent the most engine time on each iteration of its group
                for (auto const& g : r.statistics.groups)
                    if (g.iterations > 0 && static_cast<std::size_t>(g.rank) < r.engine_seconds.size())
                        busiest = std::max(busiest, 1e6 * r.engine_seconds[static_cast<std::size_t>(g.rank)] /
                                                            static_cast<double>(g.iterations));
                std::printf("| %d | %g ms %s | %.3f | %s | %s | %s | %s | %zu | %.3f | %lld | %.1f, %.1f | %.2f, %.2f | "
                            "%.2f |",
                            n, ms, dist.c_str(), bound, name.c_str(), flat_text, flat_chunks, levels.c_str(),
                            r.statistics.groups.size(), fraction(r), static_cast<long long>(r.statistics.chunks()),
                            f.wall, r.wall, flat ? per_iteration(f) : 0.0, per_iteration(r), busiest);
                if (masterless) {
                    char own_text[32] = "-";
                    if (own) std::snprintf(own_text, sizeof own_text, "%.3f", *own);
                    if (m)
                        std::printf(" %.3f | %s | %.1f |", fraction(*m), own_text, m->wall);
                    else
                        std::printf(" - | %s | - |", own_text);
                }
                std::printf("\n");
                if (explain && flat) explain_run(f);
                std::fflush(stdout);
            };
            for (auto const& spec : policies) {
                shown.next(std::to_string(n) + " workers, " + spec);
                examples::simulated_run f;
                if (flat) f = examples::simulate(simulators[s], w, parse_policy(spec));
                auto h = parse_hierarchy(hierarchy_of(spec));
                h.group_size = group;
                h.sub_masters_compute = compute;
                h.expected_chunk_seconds = ms * 1e-3;
                h.message_seconds = costs.message_overhead;
                auto const hier = examples::simulate_hierarchy(simulators[s], w, h, false, ahead);
                std::optional<examples::simulated_run> m;
                if (masterless) try {
                        m = examples::simulate(simulators[s], w, parse_policy(spec), false, false, false, {}, true);
                    } catch (invalid_parameter const&) { // a policy that depends on who asks: refused by name
                    }
                row(spec, hierarchy_of(spec), f, hier, m ? &*m : nullptr,
                    m ? std::optional(schedule_bound(w, n, spec)) : std::nullopt);
            }
            for (auto const& scheme : farms) { // a group holds a task per worker and one ahead: SS between groups
                shown.next(std::to_string(n) + " workers, farm " + scheme);
                examples::simulated_run f;
                if (flat) f = examples::simulate_farm(simulators[s], w, scheme);
                std::string const levels = "ss/" + scheme;
                row("farm " + scheme, in_groups ? "farm " + levels + ", made in groups" : "farm " + levels, f,
                    examples::simulate_farm(simulators[s], w, levels, false, false, group, ms * 1e-3, {}, in_groups, lend));
            }
        }
    }
} catch (std::exception const& e) {
    std::fprintf(stderr, "scale: %s\n", e.what());
    return 1;
}
