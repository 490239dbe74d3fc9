// The DOACROSS worker's client of the protocol core (Ciorba, sections
// 4.3-4.4): a chunk runs tile by tile along u_s, each tile waiting for the
// previous chunk's communication sets it needs (runtime/doacross/doacross_sets.hpp
// receives them, and buffers and sends the chunk's own).
// A worker stalled on a slower predecessor may ask to take the next chunk too.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/runtime/core/core.hpp>
#include <loopsched/runtime/doacross/doacross_body.hpp>
#include <loopsched/runtime/doacross/doacross_geometry.hpp>
#include <loopsched/runtime/doacross/doacross_sets.hpp>
#include <loopsched/runtime/core/profile.hpp>
#include <loopsched/schedule.hpp>

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace loopsched::detail {

template <Transport T, std::size_t N>
class doacross_worker {
public:
    static constexpr worker_hooks hooks{.waited = true};

    /// `root_results`: the root's windows over the whole space, when this
    /// worker is the root's own and the loop gathers (its chunks' values go
    /// there directly); `gather`: the loop gathers; `interval`: where the
    /// interval the root chose is written once a chunk brings it.
    doacross_worker(worker_port<T>& port, doacross_geometry<N> const& geometry, rank_profile& profile,
                    doacross_body<N>& body, field_windows<N>* root_results, bool gather, bool extend_when_waiting,
                    index_t& interval)
            : port_(port), geo_(geometry), profile_(profile), point_bytes_(body.point_bytes()), root_results_(root_results),
              gather_(gather), extend_when_waiting_(extend_when_waiting), interval_(interval),
              self_(port.rank()), mine_{port.rank()}, windows_(body.make()), last_windows_(body.make()),
              sets_(port, port.rank()) {}

    // ---------------------------------------------------------------- the core's calls

    void on_work(message_view m) { start_chunk(wire_reader(m.payload).get<work_message>()); }

    /// Asks for work when it has none, or for an extension when stalled; true
    /// when a tile can run now.
    bool can_step() {
        if (!current_) {
            if (!asked_) ask();
            return false;
        }
        if (!ready()) {
            if (should_extend()) ask_extension();
            return false;
        }
        return true;
    }
    double step() {
        compute_tile();
        return 0.0; // the tile's end is not at hand here: the runner looks for messages after every tile
    }
    [[nodiscard]] bool poll_after_step() const noexcept { return true; }

    void on_message(kind what, message_view m) {
        switch (what) {
        case kind::successor: on_successor(wire_reader(m.payload).get<successor_message>()); break;
        case kind::data: on_data(m); break;
        case kind::extension: on_extension(wire_reader(m.payload).get<extension_message>()); break;
        case kind::declined: on_declined(); break;
        default:
            throw error("loopsched: protocol: unexpected message kind " + std::to_string(m.tag) +
                        " at a DOACROSS worker");
        }
    }
    /// Time spent blocked waiting for a message.
    void waited(double seconds) {
        mine_.wait_seconds += seconds;
        if (current_ && current_->done > 0) current_->waited += seconds;
    }

    worker_statistics statistics(double) const { return mine_; }
    [[nodiscard]] result_blocks& results() noexcept { return results_; }
    [[nodiscard]] std::span<chunk_event const> trace() const noexcept { return trace_; }

private:
    struct held {
        work_message work;
        index_t tiles = 0, done = 0, received = 0;
        double received_at = 0.0, computed = 0.0;
        index_t initialised = 0; ///< u_s positions [0, initialised) of the chunk's own rows hold their initial values
        double waited = 0.0;     ///< blocked since the first tile or the last extension request
        index_t looked = 0;      ///< tiles done at the last extension request
        double computed_when_looked = 0.0; ///< `computed` then
    };

    void ask() {
        asked_ = true;
        double const now = port_.now();
        port_.request(profile_.status(now), last_timing_, results_);
        mine_.comm_seconds += port_.now() - now;
    }

    void start_chunk(work_message const& w) {
        double const now = port_.now();
        asked_ = false;
        geo_.h = interval_ = w.h; // the root's: with h=auto only the root knows it before the first chunk
        sets_.check_successor(w);
        held c{w, geo_.tiles(w.size), 0, 0, now, 0.0, 0, 0.0, 0, 0.0};
        box<N> const region = geo_.window_region(w.first, w.size);
        windows_->reset(region); // initial values come band by band, see prepare()
        if (w.from < 0 || w.from == self_ || geo_.layout.reach == 0) { // nothing to wait for
            c.received = geo_.tiles(w.prev_size);
            if (w.from == self_ && geo_.layout.reach > 0) { // consecutive chunks here: the halo is local
                box<N> const halo = geo_.space.slice(geo_.layout.chunk_dim, geo_.halo_first(w.prev_first, w.prev_size),
                                                     w.prev_first + w.prev_size);
                windows_->copy_from(*last_windows_, halo);
            }
        }
        sets_.start(w.index, geo_.layout.reach > 0 && w.first + w.size < geo_.extent_c());
        current_ = c;
        sets_.take_early(w.index, [&](message_view m) { apply_data(m); }); // sets that overtook the master's reply
        if (c.tiles == 0) finish_chunk();
    }

    [[nodiscard]] bool ready() const {
        auto const& c = *current_;
        if (c.done >= c.tiles) return false;
        if (c.work.from < 0 || c.work.from == self_ || geo_.layout.reach == 0) return true;
        return c.received >= geo_.tiles_needed(c.done, c.work.prev_size);
    }

    /// Stalled on a slower predecessor: blocked for more than half as long as
    /// it computed, over at least two tiles since the last look. A rank that
    /// merely waits for the pipeline to fill, or for a message in flight, does
    /// not ask; one that keeps pace with its predecessor stops asking once its
    /// chunk is wide enough to take as long per tile as the predecessor does.
    [[nodiscard]] bool should_extend() const {
        if (!extend_when_waiting_ || extending_ || sets_.successor_known()) return false;
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
        request_header const h{profile_.status(port_.now()), chunk_timing{}, 0};
        port_.send_master(kind::extend, std::as_bytes(std::span(&h, 1)));
    }

    /// Joins the granted chunk to the running one: the windows grow, the new
    /// positions get their initial values, the tiles already done are computed
    /// over them too, and the communication sets are those of the wider chunk.
    void on_extension(extension_message const& e) {
        extending_ = false;
        if (!current_ || e.first != current_->work.first + current_->work.size || sets_.successor_known())
            throw error("loopsched: DOACROSS protocol: extension [" + std::to_string(e.first) + ", +" +
                        std::to_string(e.size) + ") does not continue the running chunk");
        auto& c = *current_;
        index_t const a = c.work.first, old_end = a + c.work.size;
        index_t const old_rows_end = geo_.rows_end(a, c.work.size);
        c.work.size += e.size;
        c.tiles = geo_.tiles(c.work.size);
        box<N> const region = geo_.window_region(a, c.work.size);
        windows_->grow(region);
        windows_->fill(geo_.part(old_rows_end, geo_.rows_end(a, c.work.size), 0, c.initialised));
        sets_.start(e.index, geo_.layout.reach > 0 && a + c.work.size < geo_.extent_c());
        for (index_t t = 0; t < c.done; ++t) {
            prepare(c, t);
            run_tile(c, t, old_end);
            if (sets_.needed()) sets_.pack(geo_, *windows_, a, c.work.size, t);
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
    void on_successor(successor_message const& s) {
        sets_.on_successor(s);
        mine_.comm_seconds += sets_.flush();
    }

    void on_data(message_view m) {
        auto const head = wire_reader(m.payload).get<data_header>();
        if (current_ && head.index == current_->work.index - 1 && m.source == current_->work.from)
            apply_data(m);
        else
            sets_.keep(m);
    }

    void apply_data(message_view m) {
        auto& c = *current_;
        doacross_sets<T, N>::apply(geo_, m, *windows_, point_bytes_, c.work.prev_first, c.work.prev_size,
                                   c.received);
    }

    /// Gives tile t's rows (and the input halo after them) their initial values.
    /// Done per tile rather than per chunk, so a rank keeps serving and sending
    /// between tiles instead of going silent while it fills a whole chunk
    /// (a silent receiver stalls MPI sends to it). The halo rows before the
    /// chunk are left alone: they hold the previous chunk's values, received
    /// ahead of this band or copied.
    void prepare(held& c, index_t t) {
        index_t const need = std::min(geo_.extent_s(), saturating_add(saturating_mul(t + 1, geo_.h), geo_.input_halo));
        if (need <= c.initialised) return;
        windows_->fill(geo_.part(c.work.first, geo_.rows_end(c.work.first, c.work.size), c.initialised, need));
        c.initialised = need;
    }

    void compute_tile() {
        auto& c = *current_;
        index_t const t = c.done;
        prepare(c, t);
        run_tile(c, t, c.work.first);
        ++c.done;
        if (sets_.needed()) {
            sets_.pack(geo_, *windows_, c.work.first, c.work.size, t);
            mine_.comm_seconds += sets_.flush();
        }
        if (c.done == c.tiles && !extending_) finish_chunk(); // else after the master's answer
    }

    /// Runs tile t of the held chunk over its u_c positions from c0 on.
    void run_tile(held& c, index_t t, index_t c0) {
        index_t const a = c.work.first, b = a + c.work.size;
        double const begin = port_.now();
        windows_->run_tile(geo_, a, t, c0, b);
        double end = port_.now();
        if (profile_.slowness.slowdown() > 0.0) {
            profile_.slowness.after(end - begin);
            end = port_.now();
        }
        mine_.compute_seconds += end - begin;
        c.computed += end - begin;
        if (port_.settings().trace) trace_.push_back({self_, c0, b - c0, begin, end}); // this rank's clock
    }
    void finish_chunk() {
        auto const& c = *current_;
        double const now = port_.now();
        last_timing_ = chunk_timing{c.work.size, c.computed, now - c.received_at};
        if (port_.settings().trace && c.tiles == 0) trace_.push_back({self_, c.work.first, c.work.size, now, now});
        chunk const done{c.work.first, c.work.size};
        if (gather_) {
            box<N> const part = geo_.space.slice(geo_.layout.chunk_dim, done.first, done.end());
            if (root_results_)
                root_results_->copy_from(*windows_, part);
            else
                results_.add_written(done.first, done.size,
                                     [&](std::vector<std::byte>& out) { windows_->pack(part, out); });
        }
        mine_.iterations += c.work.size;
        ++mine_.chunks;
        std::swap(last_windows_, windows_); // kept: the next chunk may be ours
        current_.reset();
        ask();
    }

    worker_port<T>& port_;
    doacross_geometry<N> geo_;
    rank_profile& profile_;
    std::size_t point_bytes_; ///< one point of every field
    field_windows<N>* root_results_;
    bool gather_, extend_when_waiting_;
    index_t& interval_;
    int self_;
    worker_statistics mine_;
    std::optional<held> current_;
    std::unique_ptr<field_windows<N>> windows_, last_windows_;
    doacross_sets<T, N> sets_;
    result_blocks results_;
    chunk_timing last_timing_{};
    bool asked_ = true;      ///< the hello was the first request
    bool extending_ = false; ///< an extension request is waiting for its answer
    std::vector<chunk_event> trace_;
};

} // namespace loopsched::detail
