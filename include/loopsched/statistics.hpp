// What a loop run reports: per-worker computation, waiting and communication
// time, iterations and chunks (Chronopoulos et al.'s Tables 2 and 3), the parallel time,
// and optionally a trace of every chunk; and a divide-and-conquer worker's row.
#pragma once

#include <loopsched/config.hpp>
#include <loopsched/detail/arithmetic.hpp>

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace loopsched {

/// One rank's time in a loop. Computing, waiting and communicating add up to
/// no more than the rank's time from its first request to the master's stop;
/// in a loop of short chunks, some are estimated from sampled chunks and sends.
struct worker_statistics {
    int rank = 0;                 ///< the rank of the communicator
    double compute_seconds = 0.0; ///< in the loop body
    double wait_seconds = 0.0;    ///< blocked, waiting for the master's reply (from its first message: inside the loop)
    double comm_seconds = 0.0;    ///< sending requests
    index_t iterations = 0;       ///< iterations this rank ran
    index_t chunks = 0;           ///< chunks this rank ran
};

/// One chunk as it ran: on which rank, which iterations, and when (seconds
/// from the loop's start on the master's clock).
struct chunk_event {
    int rank = 0;       ///< the rank that ran it
    index_t first = 0;  ///< its first iteration
    index_t size = 0;   ///< how many iterations
    double start = 0.0; ///< when it started
    double end = 0.0;   ///< when it ended
    int level = 0; ///< 0: a worker's chunk; 1: a group's chunk from the root (hierarchical loops)
};

/// What a run measured, on every rank (the trace on the root only): T_p, a row
/// per worker, and what reissue, departures and failures did. `std::cout <<
/// stats` prints the table.
struct loop_statistics {
    double parallel_seconds = 0.0; ///< T_p, measured on the master
    std::vector<worker_statistics> workers; ///< one row per worker, by rank
    std::vector<chunk_event> trace{}; ///< every chunk, when tracing was asked for (root rank only)
    /// Hierarchical loops: one row per group, under its sub-master's rank (its
    /// workers' summed times; iterations and chunks as the root granted them).
    /// Empty for a flat loop. `workers` then holds every worker of every group.
    std::vector<worker_statistics> groups{};
    /// With reissue: copies of unfinished chunks granted to idle workers, and
    /// the grants (copies or originals) that finished second or were cancelled,
    /// whose results were dropped. Their iterations count in their workers' rows.
    std::uint64_t reissued = 0; ///< copies granted to idle workers
    std::uint64_t dropped = 0;  ///< grants whose results were dropped (second to finish, or cancelled)
    /// TreeS (`trees`): the times a worker gave half of what remained of its
    /// chunk to an idle partner. The iterations count where they ran.
    std::uint64_t partner_splits = 0;
    std::vector<int> departed{}; ///< ranks that left the loop (departure::leave), in rank order
    /// Ranks the master presumed lost (options.presumed_lost_after) or that
    /// failed (the MPI library said so: docs/failures.md), in rank order, on
    /// every rank still there. Their rows count the iterations they were
    /// granted, whoever finished them. Not empty: the next loop runs on
    /// loopsched::survivors(comm).
    std::vector<int> lost{};
    /// The scheme that ran, when the policy chooses among schemes (automatic:
    /// the candidate it chose for this execution); else empty. Root rank only.
    std::string scheme{};

    /// Iterations run, summed over the workers' rows.
    [[nodiscard]] index_t iterations() const {
        index_t n = 0;
        for (auto const& w : workers) n += w.iterations;
        return n;
    }
    /// Chunks run, summed over the workers' rows.
    [[nodiscard]] index_t chunks() const {
        index_t n = 0;
        for (auto const& w : workers) n += w.chunks;
        return n;
    }
};

/// One worker's share of a divide-and-conquer run.
struct dnc_worker_statistics {
    int rank = 0;               ///< the rank of the communicator
    /// Problems it handled (each solved, or divided and combined, here), inlined ones included.
    std::uint64_t nodes = 0;
    std::uint64_t tasks = 0;    ///< queued tasks it ran
    std::uint64_t inlined = 0;  ///< of those, run by direct recursion
    std::uint64_t given = 0;    ///< tasks it sent to other workers (start lists, transfers, steals)
    std::uint64_t received = 0; ///< tasks it got from the manager or other workers
    std::uint64_t steals = 0;   ///< steal requests it sent
    /// The most spilled problems (divided inside an inlined task's recursion)
    /// that waited for their subproblems at once, nested on its stack: at most
    /// the tree's depth + 1 (a waiting problem runs only tasks deeper than
    /// itself). Queued tasks divided here wait off the stack and do not count.
    std::uint64_t peak_waits = 0;
    double idle_seconds = 0.0; ///< blocked with nothing to run
};

/// Prints the table: one row per worker, then T_p (statistics.ipp).
LOOPSCHED_DECL std::ostream& operator<<(std::ostream& out, loop_statistics const& s);

} // namespace loopsched

#ifndef LOOPSCHED_COMPILED // else loopsched::compiled holds it (impl/compiled_core.ipp)
#include <loopsched/statistics.ipp>
#endif
