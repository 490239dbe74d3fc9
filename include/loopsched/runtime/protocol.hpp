// The master-worker protocol: message tags, the settings both engines share,
// and the encoding of each message.
//   worker -> master: request {status, timing of its last chunk, results of finished chunks}
//                     failed  {origin, what}   (its body threw)
//                     report  {statistics, clock, remaining results, trace}   (after stop)
//   master -> worker: work    {first, size}
//                     stop    {}               (no more work)
//                     abort   {origin, what}   (some rank failed)
//                     table   {statistics}     (the loop's statistics, to every rank)
// A worker has at most one request outstanding, so each request gets exactly
// one reply, and a failed worker drains its replies up to the abort.
#pragma once

#include <loopsched/policy/request.hpp>
#include <loopsched/runtime/load.hpp>
#include <loopsched/runtime/statistics.hpp>
#include <loopsched/runtime/wire.hpp>
#include <loopsched/schedule.hpp>
#include <loopsched/transport/transport.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

namespace loopsched::detail {

// Tags well above 0 so that user messages on the same communicator are unlikely to collide.
enum tag : int { request_tag = 7701, failed_tag, report_tag, work_tag, stop_tag, abort_tag, table_tag };

/// What every rank knows about how the loop runs.
struct runtime_settings {
    // Inline up to 16 ranks: back-to-back short loops should not allocate for them.
    boost::container::small_vector<int, 16> worker_ranks;  ///< rank of worker index k
    boost::container::small_vector<int, 16> index_of_rank; ///< worker index of each rank, -1 if it does not work
    int root = 0;
    int own_index = -1;             ///< the master's worker index if it computes, else -1
    double poll_interval = 1e-4;
    double request_ahead = 0.0;     ///< ask for the next chunk when this fraction of the current one remains
    bool deterministic = false;
    bool trace = false;
    std::size_t result_bytes = 0;   ///< bytes of results per iteration (0: nothing gathered)
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
    double power = 1.0;                   ///< V_k
    std::optional<double> run_queue;      ///< Q_k given by the user; else read from the OS
    bool read_os_load = true;
    emulated_slowness slowness;           ///< emulated heterogeneity: sleeps after each piece of work

    /// The status at time `now`: Q_k read again if the last reading is older than the monitor's interval.
    worker_status status(double now) const {
        return {power, run_queue ? *run_queue : (read_os_load ? monitor().current(now) : 1.0)};
    }
    /// The status without reading the clock: the last reading of Q_k (taken now if there is none).
    worker_status status() const { return {power, run_queue ? *run_queue : (read_os_load ? monitor().latest() : 1.0)}; }

private:
    // One monitor per thread (per rank), kept across loops: back-to-back short
    // loops should not each pay for reading /proc/stat.
    static run_queue_monitor& monitor() {
        thread_local constinit run_queue_monitor m{0.01};
        return m;
    }
};

/// Runs `execute(part, out)`, then sleeps as this rank's emulated slowness asks.
template <class Execute>
void run_part(Execute& execute, chunk part, std::span<std::byte> out, emulated_slowness& slowness) {
    if (part.size == 0) return;
    if (slowness.slowdown() <= 0.0) return execute(part, out);
    auto const start = std::chrono::steady_clock::now();
    execute(part, out);
    slowness.after(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

/// The model time a deterministic run reports instead of a measurement, so that
/// adaptive policies see the same input on every run.
inline chunk_timing modelled_timing(index_t size, double power) {
    double const t = static_cast<double>(size) * 1e-6 / power;
    return {size, t, t};
}

/// Results of finished chunks waiting to travel to the root: blocks of
/// {first, size, size x bytes-per-iteration}.
class result_blocks {
public:
    explicit result_blocks(std::size_t bytes_per_iteration) : per_iteration_(bytes_per_iteration) {}

    /// Room for chunk c's results; valid until the next add() or clear().
    std::span<std::byte> add(chunk c) {
        if (per_iteration_ == 0) return {};
        wire_writer w;
        w.put(c.first).put(c.size);
        bytes_.insert(bytes_.end(), w.view().begin(), w.view().end());
        std::size_t const at = bytes_.size();
        bytes_.resize(at + static_cast<std::size_t>(c.size) * per_iteration_);
        ++count_;
        return std::span(bytes_).subspan(at);
    }
    [[nodiscard]] std::uint64_t count() const noexcept { return count_; }
    /// The blocks without their count (a request carries the count in its header).
    [[nodiscard]] std::span<std::byte const> blocks() const noexcept { return bytes_; }
    void write_to(wire_writer& w) const {
        w.put(count_);
        w.put_raw(bytes_);
    }
    void clear() {
        bytes_.clear();
        count_ = 0;
    }

private:
    std::size_t per_iteration_;
    std::vector<std::byte> bytes_;
    std::uint64_t count_ = 0;
};

/// Copies `blocks` result blocks at the reader's position into `results` (the
/// root's buffer for the whole loop), checking that each lies inside it.
inline void read_result_blocks(wire_reader& r, std::uint64_t blocks, std::span<std::byte> results,
                               std::size_t per_iteration) {
    for (std::uint64_t b = 0; b < blocks; ++b) {
        auto const first = r.get<index_t>(), size = r.get<index_t>();
        auto const bytes = r.get_raw(static_cast<std::size_t>(size) * per_iteration);
        auto const at = static_cast<std::size_t>(first) * per_iteration;
        if (first < 0 || size < 0 || at + bytes.size() > results.size())
            throw error("loopsched: results for iterations outside the loop");
        std::ranges::copy(bytes, results.begin() + static_cast<std::ptrdiff_t>(at));
    }
}

/// A request's fixed part, written and read as one value (one bounds check),
/// as a chunk's work message is; result blocks follow when there are any.
struct request_header {
    worker_status status;
    chunk_timing timing;
    std::uint64_t result_blocks = 0; ///< blocks of results that follow (see result_blocks)
};
static_assert(sizeof(request_header) == sizeof(worker_status) + sizeof(chunk_timing) + sizeof(std::uint64_t),
              "a request header has no padding to send");
static_assert(sizeof(chunk) == 2 * sizeof(index_t), "a work message has no padding to send");

/// Encodes a request into `w` and returns its bytes (valid as long as `w`).
inline std::span<std::byte const> encode_request(wire_writer& w, worker_status s, chunk_timing t,
                                                 result_blocks const& results) {
    return w.put(request_header{s, t, results.count()}).put_raw(results.blocks()).view();
}

/// A work message's bytes: the chunk as it lies in memory (valid as long as `c`).
inline std::span<std::byte const> encode_work(chunk const& c) { return std::as_bytes(std::span(&c, 1)); }
inline chunk decode_work(message_view m) { return wire_reader(m.payload).get<chunk>(); }

inline std::span<std::byte const> encode_failure(wire_writer& w, int origin, std::string const& what) {
    return w.put(origin).put(what).view();
}
inline bytes encode_failure(int origin, std::string const& what) {
    wire_writer w;
    encode_failure(w, origin, what);
    return std::move(w).take();
}
inline std::pair<int, std::string> decode_failure(message_view m) {
    wire_reader r(m.payload);
    int origin = r.get<int>();
    return {origin, r.get_string()};
}

/// Encodes a report into `out` and returns its bytes (valid as long as `out`).
inline std::span<std::byte const> encode_report(wire_writer& out, worker_statistics const& w, double clock,
                                                result_blocks const& results, std::vector<chunk_event> const& trace) {
    out.put(w).put(clock);
    results.write_to(out);
    out.put(trace.size());
    for (auto const& e : trace) out.put(e);
    return out.view();
}

/// Encodes the loop's statistics into `w` (once for all workers) and returns its bytes.
inline std::span<std::byte const> encode_table(wire_writer& w, loop_statistics const& s) {
    w.put(s.parallel_seconds).put(s.workers.size());
    for (auto const& x : s.workers) w.put(x);
    return w.view();
}
/// Decodes the loop's statistics into `s`, whose `workers` may already have
/// room for them (a worker makes it while it waits for the table).
inline void decode_table(message_view m, loop_statistics& s) {
    wire_reader r(m.payload);
    s.parallel_seconds = r.get<double>();
    auto const n = r.get<std::size_t>();
    s.workers.clear();
    s.workers.reserve(std::min<std::size_t>(n, r.remaining() / sizeof(worker_statistics)));
    for (std::size_t k = 0; k < n; ++k) s.workers.push_back(r.get<worker_statistics>());
}
inline loop_statistics decode_table(message_view m) {
    loop_statistics s;
    decode_table(m, s);
    return s;
}

} // namespace loopsched::detail
