// TreeS's partner splits for DOALL loops (after Kim and Purtilo): the master's
// book of what each worker runs, and which idle worker waits for whose split.
#pragma once

#include <loopsched/error.hpp>
#include <loopsched/schedule.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loopsched::detail {

/// Once the policy has handed out every share, an idle worker asks a partner
/// for half of what remains of its chunk. Partners come from a binary tree
/// over the workers: the sibling subtree at level 0 (k xor 1), then level 1
/// (the two workers k xor 2 and k xor 3), and so on; within a subtree the
/// holder of the largest chunk, as the master last knew it. The master
/// mediates (the document's partners talk directly): a split goes to the
/// partner as a transfer, its answer comes back as the part split off, which
/// the master grants to the waiting worker. A partner that had nothing to
/// give is not asked again until it holds a new chunk.
class partner_book {
public:
    explicit partner_book(std::size_t workers)
            : held_(workers), asked_(workers, none), asker_(workers, none), dry_(workers, false) {}

    /// Worker k runs `c` (a grant, or the part a partner split off for it).
    void granted(std::size_t k, chunk c) {
        held_[k] = c;
        dry_[k] = false;
        ++holding_;
    }
    /// Worker k asked again: the chunk it held is finished.
    void finished(std::size_t k) {
        if (held_[k]) --holding_;
        held_[k].reset();
    }

    /// The partner idle worker k should ask for a split, recorded as asked;
    /// none when k already waits or no partner holds work worth asking for.
    std::optional<std::size_t> partner_for(std::size_t k) {
        if (asked_[k] != none || held_[k]) return std::nullopt;
        std::size_t const n = held_.size();
        for (std::size_t level = 1; level < n; level <<= 1) {
            std::size_t const first = (k ^ level) & ~(level - 1); // the sibling subtree's first worker
            std::optional<std::size_t> best;
            for (std::size_t p = first; p < first + level && p < n; ++p)
                if (held_[p] && held_[p]->size >= 2 && !dry_[p] && asker_[p] == none &&
                    (!best || held_[p]->size > held_[*best]->size))
                    best = p;
            if (best) {
                asked_[k] = *best;
                asker_[*best] = k;
                ++outstanding_;
                return best;
            }
        }
        return std::nullopt;
    }

    /// Partner p answered with `part`, the tail of its chunk it gave up (size
    /// 0: nothing). Returns the worker that asked, which now holds `part` if
    /// it is not empty.
    std::size_t answered(std::size_t p, chunk part) {
        std::size_t const k = asker_.at(p);
        if (k == none) throw error("loopsched: protocol: a partner split that nobody asked for");
        asker_[p] = none;
        asked_[k] = none;
        --outstanding_;
        if (part.size == 0) {
            dry_[p] = true;
            return k;
        }
        if (!held_[p] || part.first < held_[p]->first || part.end() != held_[p]->end())
            throw error("loopsched: protocol: a partner split off [" + std::to_string(part.first) + ", " +
                        std::to_string(part.end()) + "), which is not the tail of its chunk");
        held_[p]->size -= part.size;
        granted(k, part);
        ++splits_;
        return k;
    }

    [[nodiscard]] bool holds(std::size_t k) const noexcept { return held_[k].has_value(); }
    /// No worker runs anything and no split is on its way: the loop is over.
    [[nodiscard]] bool quiet() const noexcept { return holding_ == 0 && outstanding_ == 0; }
    /// A split is on its way: its answer may bring work to a worker that waits.
    [[nodiscard]] bool awaiting() const noexcept { return outstanding_ > 0; }
    [[nodiscard]] std::uint64_t splits() const noexcept { return splits_; }

private:
    static constexpr std::size_t none = static_cast<std::size_t>(-1);
    std::vector<std::optional<chunk>> held_;
    std::vector<std::size_t> asked_, asker_; ///< per idle worker: whom it asked; per partner: who asked it
    std::vector<bool> dry_;                  ///< answered "nothing" for the chunk it holds
    std::size_t holding_ = 0, outstanding_ = 0;
    std::uint64_t splits_ = 0;
};

} // namespace loopsched::detail
