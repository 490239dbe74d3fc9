// A set of small indices, walked in increasing order: a bitmap with one summary
// bit per word, so that insert and erase allocate nothing and the next member
// is found in a few word reads, however many thousand indices there are.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace loopsched::detail {

class index_set {
public:
    static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();

    /// Empty, for the indices below `n`.
    void reset(std::size_t n) {
        words_.assign((n + 63) / 64, 0);
        summary_.assign((words_.size() + 63) / 64, 0);
    }
    void insert(std::size_t i) noexcept {
        words_[i / 64] |= bit(i);
        summary_[i / 4096] |= bit(i / 64);
    }
    void erase(std::size_t i) noexcept {
        auto& w = words_[i / 64];
        w &= ~bit(i);
        if (w == 0) summary_[i / 4096] &= ~bit(i / 64);
    }
    void clear() noexcept {
        for (auto& w : words_) w = 0;
        for (auto& s : summary_) s = 0;
    }
    /// The smallest member >= i, or npos.
    [[nodiscard]] std::size_t next(std::size_t i) const noexcept {
        std::size_t word = i / 64;
        if (word >= words_.size()) return npos;
        if (std::uint64_t const here = words_[word] & (~std::uint64_t{0} << (i % 64)))
            return word * 64 + static_cast<std::size_t>(std::countr_zero(here));
        if (++word >= words_.size()) return npos; // the first non-empty word after it, through the summary
        std::size_t s = word / 64;
        std::uint64_t ahead = summary_[s] & (~std::uint64_t{0} << (word % 64));
        while (ahead == 0) {
            if (++s == summary_.size()) return npos;
            ahead = summary_[s];
        }
        std::size_t const w = s * 64 + static_cast<std::size_t>(std::countr_zero(ahead));
        return w * 64 + static_cast<std::size_t>(std::countr_zero(words_[w]));
    }

private:
    static std::uint64_t bit(std::size_t i) noexcept { return std::uint64_t{1} << (i % 64); }
    std::vector<std::uint64_t> words_;   ///< bit i % 64 of word i / 64: index i is a member
    std::vector<std::uint64_t> summary_; ///< bit w % 64 of word w / 64: word w has a member
};

} // namespace loopsched::detail
