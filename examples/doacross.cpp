// doacross: Ciorba's DOACROSS test problems run by parallel_for_doacross on
// MPI ranks. Writes the raw result array (every field, row-major), which is
// byte-identical for every rank count, policy and interval, and prints the
// per-worker table; optionally a trace and a Gantt chart of the pipeline.
//   mpiexec -n 3 doacross --example heat --policy s-tss --size 2000x1000 --interval auto --output heat.raw
#include "cli.hpp"
#include "doacross_kernels.hpp"

#include <loopsched/any_policy.hpp>
#include <loopsched/error.hpp>
#include <loopsched/mpi/parallel_for_doacross.hpp>
#include <loopsched/options.hpp>
#include <loopsched/placement_spec.hpp>
#include <loopsched/runtime/core/trace.hpp>
#include <loopsched/space/box.hpp>
#include <loopsched/spec.hpp>

#include <boost/mpi/environment.hpp>

#include <fstream>
#include <iostream>
#include <string>
#include <vector>

using namespace loopsched;

namespace {

/// "S1xS2[xS3]" as N extents.
template <std::size_t N>
box<N> parse_size(std::string const& text) {
    std::array<index_t, N> e{};
    std::size_t at = 0;
    for (std::size_t d = 0; d < N; ++d) {
        auto const cross = text.find('x', at);
        if ((d + 1 < N) == (cross == std::string::npos))
            throw invalid_parameter("--size", text,
                                    "expects " + std::to_string(N) + " extents, e.g. " +
                                            (N == 2 ? "1000x500" : "100x5x1000"));
        std::string const part = text.substr(at, cross == std::string::npos ? std::string::npos : cross - at);
        if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos)
            throw invalid_parameter("--size", text, "extents must be whole numbers");
        e[d] = std::stoll(part);
        at = cross + 1;
    }
    return box<N>::from_extents(e);
}

/// The command line's values.
struct flags {
    std::string example = "heat", policy = "s-tss", size, interval, output, trace, gantt, mapping;
    std::vector<double> powers, run_queues;
    std::vector<index_t> tile;
    int root = 0;
    bool dedicated_master = false, emulate = false, library = false, no_gather = false, one_chunk_at_a_time = false;
};

/// The policy from --policy, with --interval (an integer, `auto`, or `<k>m`) as its S interval.
any_policy policy_from(flags const& args) {
    std::string spec = args.policy;
    if (!args.interval.empty()) {
        if (spec.find("h=") != std::string::npos)
            throw invalid_parameter("--interval", args.interval, "conflicts with the h= already in --policy " + spec);
        spec += (spec.find(':') == std::string::npos ? ":h=" : ",h=") + args.interval;
    }
    return parse_policy(spec);
}

template <class K>
int run(boost::mpi::communicator const& world, flags args) {
    if (args.size.empty()) args.size = K::rank == 2 ? "1000x500" : "100x5x1000";
    auto const space = parse_size<K::rank>(args.size);
    std::vector<char> result;
    int const root = args.root;
    if (world.size() == 1 && !args.library) { // --ranks 1: the plain sequential loop
        result = kernels::raw_bytes(kernels::sequential<K>(space));
        std::cout << K::name << " " << args.size << ", sequential loop\n";
    } else {
        doacross_options o;
        o.root = root;
        o.master_computes = !args.dedicated_master;
        o.powers = args.powers;
        o.run_queues = args.run_queues;
        o.emulate_powers = args.emulate;
        o.trace = !args.trace.empty() || !args.gantt.empty();
        o.extend_when_waiting = !args.one_chunk_at_a_time;
        if (!args.mapping.empty() && (args.policy != flags{}.policy || !args.interval.empty()))
            throw invalid_parameter("--mapping", args.mapping, "replaces the policy: leave out --policy and --interval");
        auto const policy = policy_from(args);
        auto const mapping = parse_doacross_mapping(args.mapping.empty() ? "sds" : args.mapping, args.tile);
        auto r = args.mapping.empty() ? kernels::run<K>(world, space, policy, o, !args.no_gather)
                                        : kernels::run<K>(world, space, mapping, o, !args.no_gather);
        std::string const how = args.mapping.empty() ? policy.spec() : std::string(mapping.name()) + " (static)";
        if (world.rank() == root) {
            std::cout << K::name << " " << args.size << ", " << how << ", " << world.size() << " rank(s)";
            if (args.mapping.empty())
                std::cout << ": u_c = dimension " << r.layout.chunk_dim << ", u_s = dimension " << r.layout.sync_dim
                          << ", h = " << r.interval << ", skew " << r.layout.skew;
            std::cout << "\n" << r.statistics;
            if (!args.no_gather) result = kernels::raw_bytes(r.value);
            if (!args.trace.empty()) {
                std::ofstream json(args.trace);
                write_chrome_trace(json, r.statistics, std::string(K::name));
            }
            if (!args.gantt.empty()) {
                std::ofstream svg(args.gantt);
                write_svg_gantt(svg, r.statistics, std::string(K::name) + ", " + how);
            }
        }
    }
    if (world.rank() == root && !args.output.empty()) {
        std::ofstream out(args.output, std::ios::binary);
        out.write(result.data(), static_cast<std::streamsize>(result.size()));
        if (!out) throw error("cannot write " + args.output);
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    examples::command_line line(
            "doacross",
            "A DOACROSS loop with uniform dependences (Ciorba's kernels) scheduled over the MPI ranks; "
            "--output writes the result arrays, byte-identical to the sequential loop's.",
            "mpiexec -n 3 doacross --example floyd-steinberg --policy sw-tss --size 2000x1000 --interval auto");
    flags args;
    line.add_option("--example", args.example, "heat, floyd-steinberg, hydro or artificial")
            ->check(examples::one_of({"heat", "floyd-steinberg", "hydro", "artificial"}))
            ->capture_default_str();
    line.add_option("--policy", args.policy, "scheduling policy, as a spec string")->capture_default_str();
    line.add_option("--size", args.size, "iteration space S1xS2[xS3] (default 1000x500, 3-D: 100x5x1000)");
    line.add_option("--interval", args.interval, "synchronization interval h: an integer, auto, or <k>m");
    line.add_option("--mapping", args.mapping,
                    "sds, cyclic, cps or acs: tiles placed statically (Ciorba), no master dealing; replaces --policy");
    line.add_option("--tile", args.tile, "tile extents for --mapping, comma-separated (default: chosen)")
            ->delimiter(',');
    line.add_option("--powers", args.powers, "each rank's virtual power V_k, comma-separated")->delimiter(',');
    line.add_option("--run-queues", args.run_queues, "each rank's run-queue length Q_k, comma-separated")
            ->delimiter(',');
    line.add_option("--output", args.output, "write the result arrays (raw bytes) to this file");
    line.add_option("--trace", args.trace, "write the chunks as a Chrome trace (JSON)");
    line.add_option("--gantt", args.gantt, "write the chunks as an SVG Gantt chart");
    line.add_option("--root", args.root, "the rank that holds the results")->capture_default_str();
    line.add_flag("--dedicated-master", args.dedicated_master, "the root schedules only, computes nothing");
    line.add_flag("--emulate", args.emulate, "slow each rank down to its --powers by sleeping");
    line.add_flag("--library", args.library, "on one rank, run the library's loop rather than the plain one");
    line.add_flag("--no-gather", args.no_gather, "leave each part of the arrays where it was computed");
    line.add_flag("--one-chunk-at-a-time", args.one_chunk_at_a_time, "never extend a chunk while waiting");
    if (auto code = line.parse(argc, argv)) return *code;
    try {
        if (args.example == kernels::heat::name) return run<kernels::heat>(world, args);
        if (args.example == kernels::floyd_steinberg::name) return run<kernels::floyd_steinberg>(world, args);
        if (args.example == kernels::hydro::name) return run<kernels::hydro>(world, args);
        return run<kernels::artificial>(world, args);
    } catch (std::exception const& e) {
        std::cerr << "doacross (rank " << world.rank() << "): " << e.what() << '\n';
        return 1;
    }
}
