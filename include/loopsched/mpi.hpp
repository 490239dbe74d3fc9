// Every algorithm over a Boost.MPI communicator (the world or any
// sub-communicator). Each runs over the library's own duplicate of the
// communicator, made at its first loop and kept with it, so no user message
// reaches a loop and nothing of one loop reaches another. A translation unit
// that runs one algorithm compiles faster with its own header alone:
// <loopsched/mpi/parallel_for.hpp>, .../parallel_for_doacross.hpp,
// .../task_farm.hpp, .../divide_and_conquer.hpp, .../by_spec.hpp (policies as
// spec strings), .../calibration.hpp (measure_powers), .../survivors.hpp (the
// communicator after a rank failed).
#pragma once

#include <loopsched/mpi/by_spec.hpp>
#include <loopsched/mpi/calibration.hpp>
#include <loopsched/mpi/divide_and_conquer.hpp>
#include <loopsched/mpi/parallel_for.hpp>
#include <loopsched/mpi/parallel_for_doacross.hpp>
#include <loopsched/mpi/survivors.hpp>
#include <loopsched/mpi/task_farm.hpp>
#include <loopsched/serialization.hpp>
