// Whether the MPI library has User-Level Failure Mitigation (LOOPSCHED_ULFM),
// and its declarations where it has: Open MPI 5's mpi-ext.h (MPICH declares
// them in mpi.h). Define LOOPSCHED_ULFM to 0 to build without it.
#pragma once

#include <mpi.h>

#ifndef LOOPSCHED_ULFM
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#ifdef MPIX_ERR_PROC_FAILED
#define LOOPSCHED_ULFM 1
#else
#define LOOPSCHED_ULFM 0
#endif
#elif LOOPSCHED_ULFM && __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
