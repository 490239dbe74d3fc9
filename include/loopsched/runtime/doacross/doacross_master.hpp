// The DOACROSS master's client of the protocol core (Ciorba, sections
// 4.3-4.4): the policy's chunks along u_c, with the transaction accounting of
// who holds the newest chunk, so that the holder of the chunk before learns
// where its communication sets go; extensions for a stalled worker; the
// fields' values riding on requests into the root's windows.
#pragma once

#include <loopsched/adaptor/widened.hpp>
#include <loopsched/error.hpp>
#include <loopsched/runtime/core/core.hpp>
#include <loopsched/runtime/doacross/doacross_body.hpp>
#include <loopsched/runtime/doacross/doacross_geometry.hpp>
#include <loopsched/schedule.hpp>

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <utility>

namespace loopsched::detail {

template <Transport T, ChunkPolicy P, std::size_t N>
class doacross_master {
public:
    static constexpr master_hooks hooks{};

    /// `results`: the root's windows over the whole space (null: nothing gathered).
    doacross_master(master_port<T>& port, doacross_geometry<N> const& geometry, P const& policy, loop_info info,
                    field_windows<N>* results)
            : port_(port), geo_(geometry),
              seq_(widened<P>{policy, std::max<index_t>(1, geometry.layout.reach)}, std::move(info)),
              results_(results) {}

    /// Transaction accounting: the new chunk's holder becomes current, the last
    /// one previous, and the previous holder learns where to send its sets.
    index_t serve(std::size_t k, request const& r) {
        auto const c = seq_.next(r);
        if (!c) return 0;
        int const to = port_.settings().worker_ranks[k];
        index_t const index = granted_++;
        work_message const w{index, c->first, c->size, index == 0 ? -1 : holder_, 0, last_.first, last_.size, geo_.h};
        port_.send_worker(k, kind::work, std::as_bytes(std::span(&w, 1)));
        if (index > 0 && holder_ != to && geo_.layout.reach > 0) {
            successor_message const s{index - 1, to, 0};
            port_.send_rank(holder_, kind::successor, std::as_bytes(std::span(&s, 1)));
        }
        holder_ = to;
        last_ = *c;
        return c->size;
    }
    [[nodiscard]] bool done() const noexcept { return seq_.done(); }

    void take_result(index_t first, index_t size, std::span<std::byte const> bytes) {
        if (!results_) throw error("loopsched: results arrived for a DOACROSS loop that gathers none");
        if (first < 0 || size < 0 || first > geo_.extent_c() - size)
            throw error("loopsched: results for positions outside the loop");
        if (results_->unpack(geo_.space.slice(geo_.layout.chunk_dim, first, first + size), bytes) != bytes.size())
            throw error("loopsched: a block of results with bytes to spare");
    }

    void on_message(std::size_t k, kind what, message_view m) {
        if (what != kind::extend)
            throw error("loopsched: protocol: unexpected message kind " + std::to_string(m.tag) +
                        " at a DOACROSS master");
        auto const h = wire_reader(m.payload).get<request_header>();
        serve_extension(k, request{k, h.status, h.timing});
    }

    /// The interval the loop runs with (the root may measure it before the first grant).
    void set_interval(index_t h) noexcept { geo_.h = h; }

private:
    /// Worker k, stalled on its predecessor, asks to take the next chunk as
    /// well. Granted only while it holds the newest chunk, so nobody depends
    /// on that chunk yet and it may grow: the two become one chunk.
    void serve_extension(std::size_t k, request const& r) {
        int const to = port_.settings().worker_ranks[k];
        std::optional<chunk> c;
        if (holder_ == to && !seq_.done()) c = seq_.next(r);
        if (!c) return port_.send_worker(k, kind::declined, {});
        extension_message const e{granted_++, c->first, c->size};
        port_.send_worker(k, kind::extension, std::as_bytes(std::span(&e, 1)));
        port_.count(k, c->size);
        last_.size += c->size; // what the next chunk's holder waits for
    }

    master_port<T>& port_;
    doacross_geometry<N> geo_;
    chunk_sequencer<widened<P>> seq_;
    field_windows<N>* results_;
    index_t granted_ = 0;
    int holder_ = -1; ///< rank holding the newest chunk ("current")
    chunk last_{};
};

} // namespace loopsched::detail
