// How a rank takes part in a loop: the settings every rank derives alike (who
// works, the root, the modes), and this rank's own profile (its power, its
// run queue, its emulated slowness).
#pragma once

#include <loopsched/detail/small_vector.hpp>
#include <loopsched/request.hpp>
#include <loopsched/runtime/core/load.hpp>

#include <chrono>
#include <cstddef>
#include <limits>
#include <optional>
#include <thread>

namespace loopsched {
class departure;
} // namespace loopsched

namespace loopsched::detail {

/// What every rank knows about how the loop runs.
struct runtime_settings {
    // Inline up to 16 ranks: back-to-back short loops should not allocate for them.
    boost::container::small_vector<int, 16> worker_ranks;  ///< rank of worker index k
    boost::container::small_vector<int, 16> index_of_rank; ///< worker index of each rank, -1 if it does not work
    int root = 0;
    int own_index = -1;          ///< the master's worker index if it computes, else -1
    double poll_interval = 2e-5; ///< seconds the computing master works before it looks for messages
    /// The least time between two looks for messages on the root (a look costs
    /// as much as a short step's own bookkeeping).
    [[nodiscard]] double probe_gap() const noexcept { return poll_interval / 16; }
    double request_ahead = 0.0;  ///< ask for the next chunk when this fraction of the current one remains
    bool deterministic = false;
    bool trace = false;
    bool reissue = false; ///< DOALL: copies of unfinished chunks for idle workers (parallel_for_options::reissue)
    bool departures = false;            ///< DOALL: workers may leave (parallel_for_options::departures)
    bool partner_splits = false;        ///< DOALL: idle workers take half of a partner's chunk (TreeS)
    bool masterless = false;            ///< DOALL: ranks claim steps through a shared counter (parallel_for_options::masterless)
    departure const* leaving = nullptr; ///< DOALL: this rank's departure, if it may leave
    /// Seconds after which the master presumes lost a worker it expects to hear
    /// from (parallel_for_options::presumed_lost_after); infinity: never.
    double silence = std::numeric_limits<double>::infinity();
    [[nodiscard]] bool detects_failures() const noexcept { return silence < std::numeric_limits<double>::infinity(); }
    std::size_t result_bytes = 0; ///< bytes of results per iteration (0: nothing gathered)

    [[nodiscard]] std::size_t workers() const noexcept { return worker_ranks.size(); }
    /// Worker index of `rank`, or -1.
    [[nodiscard]] int index_of(int rank) const noexcept {
        return rank >= 0 && static_cast<std::size_t>(rank) < index_of_rank.size()
                       ? index_of_rank[static_cast<std::size_t>(rank)]
                       : -1;
    }
};

/// Emulated heterogeneity: after each piece of work, sleep `slowdown` times
/// its compute time (sleep, not spin, so ranks sharing cores do not steal CPU).
/// A sleep overshoots (timer slack, an idle virtual CPU woken late): measured
/// here, 0.4 ms sleeps took up to 3 ms, which made a "half speed" rank run at a
/// fifth with sub-millisecond subchunks. The overshoot is carried as credit
/// against the next sleeps, so the average speed is the one asked for whatever
/// the grain.
class emulated_slowness {
public:
    explicit emulated_slowness(double slowdown = 0.0) noexcept : slowdown_(slowdown) {}
    [[nodiscard]] double slowdown() const noexcept { return slowdown_; }

    void after(double compute_seconds) {
        if (slowdown_ <= 0.0) return;
        owed_ += compute_seconds * slowdown_;
        if (owed_ <= 0.0) return;
        auto const start = std::chrono::steady_clock::now();
        std::this_thread::sleep_for(std::chrono::duration<double>(owed_));
        owed_ -= std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }

private:
    double slowdown_ = 0.0;
    double owed_ = 0.0; ///< seconds still to sleep; negative: slept ahead
};

/// This rank's status as it reports it with each request, and how it runs a chunk.
struct rank_profile {
    double power = 1.0;              ///< V_k
    std::optional<double> run_queue; ///< Q_k given by the user; else read from the OS
    bool read_os_load = true;
    emulated_slowness slowness; ///< emulated heterogeneity: sleeps after each piece of work

    /// The status at time `now`: Q_k read again if the last reading is older than the monitor's interval.
    worker_status status(double now) const {
        return {power, run_queue ? *run_queue : (read_os_load ? monitor().current(now) : 1.0)};
    }
    /// The status without reading the clock: the last reading of Q_k (taken now if there is none).
    worker_status status() const { return {power, run_queue ? *run_queue : (read_os_load ? monitor().latest() : 1.0)}; }

    /// Runs `work()`, then sleeps as this rank's emulated slowness asks.
    template <class Work>
    void run(Work&& work) {
        if (slowness.slowdown() <= 0.0) return work();
        auto const start = std::chrono::steady_clock::now();
        work();
        slowness.after(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }

private:
    // One monitor per thread (per rank), kept across loops: back-to-back short
    // loops should not each pay for reading /proc/stat.
    static run_queue_monitor& monitor() {
        thread_local constinit run_queue_monitor m{0.01};
        return m;
    }
};

/// The model time a deterministic run reports instead of a measurement, so that
/// adaptive policies see the same input on every run.
inline chunk_timing modelled_timing(index_t size, double power) {
    double const t = static_cast<double>(size) * 1e-6 / power;
    return {size, t, t};
}

} // namespace loopsched::detail
