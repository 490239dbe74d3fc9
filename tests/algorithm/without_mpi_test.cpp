// The generic algorithms need neither mpi.h nor an MPI library: this program is
// built against loopsched::core alone (no MPI include path, nothing of MPI
// linked) and runs a DOALL and a DOACROSS loop on the in-process transport.
#include <loopsched/algorithm/by_spec.hpp>
#include <loopsched/algorithm/parallel_for.hpp>
#include <loopsched/algorithm/parallel_for_doacross.hpp>
#include <loopsched/dependence/uniform.hpp>
#include <loopsched/runtime/core/calibration.hpp>
#include <loopsched/transport/in_process.hpp>

#include <cstdio>
#include <vector>

using namespace loopsched;

int main() {
    std::vector<int> seen(1000, 0);
    double corner = 0.0;
    in_process::run(3, [&](in_process::endpoint& t) {
        parallel_for(t, make_range(1000), "fss", [&](index_range const& part) {
            for (index_t i : part.indices()) ++seen[static_cast<std::size_t>(i)];
        });
        auto r = parallel_for_doacross(t, box<2>::from_extents({20, 30}), uniform<vec{1, 0}, vec{0, 1}>{}, "s-tss",
                                       make_field<double>([](box<2>::point const&) { return 1.0; }),
                                       [](box<2> const& part, window<double, 2>& a) {
                                           for (index_t i : part.indices(0))
                                               for (index_t j : part.indices(1))
                                                   a(i, j) = (i > 0 ? a(i - 1, j) : 0.0) + (j > 0 ? a(i, j - 1) : 0.0) +
                                                             1.0;
                                       },
                                       gather<>{});
        if (t.rank() == 0) corner = r.array()(19, 29);
        (void)measure_powers(t);
    });
    for (int s : seen)
        if (s != 1) return 1;
    std::printf("without MPI: every iteration once, corner %g\n", corner);
    return corner > 0.0 ? 0 : 1;
}
