// The DOALL worker: the protocol core's client that runs a loop's chunks
// (asking for the next one early with request-ahead), timing what it must and
// sending results with its requests.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/runtime/core/core.hpp>
#include <loopsched/payload.hpp>
#include <loopsched/runtime/core/profile.hpp>
#include <loopsched/runtime/loops/doall_body.hpp>
#include <loopsched/schedule.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

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
        std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(n / 2),
                         sorted.begin() + static_cast<std::ptrdiff_t>(n));
        median_ = sorted[n / 2];
    }
    /// Zero before the first sample.
    [[nodiscard]] double typical() const noexcept { return median_; }

private:
    std::array<double, window> samples_{};
    std::size_t next_ = 0;
    double median_ = 0.0;
};

/// The DOALL worker. Away from the root it runs each chunk as it arrives; on
/// the root (a computing master) it runs its chunk in steps of about one poll
/// interval, so that the master serves requests between them. With reissue,
/// every worker runs in steps and looks for a cancel between them (about
/// every millisecond away from the root): its chunk finished elsewhere.
template <Transport T, class Body>
class doall_worker {
public:
    static constexpr worker_hooks hooks{};

    doall_worker(worker_port<T>& port, rank_profile& profile, Body& body)
            : port_(port), settings_(port.settings()), profile_(profile), body_(body), mine_{port.rank()},
              sampler_(settings_.trace || settings_.request_ahead > 0.0), status_(profile.status()) {
        idle_since_ = began_ = port_.now(); // the hello, the first request, has left
    }

    void on_work(message_view m) {
        chunk const c = wire_reader(m.payload).get<chunk>();
        if (stepped()) { // its clock is read when its first step begins
            if (!port_.is_local()) {
                spoke_ = received_ = port_.now(); // its request just went
                mine_.wait_seconds += received_ - idle_since_;
            }
            current_ = c;
            next_ = c.first;
            chunk_compute_ = 0.0;
            body_.begin(c);
        } else {
            run_whole(c);
        }
    }
    [[nodiscard]] bool can_step() const noexcept { return current_.has_value(); }
    double step() { return run_slice(); }
    [[nodiscard]] bool poll_after_step() const noexcept {
        return (settings_.reissue || settings_.partner_splits) && !port_.is_local();
    }
    void on_message(kind what, message_view m) {
        if (what == kind::transfer && settings_.partner_splits) return split();
        if (what != kind::cancel || !settings_.reissue)
            throw error("loopsched: protocol: unexpected message kind " + std::to_string(m.tag) + " at a DOALL worker");
        // Its chunk finished elsewhere: drop the rest (and what it computed) and ask
        // again. A cancel for a chunk it no longer holds crossed its request: ignored.
        chunk const c = wire_reader(m.payload).get<chunk>();
        if (!current_ || current_->first != c.first) return;
        current_.reset();
        double const now = port_.now();
        if (settings_.trace) trace_.push_back({port_.rank(), c.first, next_ - c.first, received_, now});
        port_.request(status_, chunk_timing{}, pending_);
        idle_since_ = now;
    }

    worker_statistics statistics(double stopped) {
        if (port_.is_local()) return mine_;
        mine_.wait_seconds += stopped - idle_since_;
        sampler_.settle(mine_, send_time_.typical());
        // Taken out of computing, but never more than is left of this rank's
        // time in the loop: where a chunk's cycle was shorter than the typical
        // send, computing stopped at zero and the excess was never taken out.
        double const elapsed = stopped - began_ + send_time_.typical(); // the first request left before `began_`
        mine_.comm_seconds = std::min(send_time_.typical() * static_cast<double>(requests_),
                                      std::max(0.0, elapsed - mine_.compute_seconds - mine_.wait_seconds));
        return mine_;
    }
    [[nodiscard]] result_blocks& results() noexcept { return pending_; }
    [[nodiscard]] std::span<chunk_event const> trace() const noexcept { return trace_; }

private:
    void run(chunk part) {
        if (part.size > 0) profile_.run([&] { body_.run(part); });
    }

    /// Sends the next request. Sending is timed on the last request of every
    /// comm_sampling (not the first, which may set up MPI's connection; a loop
    /// of a few chunks times none), and its typical time is moved from
    /// computing to communicating.
    void ask() {
        constexpr std::uint64_t comm_sampling = 16;
        bool const sampled = requests_++ % comm_sampling == comm_sampling - 1;
        double const before = sampled ? port_.now() : 0.0;
        port_.request(status_, last_, pending_);
        if (sampled) send_time_.add(port_.now() - before);
    }

    // A clock read costs 20-40 ns here, a few percent of a round trip, so a
    // chunk costs at most two: when it arrived (only if timed, see
    // chunk_timing_sampler), and when its request has left. The request goes
    // before the second read, so that read is off the round trip; it therefore
    // carries the timing of the chunk before (as with request-ahead), while its
    // results go at once. The status a request carries was read while waiting
    // for the previous reply: reading /proc/stat takes microseconds.
    void run_whole(chunk c) {
        bool const timed = sampler_.wants(c.size);
        double const received = timed ? port_.now() : 0.0;
        if (timed) mine_.wait_seconds += received - idle_since_;
        // With request-ahead, the request goes out when the set fraction remains.
        index_t const before =
                settings_.request_ahead > 0.0
                        ? c.size - std::min(c.size, static_cast<index_t>(std::ceil(settings_.request_ahead *
                                                                                   static_cast<double>(c.size))))
                        : c.size;
        double computed = 0.0, done = 0.0;
        body_.begin(c);
        run(chunk{c.first, before});
        if (before < c.size) { // request-ahead times every chunk
            double const asked = port_.now();
            computed = asked - received;
            ask();
            double const resumed = port_.now();
            run(chunk{c.first + before, c.size - before});
            done = port_.now();
            computed += done - resumed;
        }
        body_.end(c, pending_);
        if (settings_.deterministic) last_ = modelled_timing(c.size, profile_.power); // known now: no lag
        if (before == c.size) {
            ask();
            done = port_.now();
            if (timed) computed = std::max(0.0, done - received - send_time_.typical());
        }
        status_ = profile_.status(done);
        if (timed) {
            sampler_.timed(c.size, computed);
            mine_.compute_seconds += computed;
        } else {
            sampler_.untimed(c.size, done - idle_since_);
        }
        // An untimed chunk reports no measurement; a deterministic run set the model's above.
        if (!settings_.deterministic) last_ = timed ? chunk_timing{c.size, computed, done - received} : chunk_timing{};
        idle_since_ = done;
        mine_.iterations += c.size;
        ++mine_.chunks;
        if (settings_.trace) trace_.push_back({port_.rank(), c.first, c.size, received, done});
    }

    /// One step of the root's own chunk: as many iterations as fit in one poll
    /// interval by the last step's time per iteration (at least one, at most
    /// twice the last step); deterministic runs take the chunk whole. Returns
    /// the clock at its end.
    double run_slice() {
        if (settings_.leaving && settings_.leaving->asked()) return depart();
        chunk const c = *current_;
        index_t const slice = settings_.deterministic ? c.end() - next_ : std::min(slice_, c.end() - next_);
        // Away from the root only cancels are looked for: a millisecond's steps cost little.
        double const interval = port_.is_local() ? settings_.poll_interval : std::max(settings_.poll_interval, 1e-3);
        double const begin = port_.now();
        if (next_ == c.first) received_ = begin;
        run(chunk{next_, slice});
        double const end = port_.now();
        if (settings_.detects_failures() && !port_.is_local() && end - spoke_ >= settings_.silence / 4) {
            port_.send_master(kind::alive, std::span<std::byte const>()); // a long chunk is no silence
            spoke_ = end;
        }
        next_ += slice;
        chunk_compute_ += end - begin;
        mine_.compute_seconds += end - begin;
        double const per_iteration = (end - begin) / static_cast<double>(slice);
        index_t const most = saturating_mul(slice_, 2); // at most doubling
        double const fit = per_iteration > 0.0 ? interval / per_iteration : static_cast<double>(most);
        slice_ = fit < static_cast<double>(most) ? std::max<index_t>(1, static_cast<index_t>(fit)) : most;
        if (next_ < c.end()) return end;
        current_.reset();
        body_.end(c, pending_); // nothing on the root; a sub-master's results travel on
        if (settings_.trace) trace_.push_back({port_.rank(), c.first, c.size, received_, end});
        last_ = settings_.deterministic ? modelled_timing(c.size, profile_.power)
                                        : chunk_timing{c.size, chunk_compute_, end - received_};
        mine_.iterations += c.size;
        ++mine_.chunks;
        status_ = profile_.status(end);
        // Requests that arrived while the root computed are answered before its
        // own, in the order they came: else a worker that asked during the
        // root's chunk waits through the root's next one too. Not after a
        // chunk shorter than the loop's probe gap, which the loop looks at anyway.
        if (port_.is_local() && end - received_ >= settings_.probe_gap()) port_.pump(false);
        port_.request(status_, last_, pending_);
        idle_since_ = end;
        return end;
    }

    /// Runs its chunks in steps: on the root, with reissue (to hear a cancel),
    /// with TreeS (to hear a partner's split), where it may leave (to stop
    /// between two steps), and under a failure detector (to say it is alive).
    [[nodiscard]] bool stepped() const noexcept {
        return port_.is_local() || settings_.reissue || settings_.partner_splits || settings_.leaving != nullptr ||
               settings_.detects_failures();
    }

    /// TreeS: an idle partner asked: the second half of what remains of its
    /// chunk goes to the master for it (nothing when less than 2 iterations remain).
    void split() {
        chunk part{0, 0};
        if (current_) {
            index_t const remaining = current_->end() - next_;
            if (remaining >= 2) {
                part = chunk{current_->end() - remaining / 2, remaining / 2};
                current_->size -= part.size;
            }
        }
        wire_writer w;
        port_.send_master(kind::moved, w.put(part).view());
    }

    /// Its owner wants the machine back: what it ran of its chunk goes to the
    /// root (with reissue nothing does: the book re-issues the chunk whole),
    /// the rest goes back to the master, and it asks again only to be stopped
    /// with the others.
    double depart() {
        chunk const c = *std::exchange(current_, std::nullopt);
        chunk back{next_, c.end() - next_};
        if (settings_.reissue) {
            back = c;
        } else if (next_ > c.first) {
            body_.end(chunk{c.first, next_ - c.first}, pending_);
        }
        wire_writer w;
        port_.send_master(kind::leave, w.put(back).view());
        double const now = port_.now();
        if (settings_.trace) trace_.push_back({port_.rank(), c.first, next_ - c.first, received_, now});
        port_.request(status_, chunk_timing{}, pending_);
        idle_since_ = now;
        return now;
    }

    worker_port<T>& port_;
    runtime_settings const& settings_;
    rank_profile& profile_;
    Body& body_;
    worker_statistics mine_;
    chunk_timing last_{};
    result_blocks pending_;
    std::vector<chunk_event> trace_;
    chunk_timing_sampler sampler_;
    send_time_estimate send_time_;
    std::uint64_t requests_ = 1; // the hello
    worker_status status_;
    double idle_since_ = 0.0, began_ = 0.0;
    // the root's own chunk, run in steps
    std::optional<chunk> current_;
    index_t next_ = 0, slice_ = 1;
    double chunk_compute_ = 0.0, received_ = 0.0;
    double spoke_ = 0.0; ///< when it last sent the master anything (the failure detector's heartbeat)
};

} // namespace loopsched::detail
