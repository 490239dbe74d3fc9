// loopsched::compiled: the spec parser (parse_policy, parse_hierarchy,
// policy_names), compiled once for every program that links the target (which
// defines LOOPSCHED_COMPILED, so that the headers declare what is defined
// here). The engines are in src/compiled_mpi.cpp and src/compiled_in_process.cpp.
#include <loopsched/detail/spec_catalogue.hpp>
