// Whether the MPI library has User-Level Failure Mitigation (LOOPSCHED_ULFM),
// and its declarations where it has: MPICH's mpi.h, or Open MPI's mpi-ext.h
// from version 5 (4.1's has no ULFM, and parsing it costs every translation
// unit). Define LOOPSCHED_ULFM to 0 to build without it.
#pragma once

// mpi.h through Boost.MPI, which keeps Open MPI's C++ bindings out (parsing
// them costs every translation unit).
#include <boost/mpi/config.hpp>

#if (!defined(LOOPSCHED_ULFM) || LOOPSCHED_ULFM) && !defined(MPIX_ERR_PROC_FAILED) && defined(OPEN_MPI) && \
        OMPI_MAJOR_VERSION >= 5 && __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#ifndef LOOPSCHED_ULFM
#ifdef MPIX_ERR_PROC_FAILED
#define LOOPSCHED_ULFM 1
#else
#define LOOPSCHED_ULFM 0
#endif
#endif
