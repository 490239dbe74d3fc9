# What loopsched needs from its environment; shared by the build tree and the
# installed package so both find the same things. MPI and Boost.MPI serve
# loopsched::loopsched only: a user of loopsched::core needs neither.
include(CMakeFindDependencyMacro)
find_dependency(Boost 1.74 CONFIG COMPONENTS headers serialization)
find_dependency(range-v3 CONFIG)
find_package(MPI QUIET COMPONENTS CXX)
find_package(Boost 1.74 QUIET CONFIG COMPONENTS mpi)
