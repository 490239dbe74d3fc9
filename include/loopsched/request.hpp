// What a chunk policy is told: the loop at start, and each worker's request.
#pragma once

#include <loopsched/detail/arithmetic.hpp>
#include <loopsched/error.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace loopsched {

/// A worker's computing state as Chronopoulos et al. and Ciorba model it.
struct worker_status {
    double power = 1.0;     ///< virtual power V_k, relative to the other workers
    double run_queue = 1.0; ///< processes in the run queue, Q_k >= 1 (the loop's own process counts)

    friend bool operator==(worker_status const&, worker_status const&) = default;
};

/// Timing of the chunk a worker finished before this request (size 0: none yet).
struct chunk_timing {
    index_t size = 0;
    double compute_seconds = 0.0; ///< time spent in the loop body
    double elapsed_seconds = 0.0; ///< from receiving the chunk to asking again (body plus overhead)
};

/// One request for work.
struct request {
    std::size_t worker = 0;
    worker_status status{};
    chunk_timing last{};
};

/// The loop a policy is started on.
struct loop_info {
    index_t iterations = 0;
    std::size_t workers = 1;
    /// Initial status of every worker; empty means every worker has V = 1, Q = 1.
    std::vector<worker_status> status{};

    [[nodiscard]] worker_status of(std::size_t worker) const {
        return status.empty() ? worker_status{} : status.at(worker);
    }
};

namespace detail {

inline void validate(worker_status const& s, std::size_t worker) {
    if (s.power > 0.0 && s.run_queue >= 1.0) [[likely]]
        return; // checked on every request: no string is built unless it fails
    std::string const who = "worker[" + std::to_string(worker) + "]";
    require(s.power > 0.0, who + ".power", s.power, "virtual power must be > 0");
    require(s.run_queue >= 1.0, who + ".run_queue", s.run_queue, "run-queue length must be >= 1");
}

inline void validate(loop_info const& info) {
    require(info.iterations >= 0, "iterations", info.iterations, "must be >= 0");
    require(info.workers >= 1, "workers", info.workers, "must be >= 1");
    require(info.status.empty() || info.status.size() == info.workers, "status.size()", info.status.size(),
            "must be 0 or equal to workers");
    for (std::size_t k = 0; k < info.status.size(); ++k) validate(info.status[k], k);
}

inline void validate(request const& r, loop_info const& info) {
    require(r.worker < info.workers, "request.worker", r.worker, "must be < workers");
    validate(r.status, r.worker);
    require(r.last.size >= 0, "request.last.size", r.last.size, "must be >= 0");
}

} // namespace detail
} // namespace loopsched
