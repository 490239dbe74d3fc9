// The MPI test programs, one function each, linked into one executable
// (mpi_programs.cpp runs the one its first argument names).
#pragma once

namespace loopsched::testing {

int parallel_for_mpi_test(int argc, char** argv);
int parallel_for_doacross_mpi_test(int argc, char** argv);
int task_farm_mpi_test(int argc, char** argv);
int divide_and_conquer_mpi_test(int argc, char** argv);
int failure_mpi_test(int argc, char** argv);
int agreement_mpi_test(int argc, char** argv);

} // namespace loopsched::testing
