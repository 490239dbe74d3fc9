// How the library is built into a program: header-only (the default: every
// translation unit instantiates the engines it calls) or separately compiled
// (LOOPSCHED_COMPILED defined in every translation unit: the headers then only
// declare the engines over an erased transport, the entry points over MPI and
// the spec parser, and impl/compiled.ipp defines them once, as Asio's and fmt's
// separate compilation do; the CMake target loopsched::compiled is that file
// built as a static library and the macro set for its users).
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
