// Re-issue in task farms (after Mohammed and Ciorba's rDLB, as reissue_book is
// for loops): which worker holds which task, copies included, and the task an
// idle worker copies once nothing is left to hand out.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace loopsched::detail {

/// Every task a worker holds, sent as the original or as a copy, until its
/// result or a cancel's answer comes back. The master keeps each unresolved
/// task's bytes (farm_book::keep_payloads), so a copy is sent from them, and a
/// lost worker's tasks go back to the queue unless another worker holds them.
class farm_copies {
public:
    explicit farm_copies(std::size_t workers) : held_(workers) {}

    /// Worker k got task `id` (the original, or a copy).
    void took(std::size_t k, std::uint64_t id) {
        held_[k].push_back(id);
        if (id >= holders_.size()) holders_.resize(static_cast<std::size_t>(id) + 1, 0);
        ++holders_[id];
    }
    /// Worker k no longer holds `id` (its result came, or it dropped it on a
    /// cancel); false if it did not hold it.
    bool released(std::size_t k, std::uint64_t id) {
        auto& h = held_[k];
        auto const at = std::ranges::find(h, id);
        if (at == h.end()) return false;
        *at = h.back();
        h.pop_back();
        --holders_[id];
        return true;
    }
    /// Everything worker k held, which it no longer does (it was lost).
    std::vector<std::uint64_t> release_all(std::size_t k) {
        auto out = std::exchange(held_[k], {});
        for (auto const id : out) --holders_[id];
        return out;
    }
    [[nodiscard]] std::uint32_t holders(std::uint64_t id) const noexcept {
        return id < holders_.size() ? holders_[id] : 0;
    }
    [[nodiscard]] bool holds(std::size_t k, std::uint64_t id) const {
        return std::ranges::find(held_[k], id) != held_[k].end();
    }

    /// A task for idle worker k to copy, if any: of the tasks `running(id)`
    /// says are out and unresolved (ids below `tasks`), one k does not hold,
    /// with the fewest holders, the oldest of those.
    template <class Running>
    std::optional<std::uint64_t> copy_for(std::size_t k, std::uint64_t tasks, Running&& running) {
        while (oldest_ < tasks && !running(oldest_)) ++oldest_; // resolved tasks stay resolved
        std::optional<std::uint64_t> best;
        for (std::uint64_t id = oldest_; id < tasks; ++id) {
            if (!running(id) || holds(k, id)) continue;
            if (!best || holders(id) < holders(*best)) best = id;
            if (holders(*best) <= 1) break; // none has fewer than its one original holder
        }
        if (best) ++reissued_;
        return best;
    }
    /// A result that came second (its task was resolved by another copy).
    void dropped_one() noexcept { ++dropped_; }

    [[nodiscard]] std::uint64_t reissued() const noexcept { return reissued_; }
    [[nodiscard]] std::uint64_t dropped() const noexcept { return dropped_; }

private:
    std::vector<std::vector<std::uint64_t>> held_; ///< per worker: the ids it holds
    std::vector<std::uint32_t> holders_;           ///< per task: how many workers hold it
    std::uint64_t oldest_ = 0;
    std::uint64_t reissued_ = 0, dropped_ = 0;
};

} // namespace loopsched::detail
