// quickstart: the README's first loop, compiled and run as a test so it stays true.
#include <loopsched/mpi/parallel_for.hpp>
#include <loopsched/spec.hpp>

#include <boost/mpi/environment.hpp>

#include <cmath>
#include <iostream>

using namespace loopsched;

int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    index_t const n = 100000;
    // Every rank calls it; the root (rank 0) hands out chunks and computes too.
    auto [y, stats] = parallel_for(
            world, make_range(n), parse_policy("dtss"),
            [](index_range const& part, std::span<double> out) {
                std::size_t j = 0;
                for (index_t i : part.indices()) out[j++] = std::sqrt(static_cast<double>(i));
            },
            gather<double>{}); // y: one value per iteration, in order, on the root
    if (world.rank() == 0) std::cout << stats << "y[99] = " << y[99] << '\n';
}
