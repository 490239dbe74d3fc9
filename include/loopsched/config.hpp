// How the library is built into a program: header-only (the default: every
// translation unit instantiates the engines it calls) or separately compiled
// (the CMake target loopsched::compiled defines LOOPSCHED_COMPILED; its
// sources, src/compiled_engines.cpp, src/compiled_mpi.cpp and src/compiled.cpp,
// hold the engines over an erased transport, the entry points over MPI and the
// spec parser, and the headers then only declare them, as Asio's and fmt's do).
#pragma once

#ifdef LOOPSCHED_COMPILED
#define LOOPSCHED_DECL
#else
#define LOOPSCHED_DECL inline
#endif

namespace loopsched::detail {
/// Whether this program links loopsched::compiled (its engines and policy models).
#ifdef LOOPSCHED_COMPILED
inline constexpr bool library_compiled = true;
#else
inline constexpr bool library_compiled = false;
#endif
} // namespace loopsched::detail
