// A type-erasing wrapper's converting constructor asks its argument's concept
// without recursing through the wrapper itself, and says which it misses.
// expect: ChunkPolicy
#include <loopsched/any_policy.hpp>

int main() {
    loopsched::any_policy p(42);
    (void)p;
}
