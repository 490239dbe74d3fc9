// Counting the grants of a stage: the factoring family hands out one chunk size
// for a whole stage of grants, fixed when the stage opens.
#pragma once

#include <loopsched/detail/arithmetic.hpp>

namespace loopsched::detail {

class stage_counter {
public:
    explicit stage_counter(index_t grants_per_stage) : per_stage_(grants_per_stage < 1 ? 1 : grants_per_stage) {}

    /// Records one grant; true when that grant closed the stage.
    bool record_grant() noexcept {
        if (++granted_ < per_stage_) return false;
        granted_ = 0;
        ++stage_;
        return true;
    }
    /// Starts over (used when the distributed schemes recompute their parameters).
    void restart(index_t grants_per_stage) noexcept {
        per_stage_ = grants_per_stage < 1 ? 1 : grants_per_stage;
        granted_ = 0;
        stage_ = 0;
    }
    [[nodiscard]] index_t stage() const noexcept { return stage_; }

private:
    index_t per_stage_;
    index_t granted_ = 0;
    index_t stage_ = 0;
};

} // namespace loopsched::detail
