// The master engine: serves requests with chunks from a policy and, when it
// computes too, runs its own chunks in slices between requests.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/runtime/protocol.hpp>
#include <loopsched/schedule.hpp>
#include <loopsched/transport/transport.hpp>

#include <algorithm>
#include <exception>
#include <optional>
#include <string>
#include <vector>

namespace loopsched::detail {

struct master_settings {
    std::vector<int> worker_ranks; ///< rank of worker index k
    int own_index = -1;            ///< the master's worker index if it computes, else -1
    worker_status own_status{};
    double poll_interval = 1e-4;   ///< longest the computing master runs before serving requests
};

template <Transport T, ChunkPolicy P, class Execute>
class master_engine {
public:
    master_engine(T& t, P const& policy, loop_info info, master_settings settings, Execute& execute)
        : t_(t), seq_(policy, std::move(info)), settings_(std::move(settings)), execute_(execute),
          stats_(settings_.worker_ranks.size()) {
        for (std::size_t k = 0; k < stats_.size(); ++k) stats_[k].rank = settings_.worker_ranks[k];
        remote_active_ = static_cast<int>(stats_.size()) - (settings_.own_index >= 0 ? 1 : 0);
    }

    loop_statistics run() {
        double const start = t_.now();
        bool computing = settings_.own_index >= 0;
        while (remote_active_ > 0 || computing) {
            if (computing && !failure_) {
                computing = compute_a_slice();
                while (auto m = t_.try_receive(any_source, any_tag)) handle(*m);
                continue;
            }
            computing = false;
            if (remote_active_ > 0) handle(t_.receive(any_source, any_tag));
        }
        // Every stopped worker reports its times, then learns the verdict.
        while (reports_ < stopped_.size()) handle(t_.receive(any_source, report_tag));
        loop_statistics table{t_.now() - start, stats_};
        for (int rank : stopped_) {
            if (failure_) t_.send(rank, abort_tag, encode_failure(failure_->first, failure_->second));
            else t_.send(rank, table_tag, encode_table(table));
        }
        if (failure_) throw remote_error(failure_->first, failure_->second);
        return table;
    }

private:
    std::size_t index_of(int rank) const {
        auto it = std::ranges::find(settings_.worker_ranks, rank);
        if (it == settings_.worker_ranks.end()) throw error("loopsched: message from rank " + std::to_string(rank) + ", which is not a worker of this loop");
        return static_cast<std::size_t>(it - settings_.worker_ranks.begin());
    }

    void fail(int origin, std::string what) {
        if (!failure_) failure_.emplace(origin, std::move(what));
    }

    void handle(message const& m) {
        if (m.tag == request_tag) {
            std::size_t const k = index_of(m.source);
            auto [status, timing] = decode_request(m);
            if (failure_) return retire_with_abort(m.source);
            std::optional<chunk> c;
            try {
                c = seq_.next(request{k, status, timing});
            } catch (...) {
                fail(t_.rank(), current_exception_message());
                return retire_with_abort(m.source);
            }
            if (c) {
                stats_[k].iterations += c->size;
                ++stats_[k].chunks;
                t_.send(m.source, work_tag, encode_work(*c));
            } else if (seq_.done()) {
                retire_with_stop(m.source);
            } else {
                parked_.push_back(m.source); // left out for now (A_k < A_min)
            }
        } else if (m.tag == failed_tag) {
            auto [origin, what] = decode_failure(m);
            fail(origin, what);
            retire_with_abort(m.source);
        } else if (m.tag == report_tag) {
            auto r = decode_report(m);
            auto& s = stats_[index_of(m.source)];
            s.compute_seconds = r.compute_seconds;
            s.wait_seconds = r.wait_seconds;
            s.comm_seconds = r.comm_seconds;
            ++reports_;
        } else {
            throw error("loopsched: unexpected message tag " + std::to_string(m.tag) + " at the master");
        }
        release_parked();
    }

    void retire_with_stop(int rank) {
        t_.send(rank, stop_tag, {});
        stopped_.push_back(rank);
        --remote_active_;
    }
    void retire_with_abort(int rank) {
        t_.send(rank, abort_tag, encode_failure(failure_->first, failure_->second));
        --remote_active_;
    }
    void release_parked() {
        if (!seq_.done() && !failure_) return;
        for (int rank : parked_) failure_ ? retire_with_abort(rank) : retire_with_stop(rank);
        parked_.clear();
    }

    /// Runs one slice of the master's own chunk, fetching a new chunk when the
    /// last is done. Slices are sized from the measured time per iteration so
    /// that requests wait at most about one poll interval. False: no more own work.
    bool compute_a_slice() {
        auto& own = stats_[static_cast<std::size_t>(settings_.own_index)];
        if (!own_chunk_ || own_next_ == own_chunk_->end()) {
            chunk_timing last{};
            if (own_chunk_) last = {own_chunk_->size, own_compute_, own_compute_};
            std::optional<chunk> c;
            try {
                c = seq_.next(request{static_cast<std::size_t>(settings_.own_index), settings_.own_status, last});
            } catch (...) {
                fail(t_.rank(), current_exception_message());
                release_parked();
                return false;
            }
            if (!c) {
                release_parked();
                return false;
            }
            own_chunk_ = c;
            own_next_ = c->first;
            own_compute_ = 0.0;
            own.iterations += c->size;
            ++own.chunks;
        }
        index_t const slice = std::min(slice_, own_chunk_->end() - own_next_);
        double const begin = t_.now();
        try {
            execute_(chunk{own_next_, slice});
        } catch (...) {
            fail(t_.rank(), current_exception_message());
            release_parked();
            return false;
        }
        double const took = t_.now() - begin;
        own_next_ += slice;
        own_compute_ += took;
        own.compute_seconds += took;
        // Next slice: as many iterations as fit in one poll interval (at least one, at most doubling).
        double const per_iteration = took / static_cast<double>(slice);
        index_t fit = per_iteration > 0.0 ? static_cast<index_t>(settings_.poll_interval / per_iteration) : 2 * slice_;
        slice_ = std::clamp<index_t>(fit, 1, 2 * slice_);
        return true;
    }

    T& t_;
    chunk_sequencer<P> seq_;
    master_settings settings_;
    Execute& execute_;
    std::vector<worker_statistics> stats_;
    int remote_active_ = 0;
    std::vector<int> parked_, stopped_;
    std::size_t reports_ = 0;
    std::optional<std::pair<int, std::string>> failure_;
    std::optional<chunk> own_chunk_;
    index_t own_next_ = 0, slice_ = 1;
    double own_compute_ = 0.0;
};

} // namespace loopsched::detail
