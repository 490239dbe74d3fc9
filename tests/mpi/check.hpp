// A tally for the MPI test programs: every rank must agree on each check, and
// rank 0 prints the closing "N passed, N failed" line ctest looks for.
#pragma once

#include <boost/mpi/collectives.hpp>
#include <boost/mpi/communicator.hpp>

#include <functional>
#include <iostream>
#include <string>

namespace loopsched::testing {

class tally {
public:
    explicit tally(boost::mpi::communicator world) : world_(std::move(world)) {}

    void check(bool ok, std::string const& what) {
        // All ranks take part, so all report the same verdict.
        bool const all = boost::mpi::all_reduce(world_, ok, std::logical_and<bool>());
        if (all) ++passes_;
        else {
            ++failures_;
            if (world_.rank() == 0) std::cerr << "FAILED: " << what << '\n';
        }
    }

    /// Prints the closing line on rank 0; the program's exit code.
    int finish() const {
        if (world_.rank() == 0) std::cout << passes_ << " passed, " << failures_ << " failed\n";
        return failures_ == 0 ? 0 : 1;
    }

private:
    boost::mpi::communicator world_;
    int passes_ = 0, failures_ = 0;
};

} // namespace loopsched::testing
