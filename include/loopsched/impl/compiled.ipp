// The separately compiled library in one file, for builds without CMake's
// loopsched::compiled: include it in exactly one translation unit of the
// program, and compile every translation unit with LOOPSCHED_COMPILED defined
// (as Asio's separate compilation). The headers then only declare the engines,
// the entry points over MPI, the spec parser and the policy models, and this
// file defines them once.
//
//     // loopsched_library.cpp, compiled with -DLOOPSCHED_COMPILED like the rest
//     #include <loopsched/impl/compiled.ipp>
#pragma once

#ifndef LOOPSCHED_COMPILED
#error "loopsched/impl/compiled.ipp: define LOOPSCHED_COMPILED in every translation unit of the program (e.g. -DLOOPSCHED_COMPILED), this one included"
#endif

#include <loopsched/impl/compiled_core.ipp>
#include <loopsched/impl/compiled_engines.ipp>
#include <loopsched/impl/compiled_mpi.ipp>
