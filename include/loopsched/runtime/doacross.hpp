// The DOACROSS engine of seed 003 (sections 4.3-4.4): the master's chunk
// scheduling with transaction accounting (who holds the current and the
// previous chunk), and the workers' pipeline through synchronization points,
// with communication sets buffered until the next chunk's holder is known.
//   worker -> master: request   {status, timing, finished chunks' results}
//                     failed    {origin, what}
//                     report    {statistics, clock, trace}          (after stop)
//   master -> worker: work      {chunk, receive-from rank, previous chunk, h}
//                     successor {chunk, send-to rank}   (the holder of the next chunk)
//                     stop, abort {origin, what}, table {statistics}
//   worker -> worker: data      {chunk, first set, sets, bytes}    (one message per flush)
//   worker -> master: extend    {status, timing}   (stalled on its predecessor: may it take the next chunk too?)
//   master -> worker: extension {index, first, size}, or declined {}
// A computing master runs the same worker part and delivers its own messages
// through a local queue, serving requests between subchunks and while it waits.
#pragma once

#include <loopsched/dependence/layout.hpp>
#include <loopsched/error.hpp>
#include <loopsched/runtime/protocol.hpp>
#include <loopsched/runtime/statistics.hpp>
#include <loopsched/schedule.hpp>
#include <loopsched/space/box.hpp>
#include <loopsched/space/window.hpp>
#include <loopsched/transport/transport.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

namespace loopsched::detail {

enum doacross_tag : int {
    dx_request = 7801, dx_work, dx_successor, dx_data, dx_stop, dx_failed, dx_abort, dx_report, dx_table, dx_probe,
    dx_extend, dx_extension, dx_declined
};

/// A policy whose chunks are at least `min` wide: a chunk narrower than the
/// dependences' reach along u_c would leave its successor needing data from
/// two chunks back, so DOACROSS loops widen it (only the loop's last chunk,
/// clipped to what remains, can be narrower, and nothing follows it).
template <ChunkPolicy P>
struct widened {
    P inner;
    index_t min = 1;

    class state {
    public:
        state(state_of<P> s, index_t min) : inner_(std::move(s)), min_(min) {}
        index_t propose(request const& r) {
            index_t const c = inner_.propose(r);
            return c == 0 ? 0 : std::max(c, min_);
        }
        void commit(request const& r, index_t granted) { inner_.commit(r, granted); }

    private:
        state_of<P> inner_;
        index_t min_;
    };
    [[nodiscard]] state start(loop_info const& info) const { return state(inner.start(info), min); }
};

/// The geometry every rank derives alike: subchunks (tiles) of a chunk and the
/// communication set each one produces for the next chunk.
template <std::size_t N>
struct doacross_geometry {
    box<N> space;
    doacross_layout layout;
    index_t h = 1;
    index_t input_halo = 0;

    [[nodiscard]] index_t extent_c() const { return space.extent(layout.chunk_dim); }
    [[nodiscard]] index_t extent_s() const { return space.extent(layout.sync_dim); }

    /// Subchunks of a chunk `width` positions wide.
    [[nodiscard]] index_t tiles(index_t width) const {
        if (extent_s() == 0 || width == 0) return 0;
        return ceil_div(extent_s() + layout.skew * (width - 1), h);
    }
    /// u_s positions [lo, hi) of position c, in the chunk starting at a, in tile t.
    [[nodiscard]] std::pair<index_t, index_t> span(index_t a, index_t c, index_t t) const {
        index_t const shift = layout.skew * (c - a);
        return {std::clamp(t * h - shift, index_t{0}, extent_s()), std::clamp((t + 1) * h - shift, index_t{0}, extent_s())};
    }
    [[nodiscard]] box<N> part(index_t c0, index_t c1, index_t s0, index_t s1) const {
        return space.slice(layout.chunk_dim, c0, c1).slice(layout.sync_dim, s0, s1);
    }
    /// f(box) for each non-empty piece of tile t of the chunk starting at a,
    /// restricted to the u_c positions [c0, c1): one box without skew, one per
    /// position with it (each position's u_s range is shifted).
    template <class F>
    void for_each_piece(index_t a, index_t t, index_t c0, index_t c1, F&& f) const {
        if (c0 >= c1) return;
        if (layout.skew == 0) {
            auto [lo, hi] = span(a, a, t);
            if (lo < hi) f(part(c0, c1, lo, hi));
            return;
        }
        for (index_t c = c0; c < c1; ++c) {
            auto [lo, hi] = span(a, c, t);
            if (lo < hi) f(part(c, c + 1, lo, hi));
        }
    }
    /// The region a rank holds for the chunk [a, a + w): the chunk, the halo
    /// the dependences reach back to, and the read-only positions after it.
    [[nodiscard]] box<N> window_region(index_t a, index_t w) const {
        return space.slice(layout.chunk_dim, std::max<index_t>(0, a - layout.reach),
                           std::min(extent_c(), a + w + input_halo));
    }
    /// The first u_c position of the chunk [a, a + w) that the next chunk reads.
    [[nodiscard]] index_t halo_first(index_t a, index_t w) const { return std::max(a, a + w - layout.reach); }
    /// How many tiles of the previous chunk (prev_width wide) tile t needs: its
    /// own index, plus the skew's lag across the previous chunk.
    [[nodiscard]] index_t tiles_needed(index_t t, index_t prev_width) const {
        return std::min(tiles(prev_width), t + 1 + ceil_div(layout.skew * prev_width, h));
    }
};

struct work_message {
    index_t index = 0, first = 0, size = 0;
    int from = -1; ///< rank holding the previous chunk; -1: this is the first chunk
    index_t prev_first = 0, prev_size = 0;
    index_t h = 1;
};
/// The chunk granted to the holder of the newest chunk, joined to the end of it.
struct extension_message {
    index_t index = 0, first = 0, size = 0;
};
struct successor_message {
    index_t index = 0;
    int to = 0;
};
struct data_header {
    index_t index = 0, first_tile = 0, tiles = 0;
};

/// One rank of a DOACROSS loop: the master part on the root, the worker part
/// on every computing rank.
template <Transport Tr, ChunkPolicy P, std::size_t N, class Body, class... F>
class doacross_engine {
    using windows_t = std::tuple<window<typename F::value_type, N>...>;

public:
    doacross_engine(Tr& t, doacross_geometry<N> geometry, P const& policy, loop_info info,
                    runtime_settings const& settings, rank_profile& profile, Body& body, std::tuple<F...> const& fields,
                    windows_t* results, bool extend_when_waiting = false)
        : t_(t), geo_(geometry), settings_(settings), profile_(profile), body_(body), fields_(fields), results_(results),
          extend_when_waiting_(extend_when_waiting),
          self_(t.rank()), root_(t.rank() == settings.root), computes_(settings.index_of_rank[static_cast<std::size_t>(self_)] >= 0),
          mine_{self_} {
        if (root_) {
            seq_.emplace(widened<P>{policy, std::max<index_t>(1, geometry.layout.reach)}, std::move(info));
            stats_.resize(settings_.worker_ranks.size());
            state_.assign(stats_.size(), peer::active);
            parked_.resize(stats_.size());
            for (std::size_t k = 0; k < stats_.size(); ++k) stats_[k].rank = settings_.worker_ranks[k];
            owing_ = stats_.size() - (settings_.own_index >= 0 ? 1 : 0);
        }
    }

    loop_statistics run() {
        start_ = t_.now();
        try {
            while (true) {
                while (auto m = next_message(false)) handle(*m);
                if (root_ && failure_) return abort_all();
                if (finished()) break;
                if (progress()) continue;
                handle(*next_message(true));
            }
        } catch (remote_error const&) {
            throw;
        } catch (...) {
            if (root_) {
                fail(self_, current_exception_message());
                return abort_all();
            }
            return fail_as_worker(current_exception_message());
        }
        if (root_) return finish_as_master();
        return *table_;
    }

    /// The synchronization interval the loop ran with (known once a chunk arrived).
    [[nodiscard]] index_t interval() const noexcept { return geo_.h; }

private:
    enum class peer { active, parked, stopped, reported, aborted };

    // ------------------------------------------------------------ messages

    std::optional<message> next_message(bool block) {
        if (!local_.empty()) {
            message m = std::move(local_.front());
            local_.pop_front();
            return m;
        }
        if (block) {
            double const before = t_.now();
            message m = t_.receive(any_source, any_tag);
            double const waited = t_.now() - before;
            if (computes_ && !stopped_) mine_.wait_seconds += waited;
            if (current_ && current_->done > 0) current_->waited += waited;
            return m;
        }
        return t_.try_receive(any_source, any_tag);
    }

    /// Sends, or queues locally when the computing master talks to itself.
    void deliver(int dest, int tag, bytes data) {
        if (dest == self_) local_.push_back(message{self_, tag, std::move(data)});
        else t_.send(dest, tag, std::move(data));
    }

    void handle(message const& m) {
        switch (m.tag) {
        case dx_request: on_request(m); break;
        case dx_extend: on_extend_request(m); break;
        case dx_extension: on_extension(wire_reader(m.payload).get<extension_message>()); break;
        case dx_declined: on_declined(); break;
        case dx_failed: {
            auto [origin, what] = decode_failure(m);
            fail(origin, what);
            break;
        }
        case dx_report: on_report(m); break;
        case dx_work: on_work(wire_reader(m.payload).get<work_message>()); break;
        case dx_successor: on_successor(wire_reader(m.payload).get<successor_message>()); break;
        case dx_data: on_data(m); break;
        case dx_stop: on_stop(); break;
        case dx_abort: {
            auto [origin, what] = decode_failure(m);
            throw remote_error(origin, what);
        }
        case dx_table: table_ = decode_table(m); break;
        default: throw error("loopsched: unexpected message tag " + std::to_string(m.tag) + " in a DOACROSS loop");
        }
        if (root_) settle_parked();
    }

    [[nodiscard]] bool finished() const {
        if (root_) return (!computes_ || stopped_) && owing_ == 0;
        return table_.has_value();
    }

    // ------------------------------------------------------------ master

    std::size_t index_of(int rank) const {
        int const k = rank >= 0 && static_cast<std::size_t>(rank) < settings_.index_of_rank.size()
            ? settings_.index_of_rank[static_cast<std::size_t>(rank)] : -1;
        if (k < 0) throw error("loopsched: message from rank " + std::to_string(rank) + ", which is not a worker of this loop");
        return static_cast<std::size_t>(k);
    }
    [[nodiscard]] bool remote(std::size_t k) const { return static_cast<int>(k) != settings_.own_index; }
    static constexpr bool owes(peer p) noexcept { return p == peer::active || p == peer::parked || p == peer::stopped; }

    void become(std::size_t k, peer next) {
        peer const before = std::exchange(state_[k], next);
        if (remote(k)) owing_ += static_cast<std::size_t>(owes(next)) - static_cast<std::size_t>(owes(before));
        parked_count_ += static_cast<std::size_t>(next == peer::parked) - static_cast<std::size_t>(before == peer::parked);
    }

    void fail(int origin, std::string what) {
        if (!failure_) failure_.emplace(origin, std::move(what));
    }

    /// The head every request and extension request starts with: {status, timing}.
    static request read_request(std::size_t k, wire_reader& r) {
        auto const status = r.get<worker_status>();
        return request{k, status, r.get<chunk_timing>()};
    }
    void on_request(message const& m) {
        std::size_t const k = index_of(m.source);
        wire_reader r(m.payload);
        request const asked = read_request(k, r);
        read_results(r);
        serve(k, asked);
    }

    /// The chunks' results riding on a request or report: {count, then per chunk first, size, every field's values}.
    void read_results(wire_reader& r) {
        for (auto n = r.get<std::uint64_t>(); n > 0; --n) {
            auto const first = r.get<index_t>(), size = r.get<index_t>();
            if (first < 0 || size < 0 || first + size > geo_.extent_c())
                throw error("loopsched: results for positions outside the loop");
            box<N> const part = geo_.space.slice(geo_.layout.chunk_dim, first, first + size);
            std::apply([&](auto&... w) { ((unpack_into(w, part, r)), ...); }, *results_);
        }
    }
    template <class W>
    static void unpack_into(W& w, box<N> const& part, wire_reader& r) {
        auto const n = static_cast<std::size_t>(part.size()) * sizeof(typename W::value_type);
        w.unpack(part, r.get_raw(n));
    }

    /// Transaction accounting: the new chunk's holder becomes current, the last
    /// one previous, and the previous holder learns where to send its sets.
    /// The policy's next chunk for worker k, counted in its statistics; none
    /// if there is none now or the policy threw (then the loop has failed).
    std::optional<chunk> grant(std::size_t k, request const& r) {
        std::optional<chunk> c;
        try {
            c = seq_->next(r);
        } catch (...) {
            fail(self_, current_exception_message());
            return std::nullopt;
        }
        if (c) {
            stats_[k].iterations += c->size;
            ++stats_[k].chunks;
        }
        return c;
    }

    void serve(std::size_t k, request const& r) {
        if (failure_) return;
        std::optional<chunk> const c = grant(k, r);
        if (failure_) return;
        int const to = settings_.worker_ranks[k];
        if (c) {
            become(k, peer::active);
            index_t const index = granted_++;
            work_message const w{index, c->first, c->size, index == 0 ? -1 : holder_, last_.first, last_.size, geo_.h};
            deliver(to, dx_work, std::move(wire_writer{}.put(w)).take());
            if (index > 0 && holder_ != to && geo_.layout.reach > 0)
                deliver(holder_, dx_successor, std::move(wire_writer{}.put(successor_message{index - 1, to})).take());
            holder_ = to;
            last_ = *c;
        } else if (seq_->done()) {
            deliver(to, dx_stop, {});
            become(k, peer::stopped);
        } else {
            become(k, peer::parked); // left out for now (A_k < A_min)
            parked_[k] = r;
        }
    }
    /// Worker k, stalled on its predecessor, asks to take the next chunk as
    /// well. Granted only while it holds the newest chunk, so nobody depends
    /// on that chunk yet and it may grow: the two become one chunk.
    void serve_extension(std::size_t k, request const& r) {
        int const to = settings_.worker_ranks[k];
        std::optional<chunk> c;
        if (!failure_ && holder_ == to && state_[k] == peer::active && !seq_->done()) c = grant(k, r);
        if (!c) return deliver(to, dx_declined, {});
        index_t const index = granted_++;
        deliver(to, dx_extension, std::move(wire_writer{}.put(extension_message{index, c->first, c->size})).take());
        last_.size += c->size; // what the next chunk's holder waits for
    }
    void on_extend_request(message const& m) {
        std::size_t const k = index_of(m.source);
        wire_reader r(m.payload);
        serve_extension(k, read_request(k, r));
    }

    void settle_parked() {
        if (parked_count_ == 0 || failure_) return;
        for (std::size_t k = 0; k < state_.size(); ++k) {
            if (state_[k] != peer::parked) continue;
            become(k, peer::active);
            serve(k, *parked_[k]); // may park it again, or stop it
        }
    }

    void on_report(message const& m) {
        std::size_t const k = index_of(m.source);
        double const received = t_.now();
        wire_reader r(m.payload);
        auto const w = r.get<worker_statistics>();
        double const offset = received - r.get<double>() - start_; // worker clock -> loop time
        for (auto n = r.get<std::size_t>(); n > 0; --n) {
            auto e = r.get<chunk_event>();
            e.start += offset;
            e.end += offset;
            trace_.push_back(e);
        }
        stats_[k].compute_seconds = w.compute_seconds;
        stats_[k].wait_seconds = w.wait_seconds;
        stats_[k].comm_seconds = w.comm_seconds;
        become(k, peer::reported);
    }

    loop_statistics finish_as_master() {
        if (computes_) {
            auto& own = stats_[static_cast<std::size_t>(settings_.own_index)];
            own.compute_seconds = mine_.compute_seconds;
            own.wait_seconds = mine_.wait_seconds;
            own.comm_seconds = mine_.comm_seconds;
            for (auto e : own_trace_) trace_.push_back({e.rank, e.first, e.size, e.start - start_, e.end - start_});
        }
        loop_statistics table{t_.now() - start_, stats_, {}};
        wire_writer w;
        auto const encoded = encode_table(w, table);
        for (std::size_t k = 0; k < state_.size(); ++k)
            if (remote(k)) send_view(t_, settings_.worker_ranks[k], dx_table, encoded);
        table.trace = std::move(trace_);
        std::ranges::sort(table.trace, {}, &chunk_event::start);
        return table;
    }

    /// Every remote worker learns of the failure at once: some may be blocked
    /// waiting for a communication set that will never come.
    [[noreturn]] loop_statistics abort_all() {
        for (std::size_t k = 0; k < state_.size(); ++k) {
            if (!remote(k) || state_[k] == peer::aborted) continue;
            t_.send(settings_.worker_ranks[k], dx_abort, encode_failure(failure_->first, failure_->second));
            become(k, peer::aborted);
        }
        throw remote_error(failure_->first, failure_->second);
    }

    // ------------------------------------------------------------ worker

    struct held {
        work_message work;
        index_t tiles = 0, done = 0, received = 0;
        double received_at = 0.0, computed = 0.0;
        index_t initialised = 0; ///< u_s positions [0, initialised) of the chunk's own rows hold their initial values
        double waited = 0.0;               ///< blocked since the first tile or the last extension request
        index_t looked = 0;                ///< tiles done at the last extension request
        double computed_when_looked = 0.0; ///< `computed` then
    };
    /// The communication sets of one chunk not yet sent to the next chunk's holder.
    struct outgoing {
        index_t index = -1;
        std::optional<int> to; ///< the next chunk's holder, once known
        bool needed = false;   ///< false for the loop's last chunk and without cross-chunk dependences
        bytes buffer;
        index_t first_tile = 0, tiles = 0;
    };

    /// Asks for work, or does the next piece of it; false when nothing can move without a message.
    bool progress() {
        if (!computes_ || stopped_) return false;
        if (!current_) {
            if (!asked_) ask();
            return false;
        }
        if (!ready()) {
            if (should_extend()) ask_extension();
            return false;
        }
        compute_tile();
        return true;
    }

    /// Stalled on a slower predecessor: blocked for more than half as long as
    /// it computed, over at least two tiles since the last look. A rank that
    /// merely waits for the pipeline to fill, or for a message in flight, does
    /// not ask; one that keeps pace with its predecessor stops asking once its
    /// chunk is wide enough to take as long per tile as the predecessor does.
    [[nodiscard]] bool should_extend() const {
        if (!extend_when_waiting_ || extending_ || out_.to || stopped_) return false;
        auto const& c = *current_;
        if (c.work.from < 0 || c.work.from == self_ || geo_.layout.reach == 0) return false;
        return c.done - c.looked >= 2 && c.done < c.tiles && c.waited > 0.5 * (c.computed - c.computed_when_looked);
    }

    void ask_extension() {
        extending_ = true;
        current_->waited = 0.0;
        current_->looked = current_->done;
        current_->computed_when_looked = current_->computed;
        // No timing: the last chunk's went with the request for this one, and
        // adaptive policies must not count it twice.
        if (root_) {
            auto const own = static_cast<std::size_t>(settings_.own_index);
            return serve_extension(own, request{own, profile_.status(t_.now()), chunk_timing{}});
        }
        t_.send(settings_.root, dx_extend, std::move(wire_writer{}.put(profile_.status(t_.now())).put(chunk_timing{})).take());
    }

    /// Joins the granted chunk to the running one: the windows grow, the new
    /// positions get their initial values, the tiles already done are computed
    /// over them too, and the communication sets are those of the wider chunk.
    void on_extension(extension_message const& e) {
        extending_ = false;
        if (!current_ || e.first != current_->work.first + current_->work.size || out_.to)
            throw error("loopsched: DOACROSS protocol: extension [" + std::to_string(e.first) + ", +" +
                        std::to_string(e.size) + ") does not continue the running chunk");
        auto& c = *current_;
        index_t const a = c.work.first, old_end = a + c.work.size;
        index_t const old_rows_end = std::min(geo_.extent_c(), old_end + geo_.input_halo);
        c.work.size += e.size;
        c.tiles = geo_.tiles(c.work.size);
        box<N> const region = geo_.window_region(a, c.work.size);
        each_field([&](auto& win, auto const&) { grow(win, region); });
        index_t const rows_end = std::min(geo_.extent_c(), a + c.work.size + geo_.input_halo);
        box<N> const band = geo_.part(old_rows_end, rows_end, 0, c.initialised);
        each_field([&](auto& win, auto const& f) { win.fill(band, f.initial); });
        out_ = outgoing{e.index, std::nullopt, geo_.layout.reach > 0 && a + c.work.size < geo_.extent_c(), {}, 0, 0};
        for (index_t t = 0; t < c.done; ++t) {
            prepare(c, t);
            run_tile(c, t, old_end);
            if (out_.needed) pack_tile(c, t);
        }
        if (c.done == c.tiles) finish_chunk(); // without skew the tile count stays: it may be complete
    }
    /// No extension: this chunk runs as it is (the answer would not change).
    void on_declined() {
        extending_ = false;
        if (!current_) return;
        current_->looked = current_->tiles;
        if (current_->done == current_->tiles) finish_chunk();
    }
    template <class W>
    static void grow(W& w, box<N> const& region) {
        W wider(region);
        wider.copy_from(w, w.region());
        w = std::move(wider);
    }

    [[nodiscard]] bool ready() const {
        auto const& c = *current_;
        if (c.done >= c.tiles) return false;
        if (c.work.from < 0 || c.work.from == self_ || geo_.layout.reach == 0) return true;
        return c.received >= geo_.tiles_needed(c.done, c.work.prev_size);
    }

    void ask() {
        asked_ = true;
        double const now = t_.now();
        if (root_) {
            serve(static_cast<std::size_t>(settings_.own_index),
                  request{static_cast<std::size_t>(settings_.own_index), profile_.status(now), last_timing_});
            return;
        }
        wire_writer w;
        w.put(profile_.status(now)).put(last_timing_);
        if (finished_ && results_wanted()) {
            w.put(std::uint64_t{1}).put(finished_->first).put(finished_->size);
            box<N> const part = geo_.space.slice(geo_.layout.chunk_dim, finished_->first, finished_->end());
            bytes payload = std::move(w).take();
            std::apply([&](auto const&... win) { (win.pack(part, payload), ...); }, last_windows_);
            t_.send(settings_.root, dx_request, std::move(payload));
        } else {
            w.put(std::uint64_t{0});
            t_.send(settings_.root, dx_request, std::move(w).take());
        }
        finished_.reset();
        mine_.comm_seconds += t_.now() - now;
    }
    [[nodiscard]] bool results_wanted() const { return settings_.result_bytes > 0; }

    void on_work(work_message const& w) {
        double const now = t_.now();
        asked_ = false;
        geo_.h = w.h; // the root's: with h=auto only the root knows it before the first chunk
        if (out_.needed && !out_.to) {
            // The only chunk whose successor can still be unknown is the one just
            // finished, and then the new chunk is its successor, on this rank.
            if (!(w.from == self_ && w.index == out_.index + 1))
                throw error("loopsched: DOACROSS protocol: chunk " + std::to_string(out_.index) + " has no known successor");
            out_ = {};
        }
        held c{w, geo_.tiles(w.size), 0, 0, now, 0.0, 0, 0.0, 0, 0.0};
        box<N> const region = geo_.window_region(w.first, w.size);
        each_field([&](auto& win, auto const&) { win.reset(region); }); // initial values come band by band, see prepare()
        if (w.from < 0 || w.from == self_ || geo_.layout.reach == 0) { // nothing to wait for
            c.received = geo_.tiles(w.prev_size);
            if (w.from == self_ && geo_.layout.reach > 0) { // consecutive chunks here: the halo is local
                box<N> const halo = geo_.space.slice(geo_.layout.chunk_dim, geo_.halo_first(w.prev_first, w.prev_size),
                                                     w.prev_first + w.prev_size);
                copy_fields(windows_, last_windows_, halo);
            }
        }
        out_ = outgoing{w.index, std::nullopt, geo_.layout.reach > 0 && w.first + w.size < geo_.extent_c(), {}, 0, 0};
        current_ = c;
        for (auto it = early_.begin(); it != early_.end();) { // sets that overtook the master's reply
            if (wire_reader(it->payload).get<data_header>().index == w.index - 1) {
                apply_data(*it);
                it = early_.erase(it);
            } else {
                ++it;
            }
        }
        if (c.tiles == 0) finish_chunk();
    }

    template <class Fn>
    void each_field(Fn&& fn) {
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (fn(std::get<I>(windows_), std::get<I>(fields_)), ...);
        }(std::index_sequence_for<F...>{});
    }
    /// Copies `part` of every field from one set of windows to another.
    static void copy_fields(windows_t& to, windows_t const& from, box<N> const& part) {
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (std::get<I>(to).copy_from(std::get<I>(from), part), ...);
        }(std::index_sequence_for<F...>{});
    }

    void on_successor(successor_message const& s) {
        if (s.index != out_.index || !out_.needed)
            throw error("loopsched: DOACROSS protocol: successor for chunk " + std::to_string(s.index) + " unexpected");
        out_.to = s.to;
        flush();
    }

    void on_data(message const& m) {
        auto const head = wire_reader(m.payload).get<data_header>();
        if (current_ && head.index == current_->work.index - 1 && m.source == current_->work.from) apply_data(m);
        else early_.push_back(m);
    }

    void apply_data(message const& m) {
        auto& c = *current_;
        wire_reader r(m.payload);
        auto const head = r.get<data_header>();
        if (head.first_tile != c.received)
            throw error("loopsched: DOACROSS protocol: sets from " + std::to_string(head.first_tile) + " arrived, expected " +
                        std::to_string(c.received));
        index_t const a = c.work.prev_first, b = c.work.prev_first + c.work.prev_size;
        for (index_t t = head.first_tile; t < head.first_tile + head.tiles; ++t)
            geo_.for_each_piece(a, t, geo_.halo_first(a, c.work.prev_size), b, [&](box<N> const& piece) {
                std::apply([&](auto&... win) { ((unpack_into(win, piece, r)), ...); }, windows_);
            });
        c.received += head.tiles;
    }

    /// Gives tile t's rows (and the input halo after them) their initial values.
    /// Done per tile rather than per chunk, so a rank keeps serving and sending
    /// between tiles instead of going silent while it fills a whole chunk
    /// (a silent receiver stalls MPI sends to it). The halo rows before the
    /// chunk are left alone: they hold the previous chunk's values, received
    /// ahead of this band or copied.
    void prepare(held& c, index_t t) {
        index_t const need = std::min(geo_.extent_s(), (t + 1) * geo_.h + geo_.input_halo);
        if (need <= c.initialised) return;
        index_t const a = c.work.first, rows_end = std::min(geo_.extent_c(), a + c.work.size + geo_.input_halo);
        box<N> const band = geo_.part(a, rows_end, c.initialised, need);
        each_field([&](auto& win, auto const& f) { win.fill(band, f.initial); });
        c.initialised = need;
    }

    void compute_tile() {
        auto& c = *current_;
        index_t const t = c.done;
        prepare(c, t);
        run_tile(c, t, c.work.first);
        ++c.done;
        if (out_.needed) {
            pack_tile(c, t);
            flush();
        }
        if (c.done == c.tiles && !extending_) finish_chunk(); // else after the master's answer
    }

    /// Runs tile t of the held chunk over its u_c positions from c0 on.
    void run_tile(held& c, index_t t, index_t c0) {
        index_t const a = c.work.first, b = a + c.work.size;
        double const begin = t_.now();
        geo_.for_each_piece(a, t, c0, b, [&](box<N> const& piece) {
            std::apply([&](auto&... win) { body_(piece, win...); }, windows_);
        });
        double end = t_.now();
        if (profile_.slowness.slowdown() > 0.0) {
            profile_.slowness.after(end - begin);
            end = t_.now();
        }
        mine_.compute_seconds += end - begin;
        c.computed += end - begin;
        if (settings_.trace) own_trace_.push_back({self_, c0, b - c0, begin, end}); // this rank's clock
    }
    /// Buffers tile t's communication set for the next chunk.
    void pack_tile(held const& c, index_t t) {
        index_t const a = c.work.first, b = a + c.work.size;
        geo_.for_each_piece(a, t, geo_.halo_first(a, c.work.size), b, [&](box<N> const& piece) {
            std::apply([&](auto const&... win) { (win.pack(piece, out_.buffer), ...); }, windows_);
        });
        ++out_.tiles;
    }

    /// Sends every buffered set in one message once the next chunk's holder is known.
    void flush() {
        if (!out_.to || out_.tiles == 0) return;
        if (*out_.to == self_) { // the next chunk is ours: its halo is copied locally
            out_.buffer.clear();
            out_.tiles = 0;
            return;
        }
        double const begin = t_.now();
        wire_writer w;
        w.put(data_header{out_.index, out_.first_tile, out_.tiles});
        bytes payload = std::move(w).take();
        payload.insert(payload.end(), out_.buffer.begin(), out_.buffer.end());
        t_.send(*out_.to, dx_data, std::move(payload));
        out_.first_tile += out_.tiles;
        out_.tiles = 0;
        out_.buffer.clear();
        mine_.comm_seconds += t_.now() - begin;
    }

    void finish_chunk() {
        auto const& c = *current_;
        double const now = t_.now();
        last_timing_ = chunk_timing{c.work.size, c.computed, now - c.received_at};
        if (settings_.trace && c.tiles == 0) own_trace_.push_back({self_, c.work.first, c.work.size, now, now});
        chunk const done{c.work.first, c.work.size};
        if (root_ && results_wanted()) {
            box<N> const part = geo_.space.slice(geo_.layout.chunk_dim, done.first, done.end());
            copy_fields(*results_, windows_, part);
        }
        mine_.iterations += c.work.size;
        ++mine_.chunks;
        std::swap(last_windows_, windows_); // kept: the next chunk may be ours, and results may ride on the request
        finished_ = done;
        current_.reset();
        ask();
    }

    void on_stop() {
        stopped_ = true;
        asked_ = false;
        if (root_) return;
        wire_writer w;
        w.put(mine_).put(t_.now());
        w.put(own_trace_.size());
        for (auto const& e : own_trace_) w.put(e);
        t_.send(settings_.root, dx_report, std::move(w).take());
    }

    /// This worker's body threw: tell the master, then wait for its verdict.
    loop_statistics fail_as_worker(std::string const& what) {
        t_.send(settings_.root, dx_failed, encode_failure(self_, what));
        while (true) {
            message m = t_.receive(any_source, any_tag);
            if (m.tag == dx_abort) {
                auto [origin, text] = decode_failure(m);
                throw remote_error(origin, text);
            }
        }
    }

    Tr& t_;
    doacross_geometry<N> geo_;
    runtime_settings const& settings_;
    rank_profile& profile_;
    Body& body_;
    std::tuple<F...> const& fields_;
    windows_t* results_;
    bool extend_when_waiting_;
    int self_;
    bool root_, computes_;
    double start_ = 0.0;
    std::deque<message> local_;

    // master
    std::optional<chunk_sequencer<widened<P>>> seq_;
    std::vector<worker_statistics> stats_;
    std::vector<peer> state_;
    std::vector<std::optional<request>> parked_;
    std::size_t owing_ = 0, parked_count_ = 0;
    index_t granted_ = 0;
    int holder_ = -1; ///< rank holding the newest chunk ("current")
    chunk last_{};
    std::vector<chunk_event> trace_;
    std::optional<std::pair<int, std::string>> failure_;

    // worker
    worker_statistics mine_;
    std::optional<held> current_;
    std::optional<chunk> finished_; ///< the last finished chunk, whose results ride on the next request
    windows_t windows_, last_windows_;
    outgoing out_;
    std::deque<message> early_;
    chunk_timing last_timing_{};
    bool asked_ = false, stopped_ = false;
    bool extending_ = false; ///< an extension request is waiting for its answer
    std::vector<chunk_event> own_trace_;
    std::optional<loop_statistics> table_;
};

} // namespace loopsched::detail
