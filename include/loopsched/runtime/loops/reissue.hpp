// Re-issue for DOALL loops (after Mohammed and Ciorba, "rDLB: A Novel Approach for
// Robust Dynamic Load Balancing of Scientific Applications with Parallel Independent
// Tasks"): the master's book of granted chunks, the copies of unfinished ones it hands
// to idle workers, and whose results count.
#pragma once

#include <loopsched/detail/arithmetic.hpp>
#include <loopsched/error.hpp>
#include <loopsched/schedule.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace loopsched::detail {

/// Every chunk the master granted until it is finished. A worker's request
/// means the chunk it held is finished, or abandoned on a cancel (reissue runs
/// without request-ahead). Once the policy has nothing left, an idle worker
/// gets a copy: the first time a chunk is copied it is split into one part per
/// other worker, so that the copies of a large chunk (factoring's first batch
/// is half the loop over P) finish in a fraction of its time. A chunk is
/// finished when its holder finishes it, or when all its parts are; whichever
/// comes first wins, the other holders are cancelled, and only the winner's
/// results count. The root's own chunks are never copied and the root takes
/// no copies: its results go straight into the output. A chunk whose holder
/// left the loop goes whole to the next worker that asks.
class reissue_book {
public:
    /// `own_index`: the root's worker index, or -1.
    reissue_book(std::size_t workers, int own_index) : held_(workers), own_(own_index) {
        for (std::size_t k = 0; k < workers; ++k) others_ += static_cast<int>(k) == own_ ? 0 : 1;
    }

    /// An original grant of `c` to worker k.
    void granted(std::size_t k, chunk c) {
        held_[k] = add(entry{.c = c, .original = k, .holders = 1, .granted = true});
        ++unfinished_;
    }

    /// Worker k left the loop: the chunk it held is unfinished again, and
    /// goes to the next worker to ask (orphan_for) before any new chunk.
    void abandoned(std::size_t k) {
        auto const i = std::exchange(held_[k], std::nullopt);
        if (!i) return;
        --entries_[*i].holders;
        orphans_ = orphans_ || (!entries_[*i].finished && entries_[*i].holders == 0);
    }

    /// Worker k left, having run its chunk up to `back`, which it gives back:
    /// what it ran is finished (its results count), and `back` becomes up to
    /// `parts` chunks for the next workers to ask (orphan_for).
    void gave_back(std::size_t k, chunk back, index_t parts) {
        if (!held_[k]) return;
        parts = std::clamp<index_t>(parts, 1, std::max<index_t>(1, back.size));
        if (back.first == entries_[*held_[k]].c.first && parts == 1) return abandoned(k); // all of it, to one
        auto const i = std::exchange(held_[k], std::nullopt);
        auto& e = entries_[*i];
        --e.holders;
        e.finished = true; // by what it ran and the parts of the rest
        --unfinished_;
        chunk const whole = e.c;
        if (back.first > whole.first)
            add(entry{.c = chunk{whole.first, back.first - whole.first}, .original = k, .finished = true,
                      .winner = k});
        for (index_t p = 0; p < parts && back.size > 0; ++p) {
            index_t const begin = back.first + back.size * p / parts, end = back.first + back.size * (p + 1) / parts;
            add(entry{.c = chunk{begin, end - begin}, .original = k, .granted = true});
            ++unfinished_;
            orphans_ = true;
        }
    }

    /// An unfinished chunk or part that nobody holds since its holder left,
    /// for worker k (the root too: it then counts as the chunk's own, never copied).
    std::optional<chunk> orphan_for(std::size_t k) {
        if (!orphans_ || held_[k]) return std::nullopt;
        for (std::size_t i = oldest_; i < entries_.size(); ++i) {
            auto& e = entries_[i];
            if (e.finished || e.split || !e.granted || e.holders > 0) continue;
            e.original = k;
            e.holders = 1;
            held_[k] = i;
            return e.c;
        }
        orphans_ = false;
        return std::nullopt;
    }

    /// Worker k asked again: the chunk it held (if any) is finished, or was
    /// abandoned on a cancel. The first time a chunk finishes, `cancel(j, c)`
    /// is called for each other worker j that holds it (or a part of it).
    template <class Cancel>
    void finished(std::size_t k, Cancel&& cancel) {
        auto const i = std::exchange(held_[k], std::nullopt);
        if (!i) return;
        --entries_[*i].holders;
        if (entries_[*i].finished) {
            ++dropped_;
            return;
        }
        finish(*i, k, cancel);
    }

    /// A copy for idle worker k, if any: of the unfinished chunks and parts
    /// (not the root's, not k's own), the one with the fewest holders, the
    /// oldest of those; a chunk not yet copied is split first.
    std::optional<chunk> copy_for(std::size_t k) {
        if (static_cast<int>(k) == own_ || held_[k]) return std::nullopt;
        while (oldest_ < entries_.size() && entries_[oldest_].finished) ++oldest_;
        std::optional<std::size_t> best;
        for (std::size_t i = oldest_; i < entries_.size(); ++i) {
            auto const& e = entries_[i];
            if (e.finished || e.split || e.original == k || static_cast<int>(e.original) == own_) continue;
            if (!best || e.holders < entries_[*best].holders) best = i;
        }
        if (!best) return std::nullopt;
        if (!entries_[*best].whole) best = split(*best);
        auto& e = entries_[*best];
        if (e.holders == 0 && !e.granted) { // a part's first grant
            e.original = k;
            e.granted = true;
        }
        ++e.holders;
        held_[k] = *best;
        ++reissued_;
        return e.c;
    }

    /// Whether results for iterations [first, first + size), sent by worker k,
    /// count: the winner's do, any other's are dropped.
    [[nodiscard]] bool counts(std::size_t k, index_t first, index_t size) const {
        auto const at = std::ranges::lower_bound(index_, key{first, size}, {}, &indexed::first);
        if (at == index_.end() || at->first != key{first, size})
            throw error("loopsched: protocol: results for iterations [" + std::to_string(first) + ", " +
                        std::to_string(first + size) + "), which no chunk granted covers");
        auto const& e = entries_[at->second];
        return e.finished && e.winner == k;
    }

    [[nodiscard]] bool all_finished() const noexcept { return unfinished_ == 0; }
    [[nodiscard]] std::uint64_t reissued() const noexcept { return reissued_; }
    [[nodiscard]] std::uint64_t dropped() const noexcept { return dropped_; }

private:
    struct entry {
        chunk c;
        std::size_t original = 0; ///< the worker it was first granted to
        std::uint32_t holders = 0;
        bool finished = false;
        bool split = false;   ///< copied as parts (then no longer copied whole)
        bool granted = false; ///< a part: granted once
        std::optional<std::size_t> winner{}; ///< whose results count (none: the parts', or nobody's)
        std::optional<std::size_t> whole{};  ///< a part: the chunk it is part of
        std::uint32_t parts_left = 0;        ///< a split chunk: its unfinished parts
        std::size_t first_part = 0, parts = 0;
    };

    std::size_t add(entry e) {
        key const k{e.c.first, e.c.size};
        auto const at = std::ranges::lower_bound(index_, k, {}, &indexed::first);
        if (at != index_.end() && at->first == k) [[unlikely]]
            throw error("loopsched: internal: two entries for iterations [" + std::to_string(e.c.first) + ", " +
                        std::to_string(e.c.end()) + ") in the reissue book");
        index_.insert(at, indexed{k, entries_.size()}); // grants come in order: mostly at the end
        entries_.push_back(e);
        return entries_.size() - 1;
    }

    /// Splits chunk i into one part per worker that may take one (all but the
    /// root and its holder), and returns the first part; a chunk too small
    /// for two parts is copied whole.
    std::size_t split(std::size_t i) {
        index_t const size = entries_[i].c.size;
        index_t const parts = std::min<index_t>(size, std::max(1, others_ - 1));
        if (parts < 2) return i;
        entries_[i].split = true;
        entries_[i].parts_left = static_cast<std::uint32_t>(parts);
        entries_[i].first_part = entries_.size();
        entries_[i].parts = static_cast<std::size_t>(parts);
        index_t at = entries_[i].c.first;
        for (index_t p = 0; p < parts; ++p) {
            index_t const n = size / parts + (p < size % parts ? 1 : 0);
            add(entry{.c = chunk{at, n}, .original = entries_[i].original, .whole = i});
            at += n;
        }
        return entries_[i].first_part;
    }

    template <class Cancel>
    void cancel_holders(std::size_t i, Cancel& cancel) {
        if (entries_[i].holders == 0) return;
        for (std::size_t j = 0; j < held_.size(); ++j)
            if (held_[j] == i) cancel(j, entries_[i].c);
    }

    /// Chunk or part i is finished by worker k (or, k empty, by its parts).
    template <class Cancel>
    void finish(std::size_t i, std::optional<std::size_t> k, Cancel& cancel) {
        auto& e = entries_[i];
        e.finished = true;
        e.winner = k;
        cancel_holders(i, cancel);
        if (e.whole) { // a part: its chunk is finished with the last one
            if (--entries_[*e.whole].parts_left == 0 && !entries_[*e.whole].finished)
                finish(*e.whole, std::nullopt, cancel);
            return;
        }
        --unfinished_;
        if (!e.split) return;
        for (std::size_t p = e.first_part; p < e.first_part + e.parts; ++p)
            if (!entries_[p].finished) { // the whole chunk won: its parts count for nothing
                entries_[p].finished = true;
                cancel_holders(p, cancel);
            }
    }

    std::vector<entry> entries_;
    using key = std::pair<index_t, index_t>; ///< (first, size)
    using indexed = std::pair<key, std::size_t>;
    std::vector<indexed> index_; ///< sorted: chunk -> entry (cheaper to compile than a std::map)
    std::vector<std::optional<std::size_t>> held_;            ///< per worker: the entry it runs
    int own_;
    int others_ = 0; ///< workers that may take copies (all but the root's)
    std::size_t oldest_ = 0, unfinished_ = 0;
    std::uint64_t reissued_ = 0, dropped_ = 0;
    bool orphans_ = false; ///< a holder left: orphan_for looks
};

} // namespace loopsched::detail
