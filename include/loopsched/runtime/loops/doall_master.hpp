// The DOALL master: the protocol core's client that grants a loop's chunks
// from a policy, placed by a mapping, with reissue and TreeS's partner splits.
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/error.hpp>
#include <loopsched/mapping/mapping.hpp>
#include <loopsched/runtime/core/core.hpp>
#include <loopsched/runtime/core/departures.hpp>
#include <loopsched/runtime/loops/partners.hpp>
#include <loopsched/runtime/loops/reissue.hpp>
#include <loopsched/schedule.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
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
              seq_(policy, std::move(info)), body_(body), departures_(port.settings().workers()) {
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
        if (departures_.has_gone(k)) return 0; // it waits for the loop's end
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
    void complete(loop_statistics& table) {
        seq_.finish(table); // a policy that learns across executions (automatic) hears how this one went
        departures_.complete(table);
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
    departure_book departures_;

    /// Worker k takes no more work (it left, or was presumed lost); someone must remain.
    void gone(std::size_t k) {
        departures_.gone(k);
        if (departures_.remaining() == 0)
            throw error("loopsched: every worker left the loop (departure::leave) or was lost while work remained");
    }

    /// Worker k leaves, giving back `back`: with reissue its whole chunk, which
    /// the book hands on; else the part it had not run, which the book splits
    /// among the others (the part it ran counts, its results on their way).
    void leave(std::size_t k, chunk back) {
        if (!book_) throw error("loopsched: protocol: a worker left a loop without options.departures");
        auto const& settings = port_.settings();
        if (departures_.has_gone(k)) throw error("loopsched: protocol: a worker left a loop twice");
        departures_.left(k, settings.worker_ranks[k]);
        gone(k); // someone must remain
        if (settings.reissue)
            book_->abandoned(k);
        else
            book_->gave_back(k, back, static_cast<index_t>(departures_.remaining()));
    }
};

} // namespace loopsched::detail
