// The master engine: serves requests with chunks from a policy, collects the
// results that ride on them and, when it computes too, runs its own chunks in
// short slices between requests.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/runtime/protocol.hpp>
#include <loopsched/schedule.hpp>
#include <loopsched/transport/transport.hpp>

#include <algorithm>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace loopsched::detail {

template <Transport T, ChunkPolicy P, class Execute>
class master_engine {
public:
    /// `results`: the root's buffer for the whole loop (result_bytes per iteration).
    master_engine(T& t, P const& policy, loop_info info, runtime_settings const& settings, rank_profile& profile,
                  Execute& execute, std::span<std::byte> results)
        : t_(t), seq_(policy, std::move(info)), settings_(settings), profile_(profile), execute_(execute),
          results_(results), stats_(settings.worker_ranks.size()), state_(stats_.size(), peer::active),
          waiting_(stats_.size()), parked_(stats_.size()) {
        for (std::size_t k = 0; k < stats_.size(); ++k) stats_[k].rank = settings_.worker_ranks[k];
        owing_ = state_.size();
        if (settings_.own_index >= 0) become(static_cast<std::size_t>(settings_.own_index), peer::own);
    }

    loop_statistics run() {
        start_ = t_.now();
        bool computing = settings_.own_index >= 0;
        while (true) {
            if (failure_) { // the own chunk is abandoned; the workers still need answers
                computing = false;
                for (std::size_t k = 0; k < waiting_.size(); ++k)
                    if (std::exchange(waiting_[k], std::nullopt) && state_[k] == peer::active) abort(k);
            }
            if (settings_.deterministic && !failure_) computing = serve_in_turn(computing);
            if (!computing && !unsettled()) break;
            if (computing && !settings_.deterministic) {
                computing = compute_a_slice();
                while (auto m = try_receive_view(t_, any_source, any_tag, held_)) handle(*m);
            } else {
                handle(receive_view(t_, any_source, any_tag, held_));
            }
        }
        loop_statistics table{t_.now() - start_, std::move(stats_), {}}; // the loop is over: nothing counts any more
        wire_writer w;
        auto const verdict = failure_ ? encode_failure(w, failure_->first, failure_->second) : encode_table(w, table);
        for (std::size_t k = 0; k < state_.size(); ++k)
            if (state_[k] == peer::reported) send_view(t_, settings_.worker_ranks[k], failure_ ? abort_tag : table_tag, verdict);
        if (failure_) throw remote_error(failure_->first, failure_->second);
        table.trace = std::move(trace_);
        std::ranges::sort(table.trace, {}, &chunk_event::start);
        return table;
    }

private:
    /// A remote worker's place in the protocol; `own` is the computing master.
    enum class peer { own, active, parked, stopped, reported, aborted };

    /// Some remote worker still owes a message.
    [[nodiscard]] bool unsettled() const noexcept { return owing_ > 0; }

    static constexpr bool owes(peer p) noexcept { return p == peer::active || p == peer::parked || p == peer::stopped; }

    /// Every state change goes through here, so the counts the hot path reads stay exact.
    void become(std::size_t k, peer next) {
        peer const before = std::exchange(state_[k], next);
        owing_ += static_cast<std::size_t>(owes(next)) - static_cast<std::size_t>(owes(before));
        parked_count_ += static_cast<std::size_t>(next == peer::parked) - static_cast<std::size_t>(before == peer::parked);
    }

    std::size_t index_of(int rank) const {
        int const k = rank >= 0 && static_cast<std::size_t>(rank) < settings_.index_of_rank.size()
            ? settings_.index_of_rank[static_cast<std::size_t>(rank)] : -1;
        if (k < 0 || state_[static_cast<std::size_t>(k)] == peer::own)
            throw error("loopsched: message from rank " + std::to_string(rank) + ", which is not a worker of this loop");
        return static_cast<std::size_t>(k);
    }

    void fail(int origin, std::string what) {
        if (!failure_) failure_.emplace(origin, std::move(what));
    }

    void handle(message_view m) {
        std::size_t const k = index_of(m.source);
        if (m.tag == request_tag) {
            wire_reader r(m.payload);
            auto const h = r.get<request_header>();
            // The reply first, then the results that came with the request: the worker is waiting.
            if (settings_.deterministic && !failure_) waiting_[k] = request{k, h.status, h.timing};
            else serve(k, request{k, h.status, h.timing});
            read_result_blocks(r, h.result_blocks, results_, settings_.result_bytes);
        } else if (m.tag == failed_tag) {
            auto [origin, what] = decode_failure(m);
            fail(origin, what);
            if (state_[k] == peer::active) abort(k);
            else if (state_[k] == peer::stopped) become(k, peer::reported); // gets the verdict with the others
        } else if (m.tag == report_tag) {
            double const received = settings_.trace ? t_.now() : 0.0; // places the trace's events only
            wire_reader r(m.payload);
            auto const w = r.get<worker_statistics>();
            double const offset = received - r.get<double>() - start_; // worker clock -> loop time
            read_result_blocks(r, r.get<std::uint64_t>(), results_, settings_.result_bytes);
            for (auto n = r.get<std::size_t>(); n > 0; --n) {
                auto e = r.get<chunk_event>();
                e.start += offset;
                e.end += offset;
                trace_.push_back(e);
            }
            auto& s = stats_[k];
            s.compute_seconds = w.compute_seconds;
            s.wait_seconds = w.wait_seconds;
            s.comm_seconds = w.comm_seconds;
            become(k, peer::reported);
        } else {
            throw error("loopsched: unexpected message tag " + std::to_string(m.tag) + " at the master");
        }
        settle_parked();
    }

    /// Answers worker k's request with a chunk, a stop, or nothing for now.
    void serve(std::size_t k, request const& r) {
        if (failure_) return abort(k);
        std::optional<chunk> c;
        try {
            c = seq_.next(r);
        } catch (...) {
            fail(t_.rank(), current_exception_message());
            return abort(k);
        }
        if (c) {
            send_view(t_, settings_.worker_ranks[k], work_tag, encode_work(*c));
            stats_[k].iterations += c->size;
            ++stats_[k].chunks;
            become(k, peer::active);
        } else if (seq_.done()) {
            stop(k);
        } else {
            become(k, peer::parked); // left out for now (A_k < A_min)
            parked_[k] = r;
        }
    }

    void stop(std::size_t k) {
        send_view(t_, settings_.worker_ranks[k], stop_tag, {});
        become(k, peer::stopped);
    }
    void abort(std::size_t k) {
        t_.send(settings_.worker_ranks[k], abort_tag, encode_failure(failure_->first, failure_->second));
        become(k, peer::aborted);
    }

    /// Parked workers: stopped or aborted once the loop is over; otherwise asked
    /// again, since a newer status from anyone may have changed who qualifies.
    void settle_parked() {
        if (parked_count_ == 0) return;
        for (std::size_t k = 0; k < state_.size(); ++k) {
            if (state_[k] != peer::parked || (settings_.deterministic && !failure_ && !seq_.done())) continue;
            become(k, peer::active);
            if (failure_) abort(k);
            else if (seq_.done()) stop(k);
            else serve(k, *parked_[k]); // may park it again
        }
    }

    /// Deterministic mode: serves the waiting requests strictly in worker order,
    /// running the master's own chunks whole at its turn. False: no own work left.
    bool serve_in_turn(bool computing) {
        std::size_t idle = 0;
        while (idle < state_.size()) {
            std::size_t const k = turn_;
            if (state_[k] == peer::own && computing) {
                computing = compute_own_chunk_whole();
                idle = 0;
            } else if (state_[k] == peer::active && waiting_[k]) {
                serve(k, *std::exchange(waiting_[k], std::nullopt));
                settle_parked();
                idle = 0;
            } else if (state_[k] == peer::active) {
                return computing; // its request decides what comes next: wait for it
            } else {
                ++idle;
            }
            turn_ = (turn_ + 1) % state_.size();
        }
        return computing;
    }

    /// The master's next own chunk, or nullopt when it has none (loop done, failed).
    std::optional<chunk> next_own_chunk(chunk_timing last) {
        auto const own = static_cast<std::size_t>(settings_.own_index);
        std::optional<chunk> c;
        if (!failure_) {
            try {
                c = seq_.next(request{own, profile_.status(t_.now()), last});
            } catch (...) {
                fail(t_.rank(), current_exception_message());
            }
        }
        if (c) {
            stats_[own].iterations += c->size;
            ++stats_[own].chunks;
        }
        settle_parked();
        return c;
    }

    /// Runs iterations [first, first + size) of the master's own work; false if the body threw.
    bool run_own(chunk part) {
        auto const at = static_cast<std::size_t>(part.first) * settings_.result_bytes;
        try {
            run_part(execute_, part, results_.subspan(at, static_cast<std::size_t>(part.size) * settings_.result_bytes),
                     profile_.slowness);
        } catch (...) {
            fail(t_.rank(), current_exception_message());
            settle_parked();
            return false;
        }
        return true;
    }

    bool compute_own_chunk_whole() {
        chunk_timing last{};
        if (own_chunk_) last = modelled_timing(own_chunk_->size, profile_.power);
        own_chunk_ = next_own_chunk(last);
        if (!own_chunk_) return false;
        double const begin = t_.now();
        if (!run_own(*own_chunk_)) return false;
        record_own(*own_chunk_, begin, t_.now());
        return true;
    }

    void record_own(chunk c, double begin, double end) {
        stats_[static_cast<std::size_t>(settings_.own_index)].compute_seconds += end - begin;
        if (settings_.trace) trace_.push_back({t_.rank(), c.first, c.size, begin - start_, end - start_});
    }

    /// Runs one slice of the master's own chunk, fetching a new chunk when the
    /// last is done. Slices are sized from the measured time per iteration so
    /// that requests wait at most about one poll interval. False: no more own work.
    bool compute_a_slice() {
        if (!own_chunk_ || own_next_ == own_chunk_->end()) {
            chunk_timing last{};
            if (own_chunk_) {
                last = {own_chunk_->size, own_compute_, own_compute_};
                if (settings_.trace) trace_.push_back({t_.rank(), own_chunk_->first, own_chunk_->size, own_began_ - start_, t_.now() - start_});
            }
            own_chunk_ = next_own_chunk(last);
            if (!own_chunk_) return false;
            own_next_ = own_chunk_->first;
            own_compute_ = 0.0;
            own_began_ = t_.now();
        }
        index_t const slice = std::min(slice_, own_chunk_->end() - own_next_);
        double const begin = t_.now();
        if (!run_own(chunk{own_next_, slice})) return false;
        double const took = t_.now() - begin;
        own_next_ += slice;
        own_compute_ += took;
        stats_[static_cast<std::size_t>(settings_.own_index)].compute_seconds += took;
        // Next slice: as many iterations as fit in one poll interval (at least one, at most doubling).
        double const per_iteration = took / static_cast<double>(slice);
        index_t const fit = per_iteration > 0.0 ? static_cast<index_t>(settings_.poll_interval / per_iteration) : 2 * slice_;
        slice_ = std::clamp<index_t>(fit, 1, 2 * slice_);
        return true;
    }

    T& t_;
    message held_; // the last message, for a transport that cannot lend its bytes
    chunk_sequencer<P> seq_;
    runtime_settings const& settings_;
    rank_profile& profile_;
    Execute& execute_;
    std::span<std::byte> results_;
    std::vector<worker_statistics> stats_;
    // Inline up to 16 workers: back-to-back short loops should not allocate for them.
    boost::container::small_vector<peer, 16> state_;
    boost::container::small_vector<std::optional<request>, 16> waiting_, parked_; ///< deterministic mode's queue; parked requests
    std::size_t turn_ = 0;
    std::size_t owing_ = 0, parked_count_ = 0; ///< workers that owe a message; parked workers (kept by become())
    std::vector<chunk_event> trace_;
    std::optional<std::pair<int, std::string>> failure_;
    double start_ = 0.0;
    std::optional<chunk> own_chunk_;
    index_t own_next_ = 0, slice_ = 1;
    double own_compute_ = 0.0, own_began_ = 0.0;
};

} // namespace loopsched::detail
