// Uses the installed package over MPI (loopsched::loopsched): a gathering
// parallel_for on every rank, its values checked on the root.
#include <loopsched/mpi/parallel_for.hpp>
#include <loopsched/policy/fss.hpp>

#include <boost/mpi/environment.hpp>

#include <iostream>

int main(int argc, char** argv) {
    boost::mpi::environment env(argc, argv);
    boost::mpi::communicator world;
    auto [squares, stats] = loopsched::parallel_for(
            world, loopsched::make_range(1000), loopsched::fss{},
            [](loopsched::index_range const& part, std::span<long> out) {
                std::size_t j = 0;
                for (loopsched::index_t i : part.indices()) out[j++] = i * i;
            },
            loopsched::gather<long>{});
    if (world.rank() != 0) return 0;
    for (loopsched::index_t i = 0; i < 1000; ++i)
        if (squares[static_cast<std::size_t>(i)] != i * i) return 1;
    std::cout << "parallel_for over " << world.size() << " ranks: " << stats.chunks() << " chunks, every square right\n";
    return 0;
}
