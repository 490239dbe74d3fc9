// Does the simulator predict this machine? On 2 MPI ranks: measure c_d and c_c
// (ping-pong) and each workload's speed (a sequential run on each rank at
// once), run Mandelbrot
// and Heat for real with several policies (median of several runs), then
// simulate the same loops on a 2-host platform built from those measurements
// and print both. Run: mpiexec -n 2 fidelity [REPEATS]
#include "../examples/cli.hpp"
#include "../examples/progress.hpp"
#include "../examples/simulation.hpp"

#include <loopsched/mpi/parallel_for.hpp>
#include <loopsched/mpi/parallel_for_doacross.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

using namespace loopsched;
namespace mpi = boost::mpi;

namespace {

double median(std::vector<double> v) {
    std::ranges::sort(v);
    return v[v.size() / 2];
}

/// (slowest - fastest) / median of the real runs: how much this machine varies.
double spread(std::vector<double> const& v) {
    auto const [lo, hi] = std::ranges::minmax(v);
    return (hi - lo) / median(v);
}

/// One-way time of a `bytes` message: half the best round trip.
double one_way(mpi::communicator const& comm, std::size_t bytes) {
    std::vector<char> buffer(std::max<std::size_t>(1, bytes));
    double best = 1e300;
    for (int i = 0; i < 200; ++i) {
        double const start = MPI_Wtime();
        if (comm.rank() == 0) {
            MPI_Send(buffer.data(), static_cast<int>(bytes), MPI_BYTE, 1, 0, comm);
            MPI_Recv(buffer.data(), static_cast<int>(bytes), MPI_BYTE, 1, 0, comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buffer.data(), static_cast<int>(bytes), MPI_BYTE, 0, 0, comm, MPI_STATUS_IGNORE);
            MPI_Send(buffer.data(), static_cast<int>(bytes), MPI_BYTE, 0, 0, comm);
        }
        best = std::min(best, (MPI_Wtime() - start) / 2);
    }
    return best;
}

/// Median seconds of `f` over five runs: the real loops are reported as medians too.
template <class F>
double median_seconds(F&& f) {
    std::vector<double> t;
    for (int i = 0; i < 5; ++i) {
        auto const start = std::chrono::steady_clock::now();
        f();
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return median(t);
}

} // namespace

int main(int argc, char** argv) try {
    mpi::environment env(argc, argv);
    examples::command_line line("fidelity",
                                "The simulator's prediction of a real 2-rank run on this machine: each workload runs "
                                "for real and on a platform made from this machine's measured speeds.",
                                "mpiexec -n 2 fidelity 5 --tables");
    int repeats = 5;
    bool tables = false;
    line.add_option("repeats", repeats, "runs of each workload, real and simulated")
            ->check(examples::positive_number)
            ->capture_default_str();
    line.add_flag("--tables", tables, "print both runs' per-rank tables");
    if (auto code = line.parse(argc, argv)) return *code;
    mpi::communicator world;
    if (world.size() != 2) throw error("fidelity: run on exactly 2 ranks");

    // The machine: c_d and c_c from a ping-pong.
    double const c_d = one_way(world, 64);
    double const c_c = std::max(1e-12, (one_way(world, 1 << 20) - c_d) / static_cast<double>(1 << 20));

    // The workloads and their speeds on this machine (sequential, on rank 0).
    examples::mandelbrot const m{2000, 1000, 1000, 4};
    std::string const mandelbrot_text = "mandelbrot:size=2000x1000:sf=4:max=1000:bytes=3";
    box<2> const heat_space({0, 0}, {3000, 12000});
    std::string const heat_text = "heat:size=3000x12000";
    auto const mw = examples::make_workload(mandelbrot_text);
    auto const hw = examples::make_workload(heat_text);
    // Both ranks time the sequential loop at once: a core's speed while the
    // other is busy too (shared caches, memory bandwidth, SMT siblings) is
    // the speed a 2-rank loop sees. Each workload's speed is the slower rank's.
    std::vector<std::uint8_t> out(static_cast<std::size_t>(m.width) * m.column_bytes());
    auto body = m.body();
    world.barrier();
    double const mandelbrot_seconds = median_seconds([&] { body(make_range(m.width), out); });
    world.barrier();
    // Heat: the body alone. Filling windows, packing and unpacking sets is the
    // runtime's own work, which the simulation charges as it happens (below).
    window<double, 2> heat_array(heat_space);
    heat_array.fill(heat_space, kernels::heat::initial);
    // Timed in the runs' tile shape (S-CSS on 2 ranks: U_c/4 rows by U_s/6
    // columns), whose shorter rows run slower than one sweep of the array.
    auto heat_body = [&] {
        kernels::heat::body const sweep{heat_space};
        for (index_t i = 0; i < heat_space.upper()[0]; i += heat_space.upper()[0] / 4)
            for (index_t j = 0; j < heat_space.upper()[1]; j += heat_space.upper()[1] / 6)
                sweep(box<2>({i, j}, {std::min(i + heat_space.upper()[0] / 4, heat_space.upper()[0]),
                                      std::min(j + heat_space.upper()[1] / 6, heat_space.upper()[1])}),
                      heat_array);
    };
    double const heat_seconds = median_seconds(heat_body);
    // The simulation runs the engines' real work on one busy core; on the
    // real machine both cores are busy. Their ratio scales the charged time.
    world.barrier();
    double const heat_alone = world.rank() == 0 ? median_seconds(heat_body) : 0.0;
    world.barrier();
    double const mandelbrot_alone = world.rank() == 0 ? median_seconds([&] { body(make_range(m.width), out); }) : 0.0;
    world.barrier();
    double const mandelbrot_speed =
            mw.total_flops() / mpi::all_reduce(world, mandelbrot_seconds, mpi::maximum<double>());
    double const heat_speed = hw.total_flops() / mpi::all_reduce(world, heat_seconds, mpi::maximum<double>());

    // Real runs: median parallel time of `repeats` runs each.
    std::vector<std::string> const doall = {"css:chunk=50", "gss", "tss", "fss", "af"};
    std::vector<std::string> const doacross = {"s-css", "s-gss", "s-tss", "s-fss"};
    std::vector<double> real_doall, real_doacross, spreads;
    std::vector<loop_statistics> real_tables;
    examples::progress shown("fidelity, real runs",
                             (doall.size() + doacross.size()) * static_cast<std::size_t>(repeats));
    auto show = [&](std::string const& spec) {
        if (world.rank() == 0) shown.next(spec); // the other rank is quiet
    };
    for (auto const& spec : doall) {
        std::vector<double> t;
        for (int r = 0; r < repeats; ++r) {
            show("mandelbrot, " + spec);
            t.push_back(parallel_for(world, make_range(m.width), parse_policy(spec), m.body(),
                                     gather<std::uint8_t>{m.column_bytes()})
                                .statistics.parallel_seconds);
        }
        real_doall.push_back(median(t));
        spreads.push_back(spread(t));
    }
    // Heat's options, for the real runs and the simulation of the real body.
    doacross_options heat_options;
    heat_options.input_halo = kernels::heat::input_halo;
    heat_options.extend_when_waiting = false; // the protocol examples::simulate models
    for (auto const& spec : doacross) {
        std::vector<double> t;
        doacross_options const& o = heat_options;
        loop_statistics last;
        for (int r = 0; r < repeats; ++r) {
            show("heat, " + spec);
            last = parallel_for_doacross(world, heat_space, kernels::heat::dependences{}, parse_policy(spec),
                                         std::get<0>(kernels::heat::fields()), kernels::heat::body{heat_space}, o)
                           .statistics;
            t.push_back(last.parallel_seconds);
        }
        real_doacross.push_back(median(t));
        spreads.push_back(spread(t));
        real_tables.push_back(last);
    }
    shown.clear();
    if (world.rank() != 0) return 0;

    // The same loops on a simulated 2-host machine with those measurements.
    auto machine = [&](double speed) {
        char text[160];
        std::snprintf(text, sizeof text, "machine:n=2:c_d=%.9g:c_c=%.9g:speed=%.9g", c_d, c_c, speed);
        return examples::make_platform(text);
    };
    // The engines' own work (encoding, copying results, filling windows,
    // packing sets) runs for real in the simulation; its measured time is charged.
    sim::simulation_options mandelbrot_charged, heat_charged;
    mandelbrot_charged.charge_engine_time = heat_charged.charge_engine_time = true;
    // Open MPI moves a shared-memory message above its eager limit only when the
    // sender calls MPI again: a Heat halo sent before a tile arrives after it.
    std::size_t const eager_limit = [] {
        char const* set = std::getenv("OMPI_MCA_btl_vader_eager_limit");
        return set ? static_cast<std::size_t>(std::strtoull(set, nullptr, 10)) : std::size_t{4096};
    }();
    mandelbrot_charged.rendezvous_bytes = heat_charged.rendezvous_bytes = eager_limit;
    mandelbrot_charged.rendezvous_round_trip = heat_charged.rendezvous_round_trip = 2 * c_d;
    mandelbrot_charged.engine_time_scale = std::max(1.0, mandelbrot_seconds / mandelbrot_alone);
    heat_charged.engine_time_scale = std::max(1.0, heat_seconds / heat_alone);
    sim::simulator mandelbrot_machine(machine(mandelbrot_speed), mandelbrot_charged),
            heat_machine(machine(heat_speed), heat_charged), heat_online(machine(heat_speed), heat_charged);
    // The other way to predict: the real Heat body runs inside the simulation
    // and its measured time is charged (as SMPI does), instead of a cost per point.
    auto simulate_real_body = [&](std::string const& spec) {
        double seconds = 0;
        heat_online.run([&](sim::transport& t) {
            doacross_options o = heat_options;
            o.read_os_load = false;
            auto r = parallel_for_doacross(t, heat_space, kernels::heat::dependences{}, parse_policy(spec),
                                           std::get<0>(kernels::heat::fields()), kernels::heat::body{heat_space}, o);
            if (t.rank() == 0) seconds = r.statistics.parallel_seconds;
        });
        return seconds;
    };
    std::printf("this machine: c_d = %.2f us, c_c = %.3f ns/byte, eager limit %zu bytes; both cores busy: Mandelbrot "
                "%.2fx, Heat %.2fx slower than one; %d real runs per figure (median)\n",
                c_d * 1e6, c_c * 1e9, eager_limit, mandelbrot_charged.engine_time_scale, heat_charged.engine_time_scale,
                repeats);
    std::printf("%-12s %-14s %10s %12s %8s %14s\n", "workload", "policy", "real (s)", "simulated (s)", "error",
                "real spread");
    std::vector<double> errors;
    auto report = [&](char const* name, std::string const& spec, double real, double simulated) {
        double const error = (simulated - real) / real;
        errors.push_back(std::abs(error));
        std::printf("%-12s %-14s %10.4f %12.4f %+7.1f%% %13.1f%%\n", name, spec.c_str(), real, simulated, 100 * error,
                    100 * spreads[errors.size() - 1]);
    };
    for (std::size_t i = 0; i < doall.size(); ++i)
        report("mandelbrot", doall[i], real_doall[i],
               examples::simulate(mandelbrot_machine, mw, parse_policy(doall[i]), true).seconds);
    for (std::size_t i = 0; i < doacross.size(); ++i) {
        auto const simulated = examples::simulate(heat_machine, hw, parse_policy(doacross[i]), true);
        report("heat", doacross[i], real_doacross[i], simulated.seconds);
        if (tables) std::cout << "real:\n" << real_tables[i] << "simulated:\n" << simulated.statistics;
    }
    double const cost_model_error = *std::ranges::max_element(errors);
    std::printf("heat, the real body timed inside the simulation instead of a cost per point:\n");
    std::vector<double> online_errors;
    for (std::size_t i = 0; i < doacross.size(); ++i) {
        double const simulated = simulate_real_body(doacross[i]);
        double const error = (simulated - real_doacross[i]) / real_doacross[i];
        online_errors.push_back(std::abs(error));
        std::printf("%-12s %-14s %10.4f %12.4f %+7.1f%%\n", "heat (body)", doacross[i].c_str(), real_doacross[i],
                    simulated, 100 * error);
    }
    std::printf("fidelity (real body): ours=%.4f baseline=0.15 ratio=%.3f\n", *std::ranges::max_element(online_errors),
                *std::ranges::max_element(online_errors) / 0.15);
    std::printf("fidelity: ours=%.4f baseline=0.15 ratio=%.3f  (largest |simulated - real| / real, target <= 0.15)\n",
                cost_model_error, cost_model_error / 0.15);
} catch (std::exception const& e) {
    std::fprintf(stderr, "fidelity: %s\n", e.what());
    return 1;
}
