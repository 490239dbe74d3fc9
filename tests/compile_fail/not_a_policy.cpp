// A lambda is not a chunk policy: the error names the requirement it misses
// (Clang names the concept, GCC the expression).
// expect: starts_a_chunk_state|p\.start\(info\)
#include <loopsched/schedule.hpp>

int main() {
    auto not_a_policy = [](int n) { return n / 2; };
    loopsched::chunk_sequencer<decltype(not_a_policy)> seq(not_a_policy, loopsched::loop_info{100, 4, {}});
}
