// Who left a run (options.departures) or was presumed lost, as a loop's or a
// task farm's master keeps it: the workers that take no more work and the
// ranks that left, for the table every rank gets.
#pragma once

#include <loopsched/statistics.hpp>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace loopsched::detail {

/// The master's book of departures, shared by the loop and farm engines.
class departure_book {
public:
    explicit departure_book(std::size_t workers) : gone_(workers, false) {}

    /// Worker k takes no more work (it left, or was presumed lost); false if it had gone already.
    bool gone(std::size_t k) {
        if (gone_[k]) return false;
        gone_[k] = true;
        ++count_;
        return true;
    }
    /// Worker k, of rank `rank`, left of its own accord: the table names it.
    /// False if it had gone already (then it is not named again).
    bool left(std::size_t k, int rank) {
        if (!gone(k)) return false;
        ranks_.push_back(rank);
        return true;
    }
    [[nodiscard]] bool has_gone(std::size_t k) const noexcept { return gone_[k]; }
    /// Workers that still take work.
    [[nodiscard]] std::size_t remaining() const noexcept { return gone_.size() - count_; }

    /// The ranks that left, in rank order, into the table.
    void complete(loop_statistics& table) const {
        table.departed = ranks_;
        std::ranges::sort(table.departed);
    }

private:
    std::vector<bool> gone_;
    std::size_t count_ = 0;
    std::vector<int> ranks_;
};

} // namespace loopsched::detail
