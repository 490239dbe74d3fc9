// The DOALL engine: a loop's body as the runtime runs it (and where its results
// go), and the two clients of the protocol core: the master's grants chunks from
// a policy, the worker's runs them (asking for the next one early with
// request-ahead), timing what it must and sending results with its requests.
#pragma once

#include <loopsched/any_policy.hpp>
#include <loopsched/concepts.hpp>
#include <loopsched/error.hpp>
#include <loopsched/mapping/mapping.hpp>
#include <loopsched/options.hpp>
#include <loopsched/runtime/loops/ahead.hpp>
#include <loopsched/runtime/loops/doall_body.hpp>
#include <loopsched/runtime/loops/partners.hpp>
#include <loopsched/runtime/loops/reissue.hpp>
#include <loopsched/runtime/core/core.hpp>
#include <loopsched/runtime/core/payload.hpp>
#include <loopsched/runtime/core/plan.hpp>
#include <loopsched/runtime/core/profile.hpp>
#include <loopsched/schedule.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <exception>
#include <optional>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace loopsched::detail {

/// The DOALL master: each request gets the policy's next chunk, placed by the
/// mapping; with reissue, then copies of unfinished chunks and parts of them
/// (reissue_book); with TreeS, then half of a partner's chunk (partner_book).
template <Transport T, ChunkPolicy P, LoopMapping M, class Body>
class doall_master {
public:
    // holds: a worker granted a partner's split (a push) will ask again;
    // expecting_work: while a split is on its way, workers all waiting is no dead end.
    // lost: with reissue a lost worker's chunk goes to the next to ask.
    static constexpr master_hooks hooks{.holds = true, .expecting_work = true, .complete = true, .lost = true};

    doall_master(master_port<T>& port, P const& policy, M const& mapping, loop_info info, Body& body)
            : port_(port), placement_(mapping.start(placement_info{info.workers, info.status, 0})),
              seq_(policy, std::move(info)), body_(body) {
        auto const& s = port.settings();
        if (s.reissue || s.departures) book_.emplace(s.workers(), s.own_index);
        if (s.partner_splits) partners_.emplace(s.workers());
    }

    index_t serve(std::size_t k, request const& r) {
        if (partners_) return serve_with_partners(k, r);
        if (book_) // k's request: the chunk it held is finished (or was cancelled)
            book_->finished(k, [&](std::size_t j, chunk c) {
                port_.send_worker(j, kind::cancel, std::as_bytes(std::span(&c, 1)));
            });
        if (!departed_.empty() && departed_[k]) return 0; // it waits for the loop's end
        std::optional<chunk> c;
        if (book_) c = book_->orphan_for(k); // work a departed worker gave back, before new work
        if (c) {
            port_.send_worker(k, kind::work, std::as_bytes(std::span(&*c, 1)));
            return c->size;
        }
        c = seq_.next(r);
        if (c) {
            std::size_t const to = placement_.place(work_unit{granted_++, c->size}, r);
            if (to != k) // a mapping that pushes work to another worker arrives with the task farm
                throw error("loopsched: the mapping placed a chunk on a worker that did not ask for it");
            if (book_) book_->granted(k, *c);
        } else if (book_ && seq_.done() && port_.settings().reissue) {
            c = book_->copy_for(k);
        }
        if (!c) return 0;
        port_.send_worker(k, kind::work, std::as_bytes(std::span(&*c, 1)));
        return c->size;
    }
    [[nodiscard]] bool done() const noexcept {
        return seq_.done() && (!book_ || book_->all_finished()) && (!partners_ || partners_->quiet());
    }
    [[nodiscard]] bool holds(std::size_t k) const noexcept { return partners_ && partners_->holds(k); }
    [[nodiscard]] bool expecting_work() const noexcept { return partners_ && partners_->awaiting(); }
    void take_result(index_t first, index_t size, std::span<std::byte const> bytes) {
        if (!book_ || book_->counts(port_.result_sender(), first, size)) body_.take(first, size, bytes);
    }
    void complete(loop_statistics& table) const {
        table.departed = left_ranks_;
        std::ranges::sort(table.departed);
        if (partners_) table.partner_splits = partners_->splits();
        if (!book_) return;
        table.reissued = book_->reissued();
        table.dropped = book_->dropped();
    }
    /// Worker k was presumed lost: with reissue (or departures) its chunk is
    /// handed on whole, as if it had left; without, the loop goes on only if it
    /// held nothing and no results were still to come with its report.
    bool lost(std::size_t k, bool held_work) {
        if (!book_) return !held_work && port_.settings().request_ahead == 0.0;
        gone(k);
        book_->abandoned(k);
        return true;
    }
    void on_message(std::size_t k, kind what, message_view m) {
        if (what == kind::moved && partners_) return split_off(k, wire_reader(m.payload).get<chunk>());
        if (what != kind::leave)
            throw error("loopsched: protocol: unexpected message kind " + std::to_string(m.tag) + " in a DOALL loop");
        leave(k, wire_reader(m.payload).get<chunk>());
    }

private:
    /// TreeS: k's request finishes its chunk; it gets its share from the
    /// policy, else it asks a partner for half of its chunk and waits.
    index_t serve_with_partners(std::size_t k, request const& r) {
        partners_->finished(k);
        if (auto c = seq_.next(r)) {
            partners_->granted(k, *c); // the mapping is self-scheduled (checked): k's
            port_.send_worker(k, kind::work, std::as_bytes(std::span(&*c, 1)));
            return c->size;
        }
        if (seq_.done())
            if (auto const p = partners_->partner_for(k)) port_.send_worker(*p, kind::transfer, {});
        return 0;
    }
    /// Partner p gave up `part` of its chunk for the worker that asked (nothing: it asks elsewhere).
    void split_off(std::size_t p, chunk part) {
        std::size_t const k = partners_->answered(p, part);
        if (part.size == 0) return; // k stays parked; the core asks for it again
        port_.statistics()[p].iterations -= part.size;
        port_.push_worker(k, kind::work, std::as_bytes(std::span(&part, 1)));
        port_.count(k, part.size);
    }

    master_port<T>& port_;
    decltype(std::declval<M const&>().start(std::declval<placement_info const&>())) placement_;
    chunk_sequencer<P> seq_;
    Body& body_;
    std::size_t granted_ = 0;
    std::optional<reissue_book> book_;
    std::optional<partner_book> partners_;
    std::vector<bool> departed_; ///< per worker, once one left
    std::vector<int> left_ranks_;

    /// Worker k takes no more work (it left, or was presumed lost); someone must remain.
    void gone(std::size_t k) {
        if (departed_.empty()) departed_.assign(port_.settings().workers(), false);
        departed_[k] = true;
        if (std::ranges::count(departed_, false) == 0)
            throw error("loopsched: every worker left the loop (departure::leave) or was lost while work remained");
    }

    /// Worker k leaves, giving back `back`: with reissue its whole chunk, which
    /// the book hands on; else the part it had not run, which the book splits
    /// among the others (the part it ran counts, its results on their way).
    void leave(std::size_t k, chunk back) {
        if (!book_) throw error("loopsched: protocol: a worker left a loop without options.departures");
        auto const& settings = port_.settings();
        if (!departed_.empty() && departed_[k]) throw error("loopsched: protocol: a worker left a loop twice");
        gone(k);
        left_ranks_.push_back(settings.worker_ranks[k]);
        if (settings.reissue)
            book_->abandoned(k);
        else
            book_->gave_back(k, back, static_cast<index_t>(std::ranges::count(departed_, false)));
    }
};

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

/// The checks every DOALL loop (flat or hierarchical) makes on every rank
/// before any message, past those of the space and results (`call`), and its plan.
inline rank_plan plan_doall(doall_call const& call, parallel_for_options const& o, int ranks, int self,
                            bool partner_splits = false) {
    if (call.earlier) std::rethrow_exception(call.earlier);
    validate(o, ranks);
    rank_plan plan = plan_ranks(ranks, self, call.iterations, o);
    require(!o.leaving || o.departures, "options.departures", o.departures,
            "must be true (on every rank) where a rank may leave (options.leaving set)");
    if (o.reissue || o.departures) {
        // A request must mean "my chunk is done", and work moves: no fixed assignment.
        require(o.request_ahead == 0.0, "options.request_ahead", o.request_ahead,
                o.reissue ? "must be 0 with reissue" : "must be 0 with departures");
        require(!o.deterministic, "options.deterministic", o.deterministic,
                o.reissue ? "must be false with reissue" : "must be false with departures");
    }
    plan.settings.silence = o.presumed_lost_after;
    if (plan.settings.detects_failures()) { // served in turn, the others would wait for a lost worker's request
        require(!o.deterministic, "options.deterministic", o.deterministic,
                "must be false with a finite presumed_lost_after");
        require(!partner_splits, "options.presumed_lost_after", o.presumed_lost_after,
                "must be infinity with TreeS (trees): a partner's split would wait for a lost worker");
    }
    if (partner_splits) {
        // A request must mean "my chunk is done", and chunks change hands mid-run.
        require(o.request_ahead == 0.0, "options.request_ahead", o.request_ahead, "must be 0 with TreeS (trees)");
        require(!o.deterministic, "options.deterministic", o.deterministic, "must be false with TreeS (trees)");
        require(!o.reissue, "options.reissue", o.reissue, "must be false with TreeS (trees)");
        require(!o.departures, "options.departures", o.departures, "must be false with TreeS (trees)");
    }
    plan.settings.partner_splits = partner_splits;
    plan.settings.request_ahead = o.request_ahead;
    plan.settings.reissue = o.reissue;
    plan.settings.departures = o.departures;
    plan.settings.leaving = o.leaving;
    plan.settings.result_bytes = call.result_bytes;
    return plan;
}

/// A mapping whose kind is known at compile time (not any_mapping's).
template <class M>
concept known_ahead_of_time = requires { typename std::bool_constant<M{}.ahead_of_time()>; };

/// The self-scheduled DOALL engine after the checks: the agreement, then the
/// master, a worker, or both.
template <Transport T, ChunkPolicy P, LoopMapping M>
loop_statistics run_dynamic_doall(loop_link<T>& link, checked_loop& checked, P const& policy, M const& mapping,
                                  chunk_body& run) {
    auto& plan = checked.plan;
    auto const agreed = agree(link, checked.shape, checked.failed, plan.profile.status(), plan.settings.silence);
    std::span<worker_status const> const opening(agreed.data(), agreed.size());
    return run_loop(
            link, plan.settings, opening,
            [&](master_port<T>& port) {
                return doall_master<T, P, M, chunk_body>(port, policy, mapping, plan.info, run);
            },
            [&](worker_port<T>& port) { return doall_worker<T, chunk_body>(port, plan.profile, run); });
}

/// The DOALL engine on this rank after the checks, ahead of time or
/// self-scheduled; compiled once per transport and mapping (run_doall erases
/// the policy), and only the kind a mapping known at compile time needs.
template <Transport T, ChunkPolicy P, LoopMapping M>
loop_statistics run_doall_engine(loop_link<T>& link, checked_loop& checked, P const& policy, M const& mapping,
                                 chunk_body& run) {
    if constexpr (known_ahead_of_time<M>) {
        if constexpr (M{}.ahead_of_time())
            return run_ahead(link, checked.shape, checked.failed, checked.plan, policy, mapping, run);
        else
            return run_dynamic_doall(link, checked, policy, mapping, run);
    } else {
        if (mapping.ahead_of_time())
            return run_ahead(link, checked.shape, checked.failed, checked.plan, policy, mapping, run);
        return run_dynamic_doall(link, checked, policy, mapping, run);
    }
}

/// Runs a DOALL loop on this rank once its space and results are described:
/// the checks (on every rank, before any message), the agreement, then the
/// master, a worker, or both.
template <Transport T, ChunkPolicy P, LoopMapping M>
loop_statistics run_doall_checked(loop_link<T>& link, doall_call const& call, P const& policy, M const& mapping,
                                  chunk_body& run, parallel_for_options const& o) {
    checked_loop checked = check_loop(link, [&] {
        bool const partners = splits_with_partners(policy);
        rank_plan plan = plan_doall(call, o, link.size(), link.rank(), partners);
        bool const detects = plan.settings.detects_failures();
        if ((o.reissue || o.departures || partners || detects) && mapping.ahead_of_time()) // the message is built only for a failure
            require(false,
                    o.reissue      ? "options.reissue"
                    : o.departures ? "options.departures"
                    : partners     ? "policy"
                                   : "options.presumed_lost_after",
                    o.reissue || o.departures ? std::string("true")
                    : partners                ? policy.spec()
                                              : to_text(o.presumed_lost_after),
                    "needs a self-scheduled mapping (" + std::string(mapping_name(mapping)) + " assigns ahead of time)");
        detail::validate(plan.info);
        (void)policy.start(plan.info); // the policy's own checks, on every rank before any message
        loop_shape const shape = shape_of(o, {.algorithm = algorithm_id::parallel_for,
                                              .extent = plan.info.iterations,
                                              .space = call.space,
                                              .dimension = o.dimension,
                                              .result_bytes = call.result_bytes,
                                              .policy = policy_fingerprint(policy),
                                              .mapping = mapping_name(mapping),
                                              .request_ahead = o.request_ahead,
                                              .extra = options_fingerprint(o)});
        return std::pair{std::move(plan), shape};
    });
    return run_doall_engine(link, checked, policy, mapping, run);
}

/// The engine a compiled library holds for transport T (engines_compiled_for):
/// the policy and the mapping erased; defined and instantiated there.
template <Transport T>
loop_statistics run_compiled_doall(channel<T>& ch, doall_call const& call, any_policy const& policy,
                                   any_mapping const& mapping, chunk_body& run, parallel_for_options const& o);

/// Runs a DOALL loop on this rank. `values`: the root's results
/// (`per_iteration` per iteration; null for none). `earlier`: an error this
/// rank met making the arguments (a spec that did not parse), which fails the
/// loop on every rank like a failed check.
template <channel_source C, IterationSpace S, ChunkPolicy P, LoopMapping M, class Body, class R>
loop_statistics run_doall(C& source, S const& space, P const& policy, M const& mapping, Body& body,
                          std::size_t per_iteration, std::vector<R>* values, parallel_for_options const& o,
                          std::exception_ptr earlier = nullptr) {
    auto& ch = channel_of(source);
    using T = std::remove_cvref_t<decltype(ch.transport())>;
    return detail::run_described<R>(
            space, body, per_iteration, values, o, ch.rank() == o.root,
            [&](doall_call const& call, chunk_body& run) {
                if constexpr (engines_compiled_for<T> && std::constructible_from<any_mapping, M>) {
                    return run_compiled_doall(ch, call, erase_policy(policy), any_mapping(mapping), run, o);
                } else {
                    loop_link<T> link(ch);
                    return run_doall_checked(link, call, erase_policy(policy), mapping, run, o);
                }
            },
            earlier);
}

} // namespace loopsched::detail
