/* short_loops' side of DLS4LB: its loop around a body, in C, so that DLS.h's
   macros (min, max, SS, GSS, ...) stay out of the C++ benchmark. Built only by
   benchmarks/short_loops.sh, with DLS4LB's own DLS.c from the directory given. */
#include <mpi.h>

#include "DLS.h"

static infoDLS info;

void dls4lb_setup(void) { DLS_Setup(MPI_COMM_WORLD, &info); }

/* DLS4LB's method number for a scheme name, or -1 (no DTSS there; FSS is its factoring). */
int dls4lb_method(char const* scheme) {
    if (strcmp(scheme, "gss") == 0) return GSS;
    if (strcmp(scheme, "tss") == 0) return TSS;
    if (strcmp(scheme, "fss") == 0) return FAC;
    if (strcmp(scheme, "ss") == 0) return SS;
    return -1;
}

/* One loop of n iterations (0-based for the body); seconds on this rank. */
double dls4lb_loop(int method, long long n, void (*body)(long long first, long long size)) {
    double const begin = MPI_Wtime();
    DLS_StartLoop(&info, 1, (int)n, method);
    while (!DLS_Terminated(&info)) {
        int start = 0, size = 0;
        DLS_StartChunk(&info, &start, &size);
        body(start - 1, size);
        DLS_EndChunk(&info);
    }
    int iterations = 0;
    double seconds = 0.0;
    DLS_EndLoop(&info, &iterations, &seconds);
    return MPI_Wtime() - begin;
}
