// The weighting adaptor only wraps chunk policies.
// expect: ChunkPolicy
#include <loopsched/loopsched.hpp>

int main() {
    loopsched::weighted<double> w;
    (void)w;
}
