// A DOACROSS worker's communication sets (Ciorba, 4.3): those its running
// chunk needs from the previous chunk's holder (they may arrive before the
// chunk itself: kept until then), and its own, buffered for the next chunk's
// holder until the master names it, then sent in one message per flush.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/runtime/core/core.hpp>
#include <loopsched/runtime/doacross/doacross_body.hpp>
#include <loopsched/runtime/doacross/doacross_geometry.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace loopsched::detail {

template <Transport T, std::size_t N>
class doacross_sets {
public:
    doacross_sets(worker_port<T>& port, int self) : port_(port), self_(self) {}

    // ---- the sets this rank sends

    /// Chunk `index` starts, or grew: its sets go to the next chunk's holder if `needed`.
    void start(index_t index, bool needed) { out_ = outgoing{index, std::nullopt, needed, {}, 0, 0}; }
    /// Chunk `w` arrives while the last one's successor is unknown: only the
    /// next chunk on this rank can be that successor, and its halo is local.
    void check_successor(work_message const& w) {
        if (!out_.needed || out_.to) return;
        if (!(w.from == self_ && w.index == out_.index + 1))
            throw error("loopsched: DOACROSS protocol: chunk " + std::to_string(out_.index) +
                        " has no known successor");
        out_ = {};
    }
    [[nodiscard]] bool needed() const noexcept { return out_.needed; }
    [[nodiscard]] bool successor_known() const noexcept { return out_.to.has_value(); }
    /// Buffers tile t's set of chunk [a, a + size) from `windows`.
    void pack(doacross_geometry<N> const& geo, field_windows<N> const& windows, index_t a, index_t size, index_t t) {
        geo.for_each_piece(a, t, geo.halo_first(a, size), a + size,
                           [&](box<N> const& piece) { windows.pack(piece, out_.buffer); });
        ++out_.tiles;
    }
    /// The master named the next chunk's holder.
    void on_successor(successor_message const& s) {
        if (s.index != out_.index || !out_.needed)
            throw error("loopsched: DOACROSS protocol: successor for chunk " + std::to_string(s.index) + " unexpected");
        out_.to = s.to;
    }
    /// Sends every buffered set in one message once the next chunk's holder
    /// is known; the seconds it took.
    double flush() {
        if (!out_.to || out_.tiles == 0) return 0.0;
        if (*out_.to == self_) { // the next chunk is ours: its halo is copied locally
            out_.buffer.clear();
            out_.tiles = 0;
            return 0.0;
        }
        double const begin = port_.now();
        wire_writer w;
        w.put(data_header{out_.index, out_.first_tile, out_.tiles}).put_raw({out_.buffer.data(), out_.buffer.size()});
        port_.send_rank(*out_.to, kind::data, std::move(w).take());
        out_.first_tile += out_.tiles;
        out_.tiles = 0;
        out_.buffer.clear();
        return port_.now() - begin;
    }

    // ---- the sets this rank receives

    /// A set for a chunk this rank does not run yet: kept.
    void keep(message_view m) { early_.push_back(message{m.source, m.tag, copy_bytes(m.payload)}); }
    /// The kept sets chunk `index` waits for (the previous chunk's), each through `apply`.
    template <class Apply>
    void take_early(index_t index, Apply&& apply) {
        for (auto it = early_.begin(); it != early_.end();) {
            if (wire_reader(it->payload).get<data_header>().index == index - 1) {
                apply(message_view(*it));
                it = early_.erase(it);
            } else {
                ++it;
            }
        }
    }
    /// Unpacks a set message into `windows`, for a chunk whose predecessor is
    /// [prev_first, prev_first + prev_size); `received` counts the tiles so
    /// far, and the message must continue them.
    static void apply(doacross_geometry<N> const& geo, message_view m, field_windows<N>& windows,
                      std::size_t point_bytes, index_t prev_first, index_t prev_size, index_t& received) {
        wire_reader r(m.payload);
        auto const head = r.get<data_header>();
        if (head.first_tile != received)
            throw error("loopsched: DOACROSS protocol: sets from " + std::to_string(head.first_tile) +
                        " arrived, expected " + std::to_string(received));
        index_t const b = prev_first + prev_size;
        for (index_t t = head.first_tile; t < head.first_tile + head.tiles; ++t)
            geo.for_each_piece(prev_first, t, geo.halo_first(prev_first, prev_size), b, [&](box<N> const& piece) {
                (void)windows.unpack(piece, r.get_raw(static_cast<std::size_t>(piece.size()) * point_bytes));
            });
        received += head.tiles;
    }

private:
    /// The communication sets of one chunk not yet sent to the next chunk's holder.
    struct outgoing {
        index_t index = -1;
        std::optional<int> to; ///< the next chunk's holder, once known
        bool needed = false;   ///< false for the loop's last chunk and without cross-chunk dependences
        std::vector<std::byte> buffer; ///< kept between flushes, so that its storage is reused
        index_t first_tile = 0, tiles = 0;
    };

    worker_port<T>& port_;
    int self_;
    outgoing out_;
    std::vector<message> early_; // (a deque would allocate when made, every loop)
};

} // namespace loopsched::detail
