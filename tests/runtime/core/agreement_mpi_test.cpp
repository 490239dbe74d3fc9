// Arguments that differ across ranks, or fail on one rank only, and values at
// the edges of their types, over real MPI (1-4 ranks): every rank throws the
// same invalid_parameter naming what is wrong, nobody hangs, and the next loop
// runs. Edge values that are legal run to the right result.
#include "../../../examples/doacross_kernels.hpp"
#include "../../support/mpi_check.hpp"
#include "../../support/mpi_programs.hpp"

#include <loopsched/adaptor/synchronized.hpp>
#include <loopsched/any_policy.hpp>
#include <loopsched/concepts.hpp>
#include <loopsched/error.hpp>
#include <loopsched/mapping/mapping.hpp>
#include <loopsched/mpi/by_spec.hpp>
#include <loopsched/mpi/calibration.hpp>
#include <loopsched/mpi/parallel_for.hpp>
#include <loopsched/mpi/parallel_for_doacross.hpp>
#include <loopsched/options.hpp>
#include <loopsched/policies.hpp>
#include <loopsched/space/box.hpp>
#include <loopsched/spec.hpp>

#include <boost/mpi/environment.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

using namespace loopsched;

namespace {

/// Runs `loop`; the parameter its invalid_parameter names ("" if none).
std::string rejected(std::function<void()> const& loop) {
    try {
        loop();
    } catch (invalid_parameter const& e) {
        return e.parameter();
    } catch (error const& e) {
        return std::string("other error: ") + e.what();
    }
    return "";
}

} // namespace

int loopsched::testing::agreement_mpi_test(int argc, char** argv) {
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    int const ranks = world.size(), self = world.rank(), last = ranks - 1;
    bool const alone = ranks == 1; // one rank cannot disagree with itself
    testing::tally results(self);
    auto const nothing = [](index_range const&) {};
    auto expect = [&](std::string const& parameter, std::function<void()> const& loop, std::string const& what) {
        std::string const got = rejected(loop);
        results.check(got == parameter,
                      what + ": expected " + (parameter.empty() ? "success" : parameter) + ", got '" + got + "'");
        // The next loop on the same communicator runs, with no collective in between.
        auto after = parallel_for(world, make_range(500), parse_policy("gss"), nothing);
        results.check(after.statistics.iterations() == 500, what + ": the next loop runs");
    };

    if (!alone) {
        expect(
                "iterations", [&] { parallel_for(world, make_range(self == last ? 1001 : 1000), gss{}, nothing); },
                "a larger N on one rank");
        parallel_for_options other_root;
        other_root.root = self == last ? last : 0;
        expect(
                "options.root", [&] { parallel_for(world, make_range(100), gss{}, nothing, other_root); },
                "a different root");
        parallel_for_options other_root_first;
        other_root_first.root = self == 0 ? last : 0;
        expect(
                "options.root", [&] { parallel_for(world, make_range(100), gss{}, nothing, other_root_first); },
                "the coordinator names another root");
        expect(
                "gathered bytes per iteration",
                [&] {
                    parallel_for(
                            world, make_range(100), gss{}, [](index_range const&, std::span<double>) {},
                            gather<double>{self == last ? 2u : 1u});
                },
                "a different gather size");
        expect(
                "policy",
                [&] {
                    parallel_for(world, make_range(100), self == last ? parse_policy("fss") : parse_policy("gss"),
                                 nothing);
                },
                "a different policy");
        expect(
                "mapping",
                [&] {
                    if (self == last)
                        parallel_for(world, make_range(100), gss{}, static_cyclic_mapping{}, nothing);
                    else
                        parallel_for(world, make_range(100), gss{}, nothing);
                },
                "a static mapping on one rank only");
        parallel_for_options flags;
        flags.master_computes = self != last;
        expect(
                "options.master_computes", [&] { parallel_for(world, make_range(100), gss{}, nothing, flags); },
                "master_computes on some ranks");
        expect(
                "algorithm",
                [&] {
                    if (self == last)
                        (void)kernels::run<kernels::heat>(world, box<2>::from_extents({10, 10}), parse_policy("s-tss"));
                    else
                        parallel_for(world, make_range(100), gss{}, nothing);
                },
                "a DOACROSS loop on one rank, a DOALL loop on the others");
        expect(
                "iteration space",
                [&] {
                    (void)kernels::run<kernels::heat>(world, box<2>::from_extents({20, self == last ? 31 : 30}),
                                                      parse_policy("s-tss"));
                },
                "DOACROSS extents differ");
        expect(
                "gathered bytes per iteration",
                [&] {
                    (void)kernels::run<kernels::heat>(world, box<2>::from_extents({20, 30}), parse_policy("s-tss"), {},
                                                      self != last);
                },
                "gather<>{} on some ranks of a DOACROSS loop only");
    }
    // Invalid on one rank only: that rank's check names it everywhere.
    parallel_for_options powers;
    powers.powers.assign(static_cast<std::size_t>(ranks), 1.0);
    if (self == last) powers.powers[0] = -1.0;
    expect(
            "options.powers[0]", [&] { parallel_for(world, make_range(100), gss{}, nothing, powers); },
            "a negative power on one rank");
    // A spec that parses on some ranks only (read from a per-rank file, say):
    // the spec is parsed inside the loop, so every rank throws its spec_error.
    {
        std::string got;
        try {
            parallel_for(world, make_range(100),
                         self == last ? std::string_view("fss:alpha=nope") : std::string_view("fss"), nothing);
        } catch (spec_error const& e) {
            got = e.what();
        }
        results.check(got.find("alpha") != std::string::npos,
                      "a spec that does not parse on one rank: got '" + got + "'");
        results.check(parallel_for(world, make_range(500), "gss", nothing).statistics.iterations() == 500,
                      "the loop after a bad spec runs");
    }

    // Values at the edges.
    expect(
            "gather per_iteration",
            [&] {
                parallel_for(
                        world, make_range(100), gss{}, [](index_range const&, std::span<double>) {},
                        gather<double>{std::size_t{1} << 61});
            },
            "a gather size the buffer cannot hold");
    parallel_for_options forever;
    forever.poll_interval = std::numeric_limits<double>::infinity();
    expect(
            "options.poll_interval", [&] { parallel_for(world, make_range(100), gss{}, nothing, forever); },
            "poll_interval = inf");
    parallel_for_options huge;
    huge.powers.assign(static_cast<std::size_t>(ranks), 1.0);
    huge.powers[0] = 1e300;
    expect(
            "options.powers[0]", [&] { parallel_for(world, make_range(100), gss{}, nothing, huge); },
            "a power of 1e300");
    huge.powers[0] = std::nan("");
    expect(
            "options.powers[0]", [&] { parallel_for(world, make_range(100), gss{}, nothing, huge); }, "a power of NaN");

    // The largest loop there is, statically split: every rank gets its block,
    // the blocks cover [0, 2^63 - 1) once (the bodies only add up sizes).
    index_t const most = std::numeric_limits<index_t>::max();
    index_t mine = 0;
    auto big = parallel_for(world, make_range(most), static_schedule{}, static_block_mapping{},
                            [&](index_range const& part) { mine += part.size(); });
    results.check(big.statistics.iterations() == most && mine > 0, "N = 2^63 - 1 split statically");
    index_t dynamic = 0;
    auto big_dynamic = parallel_for(world, make_range(most), static_schedule{},
                                    [&](index_range const& part) { dynamic += part.size(); });
    results.check(big_dynamic.statistics.iterations() == most, "N = 2^63 - 1 scheduled dynamically");

    // DOACROSS with h and the input halo at their largest: one tile per chunk, right results.
    auto const space = box<2>::from_extents({40, 30});
    auto const expected = kernels::raw_bytes(kernels::sequential<kernels::heat>(space));
    auto h_max =
            kernels::run<kernels::heat>(world, space, any_policy(synchronized(css(3), sync_interval::fixed(most))));
    results.check(self != 0 || kernels::raw_bytes(h_max.value) == expected, "DOACROSS with h = 2^63 - 1");
    doacross_options halo;
    halo.input_halo = most;
    auto halo_max = kernels::run<kernels::heat>(world, space, parse_policy("s-css:chunk=3,h=5"), halo);
    results.check(self != 0 || kernels::raw_bytes(halo_max.value) == expected, "DOACROSS with input_halo = 2^63 - 1");

    // measure_powers with disagreeing roots.
    if (!alone) {
        std::string const got = rejected([&] { (void)measure_powers(world, self == last ? 1 : 0); });
        results.check(got == "options.root", "measure_powers with different roots: got '" + got + "'");
    }
    return results.finish();
}
