// Compile-time policy experiments: the policies and the adaptors are Boost.Hana
// lists; every combination is instantiated as its own type (weighted<gss>,
// synchronized<weighted<tss>>, ...), runs on a simulated cluster, and the
// results are ranked in Markdown, CSV and an SVG chart.
//   policy_sweep --platform P --workload W [--output DIR]
// Adding a type to `policies` (or an adaptor to the lists) is the only change
// needed to include it.
#include "cli.hpp"
#include "progress.hpp"
#include "simulation.hpp"

#include <loopsched/policies.hpp>

#include <boost/hana.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <type_traits>

namespace hana = boost::hana;
using namespace loopsched;

namespace {

/// The policies: the library's whole catalogue (a hana::tuple_t of types).
/// A narrower experiment lists its own: hana::tuple_t<css, gss, tss, my_policy>.
constexpr auto policies = policy_catalogue;

// Adaptors: each turns a policy value into the policy that runs.
struct plain {
    static constexpr char const* name = "A";
    template <ChunkPolicy P>
    P operator()(P p) const {
        return p;
    }
};
struct weighting {
    static constexpr char const* name = "W-A";
    template <ChunkPolicy P>
    auto operator()(P p) const {
        return weighted(std::move(p));
    }
};
struct synchronizing {
    static constexpr char const* name = "S-A";
    template <ChunkPolicy P>
    auto operator()(P p) const {
        return synchronized(std::move(p));
    }
};
struct synchronizing_weighting {
    static constexpr char const* name = "SW-A";
    template <ChunkPolicy P>
    auto operator()(P p) const {
        return synchronized(weighted(std::move(p)));
    }
};
constexpr auto doall_adaptors = hana::make_tuple(plain{}, weighting{});
constexpr auto doacross_adaptors = hana::make_tuple(synchronizing{}, synchronizing_weighting{});

struct row {
    std::string policy, adaptor, spec;
    double seconds;
    index_t chunks;
};

} // namespace

int main(int argc, char** argv) try {
    examples::command_line line("policy_sweep",
                                "Every policy x adaptor combination (Boost.Hana lists, composed at compile time) on "
                                "one simulated platform and workload; writes a ranked table (sweep.md, sweep.csv).",
                                "policy_sweep --platform seed003-w --workload mandelbrot:size=300x200 --output sweep");
    std::string platform = "seed003-sw:m=8:loaded", workload = "mandelbrot:size=2000x1000:sf=4", output = "sweep";
    line.add_option("--platform", platform, "simulated platform (see simulate --help)")->capture_default_str();
    line.add_option("--workload", workload, "workload (see simulate --help)")->capture_default_str();
    line.add_option("--output", output, "directory for sweep.md and sweep.csv")
            ->capture_default_str()
            ->take_last(); // ./run passes one; the user's comes later
    if (auto code = line.parse(argc, argv)) return *code;
    std::filesystem::path const dir = output;
    std::filesystem::create_directories(dir);

    auto const w = examples::make_workload(workload);
    sim::simulator simulator(examples::make_platform(platform));
    std::vector<row> rows;
    auto sweep = [&](auto adaptors) {
        examples::progress shown("policy_sweep", hana::length(policies) * hana::length(adaptors));
        // The cartesian product of the two lists, unrolled at compile time.
        hana::for_each(hana::cartesian_product(hana::make_tuple(policies, adaptors)), [&](auto pair) {
            using policy_type = typename decltype(+hana::at_c<0>(pair))::type;
            auto const adaptor = hana::at_c<1>(pair);
            using adaptor_type = std::remove_cv_t<decltype(adaptor)>;
            // TreeS's partner splits would cut a pipeline's chunks: DOACROSS loops refuse it.
            if constexpr (requires { policy_type::splits_with_partners; } &&
                          (std::is_same_v<adaptor_type, synchronizing> ||
                           std::is_same_v<adaptor_type, synchronizing_weighting>)) {
                shown.next(std::string(policy_type::name) + " (DOALL loops only)");
                return;
            }
            auto const policy = adaptor(policy_type{});
            shown.next(policy.spec());
            // Each combination is its own type down to the engines, which
            // take every policy erased and so are compiled once, not per type.
            auto const r = examples::simulate(simulator, w, policy);
            rows.push_back({std::string(policy_type::name), decltype(adaptor)::name, policy.spec(), r.seconds,
                            r.statistics.chunks()});
        });
    };
    if (w.doacross())
        sweep(doacross_adaptors);
    else
        sweep(doall_adaptors);
    std::ranges::sort(rows, {}, &row::seconds);

    std::ofstream csv(dir / "sweep.csv");
    csv << "rank,policy,adaptor,spec,seconds,chunks\n";
    std::ofstream md(dir / "sweep.md");
    md << "# Policy sweep: `" << workload << "` on `" << platform << "`\n\n"
       << "Every policy of the catalogue under every adaptor, each combination its own type, on a simulated cluster. "
       << "Ranked by parallel time.\n\n| rank | policy | adaptor | spec | parallel time (s) | vs best | chunks "
          "|\n|---|---|---|---|---|---|---|\n";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        auto const& r = rows[i];
        csv << i + 1 << ',' << r.policy << ',' << r.adaptor << ',' << r.spec << ',' << r.seconds << ',' << r.chunks
            << '\n';
        md << "| " << i + 1 << " | " << r.policy << " | " << r.adaptor << " | `" << r.spec << "` | " << r.seconds
           << " | " << r.seconds / rows.front().seconds << "x | " << r.chunks << " |\n";
        std::cout << i + 1 << ". " << r.spec << "  " << r.seconds << " s\n";
    }
    md << "\n![ranked](sweep.svg)\n";

    // A horizontal bar per combination, best on top.
    double const longest = rows.back().seconds;
    int const bar_height = 16, left = 150, width = 720;
    std::ofstream svg(dir / "sweep.svg");
    svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\""
        << 40 + bar_height * rows.size()
        << "\" font-family=\"sans-serif\" font-size=\"11\"><rect width=\"100%\" height=\"100%\" fill=\"white\"/>"
        << "<text x=\"" << width / 2 << "\" y=\"18\" text-anchor=\"middle\" font-size=\"13\">parallel time (s), "
        << workload << " on " << platform << "</text>\n";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        auto const& r = rows[i];
        double const y = 30 + bar_height * static_cast<double>(i);
        double const len = (width - left - 60) * r.seconds / longest;
        char const* colour = r.adaptor == std::string("A") || r.adaptor == std::string("S-A") ? "#4e79a7" : "#f28e2b";
        svg << "<text x=\"" << left - 4 << "\" y=\"" << y + 11 << "\" text-anchor=\"end\">" << r.spec << "</text>"
            << "<rect x=\"" << left << "\" y=\"" << y + 2 << "\" width=\"" << len << "\" height=\"" << bar_height - 4
            << "\" fill=\"" << colour << "\"/><text x=\"" << left + len + 4 << "\" y=\"" << y + 11 << "\">" << r.seconds
            << "</text>\n";
    }
    svg << "</svg>\n";
    std::cout << "wrote " << (dir / "sweep.md").string() << ", sweep.csv and sweep.svg\n";
} catch (std::exception const& e) {
    std::cerr << "policy_sweep: " << e.what() << '\n';
    return 1;
}
