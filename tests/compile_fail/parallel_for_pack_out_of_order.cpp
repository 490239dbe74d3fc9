// parallel_for's trailing arguments in the wrong order (the options before
// gather): refused at compile time with the order spelled out, as
// parallel_for_doacross refuses its own.
// expect: after the body come gather<R>\{per_iteration\} \(to collect results on the root\) and the options, in
#include <loopsched/algorithm/parallel_for.hpp>
#include <loopsched/policy/fss.hpp>
#include <loopsched/space/box.hpp>
#include <loopsched/transport/in_process.hpp>

#include <span>

void f(loopsched::in_process::endpoint& t) {
    using namespace loopsched;
    (void)parallel_for(t, make_range(100), fss{}, [](index_range const&, std::span<double>) {},
                       parallel_for_options{}, gather<double>{1});
}
