// A lambda is not a chunk policy: the error names the requirement it misses.
// expect: starts_a_chunk_state
#include <loopsched/loopsched.hpp>

int main() {
    auto not_a_policy = [](int n) { return n / 2; };
    loopsched::chunk_sequencer seq(not_a_policy, loopsched::loop_info{100, 4, {}});
}
