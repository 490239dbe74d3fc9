// Uses the installed package without MPI (loopsched::core): picks a scheme by
// name and prints its schedule.
#include <loopsched/schedule.hpp>
#include <loopsched/spec.hpp>

#include <iostream>

int main() {
    auto policy = loopsched::parse_policy("gss:min=2");
    auto schedule = loopsched::round_robin_schedule(policy, loopsched::loop_info{100, 4, {}});
    loopsched::index_t covered = 0;
    for (auto const& a : schedule) covered += a.range.size;
    std::cout << policy.spec() << ": " << schedule.size() << " chunks, " << covered << " iterations\n";
    return covered == 100 ? 0 : 1;
}
