// The weighting adaptor only wraps chunk policies.
// expect: ChunkPolicy
#include <loopsched/adaptor/weighted.hpp>

int main() {
    loopsched::weighted<double> w;
    (void)w;
}
