// The options of the algorithms: loop_options holds what every algorithm shares
// (who is the master, whether it computes, the workers' powers and loads, the
// run modes); each algorithm's options derive from it and add their own.
#pragma once

#include <loopsched/detail/arithmetic.hpp>

#include <cstddef>
#include <optional>
#include <vector>

namespace loopsched {

struct loop_options {
    int root = 0;                 ///< the master's rank
    bool master_computes = true;  ///< the master also works, between serving requests
    double poll_interval = 2e-5;  ///< seconds a computing master works before it looks for requests
    std::vector<double> powers{}; ///< virtual power V of each rank, in [1e-9, 1e9] (empty: all 1; see measure_powers)
    std::vector<double> run_queues{}; ///< run-queue length Q of each rank, in [1, 1e9] (empty: read from the OS)
    bool read_os_load = true;         ///< with run_queues empty: Q from /proc/stat, else Q = 1
    bool emulate_powers = false;      ///< rank k sleeps (V_max/V_k - 1) x its compute time after each piece of work
    bool deterministic = false;       ///< same assignment of work to workers on every run (see docs)
    bool trace = false;               ///< record every piece of work in the statistics' trace on the root
};

/// parallel_for's options.
struct parallel_for_options : loop_options {
    std::size_t dimension = 0;  ///< the dimension the space is cut along
    double request_ahead = 0.0; ///< ask for the next chunk when this fraction of the current one remains (0: off)
};

/// parallel_for_doacross's options.
struct doacross_options : loop_options {
    /// u_c, the dimension chunks are cut along, with sync_dimension, or neither
    /// (then the library chooses a legal pair).
    std::optional<std::size_t> dimension;
    std::optional<std::size_t> sync_dimension; ///< u_s, the dimension synchronization points go along
    /// How far past the point it computes, along u_c and along u_s, the body
    /// reads values from before the loop (anti-dependences, e.g. Heat's
    /// A[i+1][j] and A[i][j+1]: 1). Other reads must follow the dependences.
    index_t input_halo = 0;
    bool gather = true; ///< collect every field on the root; false: each rank sees its chunks only in the body
    /// A rank stalled on a slower predecessor while it holds the newest chunk
    /// takes the next chunk too, joined to its own (work while waiting). The
    /// S mechanism alone hands chunks out in turn, so with two ranks the fast
    /// one gets no more work than the slow one; this lets it. False: the
    /// documents' protocol exactly (one chunk at a time).
    bool extend_when_waiting = true;
};

} // namespace loopsched
