// What the short-loop benchmarks (short_loops.cpp, masterless.cpp) share: the
// near-empty body, and DLS4LB's loop around it when built with DLS4LB's
// sources (benchmarks/short_loops.sh DIR; short_loops_dls4lb.c is the C side).
#pragma once

#if defined(LOOPSCHED_WITH_DLS4LB)
extern "C" {
void dls4lb_setup();
int dls4lb_method(char const* scheme);
double dls4lb_loop(int method, long long n, void (*body)(long long first, long long size));
}
#endif

namespace loopsched::benchmarks {

inline volatile long long sink = 0;

/// The loop's body: each iteration adds its index to a volatile (under a nanosecond).
inline void run_iterations(long long first, long long size) {
    for (long long i = first; i < first + size; ++i) sink = sink + i;
}

} // namespace loopsched::benchmarks
