// The worker engine: asks the master for chunks, runs them (asking for the next
// one early when request-ahead is on), sends results with its requests, reports.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/runtime/protocol.hpp>
#include <loopsched/transport/transport.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <exception>
#include <string>

namespace loopsched::detail {

/// Which chunks a worker times, and the split of the others. Timing a chunk
/// costs a clock read when it arrives, on the request-reply round trip (20-40 ns
/// here, some 3% of it). A chunk expected to compute for less than
/// `short_chunk` seconds is timed only every `sampling`-th; the loop's time is
/// still all counted, since the worker reads the clock after every request (off
/// the round trip): an untimed chunk's cycle (waiting and computing) is split as
/// the timed chunks' time per iteration says. Its request reports no timing.
class chunk_timing_sampler {
public:
    static constexpr double short_chunk = 5e-6;
    static constexpr std::uint64_t sampling = 16;

    /// `every_chunk`: time them all (tracing, request-ahead).
    explicit chunk_timing_sampler(bool every_chunk) noexcept : every_chunk_(every_chunk) {}

    /// Whether to time the next chunk, of `size` iterations.
    [[nodiscard]] bool wants(index_t size) noexcept {
        if (every_chunk_ || ++skipped_ >= sampling || per_iteration_ * static_cast<double>(size) >= short_chunk) {
            skipped_ = 0;
            return true;
        }
        return false;
    }
    void timed(index_t size, double compute_seconds) noexcept {
        per_iteration_ = compute_seconds / static_cast<double>(size);
        timed_iterations_ += static_cast<double>(size);
        timed_compute_ += compute_seconds;
    }
    /// An untimed chunk: `cycle_seconds` from the end of the last request to the end of this one.
    void untimed(index_t size, double cycle_seconds) noexcept {
        untimed_iterations_ += static_cast<double>(size);
        untimed_cycles_ += cycle_seconds;
        ++untimed_chunks_;
    }
    /// Adds the untimed chunks' estimated computing and waiting to `w`; their
    /// requests' sending (`typical_send` each) is counted by the caller.
    void settle(worker_statistics& w, double typical_send) const noexcept {
        double const cycles = std::max(0.0, untimed_cycles_ - typical_send * static_cast<double>(untimed_chunks_));
        double const per_iteration = timed_iterations_ > 0.0 ? timed_compute_ / timed_iterations_ : 0.0;
        double const compute = std::min(cycles, per_iteration * untimed_iterations_);
        w.compute_seconds += compute;
        w.wait_seconds += cycles - compute;
    }

private:
    bool every_chunk_;
    std::uint64_t skipped_ = sampling; // the first chunk is timed
    double per_iteration_ = 0.0;       ///< the last timed chunk's computing time per iteration
    double timed_iterations_ = 0.0, timed_compute_ = 0.0;
    double untimed_iterations_ = 0.0, untimed_cycles_ = 0.0;
    std::uint64_t untimed_chunks_ = 0;
};

/// The typical time to send a request, from sampled sends: the median of the
/// last `window` samples. A mean would take in the rare send that was preempted
/// (milliseconds against microseconds) and, extrapolated to every request, move
/// more time out of computing than short chunks' cycles hold.
class send_time_estimate {
public:
    static constexpr std::size_t window = 15;

    void add(double seconds) noexcept {
        samples_[next_ % window] = seconds;
        ++next_;
        std::array<double, window> sorted = samples_;
        std::size_t const n = std::min<std::size_t>(next_, window);
        std::nth_element(sorted.begin(), sorted.begin() + n / 2, sorted.begin() + n);
        median_ = sorted[n / 2];
    }
    /// Zero before the first sample.
    [[nodiscard]] double typical() const noexcept { return median_; }

private:
    std::array<double, window> samples_{};
    std::size_t next_ = 0;
    double median_ = 0.0;
};

/// Runs chunks from the master until told to stop; returns the loop's statistics
/// (sent by the master to every rank). Throws remote_error if any rank failed.
/// `execute(chunk, std::span<std::byte> results)` runs iterations of the loop.
template <Transport T, class Execute>
loop_statistics run_worker(T& t, runtime_settings const& settings, rank_profile& profile, Execute& execute) {
    int const master = settings.root;
    worker_statistics mine{t.rank()};
    chunk_timing last{};
    result_blocks pending(settings.result_bytes);
    std::vector<std::byte> current; // the running chunk's results: a request may leave before they are complete
    std::vector<chunk_event> trace;
    message held; // the last reply, for a transport that cannot lend its bytes

    // A clock read costs 20-40 ns here, a few percent of a round trip, so a
    // chunk costs at most two: when it arrived (only if timed, see
    // chunk_timing_sampler), and when its request has left. The request goes
    // before the second read, so that read is off the round trip; it therefore
    // carries the timing of the chunk before (as with request-ahead), while its
    // results go at once. Sending is timed on the last request of every
    // comm_sampling (not the first, which may set up MPI's connection; a loop
    // of a few chunks times none), and its typical time is moved from
    // computing to communicating. The status a request carries was read while
    // waiting for the previous reply: reading /proc/stat takes microseconds.
    std::uint64_t requests = 0;
    send_time_estimate send_time;
    constexpr std::uint64_t comm_sampling = 16;
    chunk_timing_sampler sampler(settings.trace || settings.request_ahead > 0.0);
    // The first request goes before any clock read (its status is the last one
    // read); its sending is counted with the others', as communication.
    worker_status status = profile.status();
    double idle_since = 0.0; // when this rank last began to wait for a reply
    auto ask = [&] {
        wire_writer w;
        auto const request = encode_request(w, status, last, pending);
        bool const sampled = requests++ % comm_sampling == comm_sampling - 1;
        double const before = sampled ? t.now() : 0.0;
        send_view(t, master, request_tag, request);
        if (sampled) send_time.add(t.now() - before);
        pending.clear();
    };
    // Tells the master this rank failed, then drains replies up to its abort.
    auto fail = [&](std::string const& what) -> loop_statistics {
        t.send(master, failed_tag, encode_failure(t.rank(), what));
        while (true) {
            message m = t.receive(master, any_tag);
            if (m.tag == abort_tag) {
                auto [origin, text] = decode_failure(m);
                throw remote_error(origin, text);
            }
        }
    };
    auto const bytes = [&](index_t iterations) { return static_cast<std::size_t>(iterations) * settings.result_bytes; };

    ask();
    idle_since = t.now();
    double const began = idle_since;
    while (true) {
        message_view const reply = receive_view(t, master, any_tag, held);

        if (reply.tag == work_tag) {
            chunk const c = decode_work(reply);
            bool const timed = sampler.wants(c.size);
            double const received = timed ? t.now() : 0.0;
            if (timed) mine.wait_seconds += received - idle_since;
            current.resize(bytes(c.size));
            std::span<std::byte> out(current);
            // With request-ahead, the request goes out when the set fraction remains.
            index_t const before = settings.request_ahead > 0.0
                ? c.size - std::min(c.size, static_cast<index_t>(std::ceil(settings.request_ahead * static_cast<double>(c.size))))
                : c.size;
            double computed = 0.0, done = 0.0;
            try {
                run_part(execute, chunk{c.first, before}, out.first(bytes(before)), profile.slowness);
                if (before < c.size) { // request-ahead times every chunk
                    double const asked = t.now();
                    computed = asked - received;
                    ask();
                    double const resumed = t.now();
                    run_part(execute, chunk{c.first + before, c.size - before}, out.subspan(bytes(before)), profile.slowness);
                    done = t.now();
                    computed += done - resumed;
                }
            } catch (...) {
                return fail(current_exception_message());
            }
            if (settings.result_bytes > 0) std::ranges::copy(current, pending.add(c).begin());
            if (settings.deterministic) last = modelled_timing(c.size, profile.power); // known now: no lag
            if (before == c.size) {
                ask();
                done = t.now();
                if (timed) computed = std::max(0.0, done - received - send_time.typical());
            }
            status = profile.status(done);
            if (timed) {
                sampler.timed(c.size, computed);
                mine.compute_seconds += computed;
            } else {
                sampler.untimed(c.size, done - idle_since);
            }
            // An untimed chunk reports no measurement; a deterministic run set the model's above.
            if (!settings.deterministic) last = timed ? chunk_timing{c.size, computed, done - received} : chunk_timing{};
            idle_since = done;
            mine.iterations += c.size;
            ++mine.chunks;
            if (settings.trace) trace.push_back({t.rank(), c.first, c.size, received, done});
        } else if (reply.tag == stop_tag) {
            double const stopped = t.now();
            mine.wait_seconds += stopped - idle_since;
            sampler.settle(mine, send_time.typical());
            // Taken out of computing, but never more than is left of this rank's
            // time in the loop: where a chunk's cycle was shorter than the typical
            // send, computing stopped at zero and the excess was never taken out.
            double const elapsed = stopped - began + send_time.typical(); // the first request left before `began`
            mine.comm_seconds = std::min(send_time.typical() * static_cast<double>(requests),
                                         std::max(0.0, elapsed - mine.compute_seconds - mine.wait_seconds));
            // The clock goes along only to place the trace's events on the master's clock.
            wire_writer report;
            send_view(t, master, report_tag, encode_report(report, mine, settings.trace ? t.now() : 0.0, pending, trace));
            loop_statistics table; // its room is made while the table travels
            table.workers.reserve(settings.worker_ranks.size());
            message_view const verdict = receive_view(t, master, any_tag, held);
            if (verdict.tag == table_tag) {
                decode_table(verdict, table);
                return table;
            }
            auto [origin, what] = decode_failure(verdict);
            throw remote_error(origin, what);
        } else {
            auto [origin, what] = decode_failure(reply);
            throw remote_error(origin, what);
        }
    }
}

} // namespace loopsched::detail
