// A tally for the MPI test programs with no collective of its own: each rank
// checks what it saw, prints its failures, and exits non-zero if it had any,
// so a test passes only when every rank exits 0 (a collective between checks
// would hide the failures it synchronises away).
#pragma once

#include <iostream>
#include <string>

namespace loopsched::testing {

class tally {
public:
    explicit tally(int rank) : rank_(rank) {}

    void check(bool ok, std::string const& what) {
        if (ok) {
            ++passes_;
            return;
        }
        ++failures_;
        std::cerr << "rank " << rank_ << " FAILED: " << what << std::endl;
    }

    /// Prints this rank's closing line; the program's exit code.
    int finish() const {
        std::cout << "rank " << rank_ << ": " << passes_ << " passed, " << failures_ << " failed" << std::endl;
        return failures_ == 0 ? 0 : 1;
    }

private:
    int rank_;
    int passes_ = 0, failures_ = 0;
};

} // namespace loopsched::testing
