// A DOACROSS loop given a policy without the synchronization adaptor.
// expect: the policy needs the synchronization adaptor S; pass synchronized\(policy\)
#include <loopsched/algorithm/parallel_for_doacross.hpp>
#include <loopsched/dependence/uniform.hpp>
#include <loopsched/policy/tss.hpp>
#include <loopsched/transport/in_process.hpp>

void f(loopsched::in_process::endpoint& t) {
    using namespace loopsched;
    (void)parallel_for_doacross(t, box<2>::from_extents({4, 4}), uniform<vec{1, 0}, vec{0, 1}>{}, tss{},
                                make_field<double>([](auto const&) { return 0.0; }),
                                [](box<2> const&, window<double, 2>&) {});
}
