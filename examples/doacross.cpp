// doacross: seed 003's DOACROSS test problems run by parallel_for_doacross on
// MPI ranks. Writes the raw result array (every field, row-major), which is
// byte-identical for every rank count, policy and interval, and prints the
// per-worker table; optionally a trace and a Gantt chart of the pipeline.
//   mpiexec -n 3 doacross --example heat --policy s-tss --size 2000x1000 --interval auto --output heat.raw
#include "cli.hpp"
#include "doacross_kernels.hpp"

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
            throw invalid_parameter("--size", text, "expects " + std::to_string(N) + " extents, e.g. " + (N == 2 ? "1000x500" : "100x5x1000"));
        std::string const part = text.substr(at, cross == std::string::npos ? std::string::npos : cross - at);
        if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos)
            throw invalid_parameter("--size", text, "extents must be whole numbers");
        e[d] = std::stoll(part);
        at = cross + 1;
    }
    return box<N>::from_extents(e);
}

/// The policy from --policy, with --interval (an integer, `auto`, or `<k>m`) as its S interval.
any_policy policy_from(examples::options const& args) {
    std::string spec = args.text("policy", "s-tss");
    if (args.has("interval")) {
        if (spec.find("h=") != std::string::npos)
            throw invalid_parameter("--interval", args.text("interval"), "conflicts with the h= already in --policy " + spec);
        spec += (spec.find(':') == std::string::npos ? ":h=" : ",h=") + args.text("interval");
    }
    return parse_policy(spec);
}

template <class K>
int run(boost::mpi::communicator const& world, examples::options const& args) {
    auto const space = parse_size<K::rank>(args.text("size", K::rank == 2 ? "1000x500" : "100x5x1000"));
    std::vector<char> result;
    int const root = static_cast<int>(args.integer("root", 0));
    if (world.size() == 1 && !args.flag("library")) { // --ranks 1: the plain sequential loop
        result = kernels::raw_bytes(kernels::sequential<K>(space));
        std::cout << K::name << " " << args.text("size") << ", sequential loop\n";
    } else {
        doacross_options o;
        o.root = root;
        o.master_computes = !args.flag("dedicated-master");
        o.powers = args.reals("powers");
        o.run_queues = args.reals("run-queues");
        o.emulate_powers = args.flag("emulate");
        o.trace = args.has("trace") || args.has("gantt");
        o.gather = !args.flag("no-gather");
        o.extend_when_waiting = !args.flag("one-chunk-at-a-time");
        auto const policy = policy_from(args);
        auto r = kernels::run<K>(world, space, policy, o);
        if (world.rank() == root) {
            std::cout << K::name << " " << args.text("size") << ", " << policy.spec() << ", " << world.size()
                      << " rank(s): u_c = dimension " << r.layout.chunk_dim << ", u_s = dimension " << r.layout.sync_dim
                      << ", h = " << r.interval << ", skew " << r.layout.skew << "\n"
                      << r.statistics;
            if (o.gather) result = kernels::raw_bytes(r.arrays);
            if (args.has("trace")) {
                std::ofstream json(args.text("trace"));
                write_chrome_trace(json, r.statistics, std::string(K::name));
            }
            if (args.has("gantt")) {
                std::ofstream svg(args.text("gantt"));
                write_svg_gantt(svg, r.statistics, std::string(K::name) + ", " + policy.spec() + ", h = " + std::to_string(r.interval));
            }
        }
    }
    if (world.rank() == root && args.has("output")) {
        std::ofstream out(args.text("output"), std::ios::binary);
        out.write(result.data(), static_cast<std::streamsize>(result.size()));
        if (!out) throw error("cannot write " + args.text("output"));
    }
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    try {
        examples::options args(argc, argv, {"example", "policy", "size", "interval", "powers", "run-queues", "output", "trace", "gantt", "root"},
                               {"dedicated-master", "emulate", "library", "no-gather", "one-chunk-at-a-time"});
        std::string const example = args.text("example", "heat");
        if (example == kernels::heat::name) return run<kernels::heat>(world, args);
        if (example == kernels::floyd_steinberg::name) return run<kernels::floyd_steinberg>(world, args);
        if (example == kernels::hydro::name) return run<kernels::hydro>(world, args);
        if (example == kernels::artificial::name) return run<kernels::artificial>(world, args);
        throw invalid_parameter("--example", example, "must be heat, floyd-steinberg, hydro or artificial");
    } catch (std::exception const& e) {
        std::cerr << "doacross (rank " << world.rank() << "): " << e.what() << '\n';
        return 1;
    }
}
