# What loopsched needs from its environment; shared by the build tree and the
# installed package so both find the same things.
include(CMakeFindDependencyMacro)
find_dependency(MPI COMPONENTS CXX)
find_dependency(Boost 1.74 CONFIG COMPONENTS headers mpi serialization)
find_dependency(range-v3 CONFIG)
