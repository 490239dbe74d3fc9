// One executable for the MPI test programs, so that their sources compile a
// few to a translation unit and share what they instantiate (tests/CMakeLists.txt):
// `loopsched_mpi_tests algorithm/task_farm` runs tests/algorithm/task_farm_mpi_test.cpp.
#include "mpi_programs.hpp"

#include <iostream>
#include <string_view>

int main(int argc, char** argv) {
    using namespace loopsched::testing;
    struct program {
        std::string_view name;
        int (*run)(int, char**);
    };
    static constexpr program programs[] = {{"algorithm/parallel_for", parallel_for_mpi_test},
                                           {"algorithm/parallel_for_doacross", parallel_for_doacross_mpi_test},
                                           {"algorithm/task_farm", task_farm_mpi_test},
                                           {"algorithm/divide_and_conquer", divide_and_conquer_mpi_test},
                                           {"runtime/core/failure", failure_mpi_test},
                                           {"runtime/core/agreement", agreement_mpi_test}};
    std::string_view const wanted = argc > 1 ? argv[1] : "";
    for (auto const& p : programs)
        if (p.name == wanted) return p.run(argc, argv);
    std::cerr << "loopsched_mpi_tests: no test program '" << wanted << "'; there are:";
    for (auto const& p : programs) std::cerr << ' ' << p.name;
    std::cerr << '\n';
    return 2;
}
