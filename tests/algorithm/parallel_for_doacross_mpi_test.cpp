// parallel_for_doacross over real MPI (ctest runs it under mpiexec with 1, 2,
// 3 and 4 ranks): the four test problems byte-identical to their sequential
// loops for several policies and intervals, a dedicated master, another root,
// a sub-communicator, size-1 communicators, a slow rank and the error paths.
#include "../../examples/doacross_kernels.hpp"
#include "../support/mpi_check.hpp"
#include "../support/mpi_programs.hpp"

#include <loopsched/adaptor/synchronized.hpp>
#include <loopsched/dependence/uniform.hpp>
#include <loopsched/error.hpp>
#include <loopsched/mapping/doacross_mapping.hpp>
#include <loopsched/mpi/parallel_for_doacross.hpp>
#include <loopsched/options.hpp>
#include <loopsched/placement_spec.hpp>
#include <loopsched/space/box.hpp>
#include <loopsched/space/window.hpp>
#include <loopsched/spec.hpp>

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/environment.hpp>

#include <chrono>
#include <iostream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace loopsched;

namespace {

/// Runs K on `comm`; the root's fields must equal the sequential loop's bytes.
template <class K>
bool same_as_sequential(boost::mpi::communicator const& comm, box<K::rank> const& space, std::string const& spec,
                        doacross_options options = {}) {
    auto r = kernels::run<K>(comm, space, parse_policy(spec), options);
    if (comm.rank() != options.root) return r.statistics.iterations() > 0;
    return kernels::raw_bytes(r.value) == kernels::raw_bytes(kernels::sequential<K>(space));
}

/// The same under a static mapping (Ciorba's SDS or a chain mapping): no master deals.
template <class K>
bool mapped_as_sequential(boost::mpi::communicator const& comm, box<K::rank> const& space,
                          doacross_mapping const& mapping, doacross_options options = {}) {
    auto r = kernels::run<K>(comm, space, mapping, options);
    if (comm.rank() != options.root) return true;
    return kernels::raw_bytes(r.value) == kernels::raw_bytes(kernels::sequential<K>(space)) &&
           (comm.size() == 1 || r.statistics.iterations() == space.size());
}

} // namespace

int loopsched::testing::parallel_for_doacross_mpi_test(int argc, char** argv) {
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    testing::tally results(world.rank());

    for (std::string spec : {"s-css", "s-tss:h=4", "sw-gss:h=auto", "dmps-dtss:h=7", "s-fss:h=1", "s-af:h=3m"}) {
        results.check(same_as_sequential<kernels::heat>(world, box<2>::from_extents({60, 90}), spec), "heat " + spec);
        results.check(same_as_sequential<kernels::floyd_steinberg>(world, box<2>::from_extents({70, 50}), spec),
                      "floyd-steinberg " + spec);
        results.check(same_as_sequential<kernels::hydro>(world, box<3>::from_extents({30, 5, 40}), spec),
                      "hydro " + spec);
        results.check(same_as_sequential<kernels::artificial>(world, box<2>::from_extents({64, 64}), spec),
                      "artificial " + spec);
    }
    for (char const* name : {"sds", "cyclic", "cps", "acs"}) {
        auto const m = parse_doacross_mapping(name);
        std::string const what = std::string(" under ") + name;
        results.check(mapped_as_sequential<kernels::heat>(world, box<2>::from_extents({60, 90}), m), "heat" + what);
        results.check(mapped_as_sequential<kernels::floyd_steinberg>(world, box<2>::from_extents({70, 50}), m),
                      "floyd-steinberg" + what);
        results.check(mapped_as_sequential<kernels::hydro>(world, box<3>::from_extents({30, 5, 40}), m), "hydro" + what);
        results.check(mapped_as_sequential<kernels::artificial>(world, box<2>::from_extents({64, 64}), m),
                      "artificial" + what);
    }
    // Tiles over the transport's eager size, a dedicated master, the last rank as root.
    doacross_options dedicated_last;
    dedicated_last.master_computes = false;
    dedicated_last.root = world.size() - 1;
    results.check(mapped_as_sequential<kernels::heat>(world, box<2>::from_extents({1200, 900}),
                                                      parse_doacross_mapping("sds", {300, 300}), dedicated_last),
                  "heat under sds, large tiles, dedicated last root");

    // Large communication sets (over the transport's eager size) and many chunks.
    results.check(same_as_sequential<kernels::heat>(world, box<2>::from_extents({2000, 200}), "s-css:chunk=7,h=500"),
                  "heat, large sets");

    doacross_options dedicated;
    dedicated.master_computes = false;
    results.check(
            same_as_sequential<kernels::floyd_steinberg>(world, box<2>::from_extents({80, 60}), "s-tss:h=5", dedicated),
            "dedicated master");
    doacross_options last_root;
    last_root.root = world.size() - 1;
    results.check(same_as_sequential<kernels::hydro>(world, box<3>::from_extents({25, 5, 30}), "sw-fss", last_root),
                  "last rank as root");

    // The last rank emulated at a fifth of the speed: the ranks stalled behind
    // it join the next chunk to theirs (and with skew); results stay exact.
    doacross_options slow_last;
    slow_last.powers.assign(static_cast<std::size_t>(world.size()), 1.0);
    slow_last.powers.back() = 0.2;
    slow_last.emulate_powers = true;
    results.check(
            same_as_sequential<kernels::heat>(world, box<2>::from_extents({300, 120}), "s-css:chunk=6,h=10", slow_last),
            "heat, a slow rank");
    results.check(same_as_sequential<kernels::floyd_steinberg>(world, box<2>::from_extents({120, 200}),
                                                               "s-css:chunk=6,h=8", slow_last),
                  "floyd-steinberg, a slow rank");

    // Size-1 communicators run the loop locally.
    boost::mpi::communicator self = world.split(world.rank());
    results.check(same_as_sequential<kernels::artificial>(self, box<2>::from_extents({40, 40}), "s-tss"),
                  "size-1 communicator");

    // A sub-communicator: even and odd ranks run separate loops at the same time.
    boost::mpi::communicator half = world.split(world.rank() % 2);
    results.check(same_as_sequential<kernels::heat>(half, box<2>::from_extents({50, 70}), "s-gss:h=6"),
                  "sub-communicator");

    // A body that throws on the last rank: every rank throws remote_error naming it.
    int origin = -1;
    std::string what;
    try {
        (void)parallel_for_doacross(world, box<2>::from_extents({200, 200}), uniform<vec{1, 0}, vec{0, 1}>{},
                                    parse_policy("s-css:chunk=5,h=20"),
                                    make_field<double>([](auto const&) { return 1.0; }),
                                    [&](box<2> const&, window<double, 2>&) {
                                        std::this_thread::sleep_for(std::chrono::microseconds(300));
                                        if (world.rank() == world.size() - 1) throw std::runtime_error("boom");
                                    },
                                    gather<>{});
    } catch (remote_error const& e) {
        origin = e.origin_rank();
        what = e.original_message();
    }
    results.check(origin == world.size() - 1 && what == "boom", "remote_error on every rank");

    // A policy without S is refused on every rank before any message.
    bool refused = false;
    try {
        (void)kernels::run<kernels::heat>(world, box<2>::from_extents({10, 10}), parse_policy("gss"));
    } catch (invalid_parameter const&) {
        refused = true;
    }
    results.check(refused, "policy without S refused");

    // The communicator is still usable after the failure.
    results.check(same_as_sequential<kernels::heat>(world, box<2>::from_extents({30, 30}), "s-tss"),
                  "loop after a failure");

    return results.finish();
}
