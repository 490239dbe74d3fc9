// Available computing power A_k = floor(scale V_k / Q_k) of seed 001's distributed
// schemes, the A_min cut-off, and the "more than half changed" recomputation rule.
#pragma once

#include <loopsched/policy/request.hpp>

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

namespace loopsched::detail {

class available_power {
public:
    available_power(loop_info const& info, index_t a_min, double scale)
        : a_min_(a_min), scale_(scale), latest_(info.workers), snapshot_(info.workers) {
        for (std::size_t k = 0; k < info.workers; ++k) latest_[k] = of(info.of(k));
        take_snapshot();
    }

    /// A_k = floor(scale V/Q) (seed 001, eq. 2).
    [[nodiscard]] index_t of(worker_status s) const { return floor_real(scale_ * s.power / s.run_queue); }

    /// Records what worker k reports with its request.
    void report(std::size_t k, worker_status s) { latest_[k] = of(s); }

    /// True when more than half of the A_k differ from those the parameters were
    /// computed with (the master then recomputes with I = the remaining iterations).
    [[nodiscard]] bool should_recompute() const {
        std::size_t changed = 0;
        for (std::size_t k = 0; k < latest_.size(); ++k) changed += latest_[k] != snapshot_[k];
        return 2 * changed > latest_.size();
    }

    /// Adopts the latest A_k as the basis of the parameters (the ACP status array).
    /// Powers are divided by their gcd: the x10 scaling is a precision device, and
    /// without it equal workers would not reduce DTSS to TSS.
    void take_snapshot() {
        snapshot_ = latest_;
        unit_ = 0;
        for (std::size_t k = 0; k < snapshot_.size(); ++k)
            if (included(snapshot_, k)) unit_ = std::gcd(unit_, clamped(snapshot_[k]));
        if (unit_ == 0) unit_ = 1;
        total_ = 0.0;
        active_ = 0;
        for (std::size_t k = 0; k < snapshot_.size(); ++k)
            if (included(snapshot_, k)) {
                total_ += static_cast<double>(clamped(snapshot_[k])) / static_cast<double>(unit_);
                ++active_;
            }
    }

    /// Left out: A_k < A_min, unless every worker is under A_min (then nobody is,
    /// so that the loop still ends).
    [[nodiscard]] bool excluded(std::size_t k) const { return !included(latest_, k); }

    /// a_k: worker k's latest power in units of the snapshot's gcd.
    [[nodiscard]] double normalized(std::size_t k) const {
        return static_cast<double>(clamped(latest_[k])) / static_cast<double>(unit_);
    }
    /// A: the sum of the snapshot's normalised powers over included workers.
    [[nodiscard]] double total() const noexcept { return total_; }
    /// Workers included in the snapshot: the number of grants in a stage.
    [[nodiscard]] index_t active() const noexcept { return active_; }

private:
    static index_t clamped(index_t a) noexcept { return std::max<index_t>(1, a); }

    bool included(std::vector<index_t> const& a, std::size_t k) const {
        bool const anyone_qualifies = std::ranges::any_of(a, [&](index_t v) { return v >= a_min_; });
        return !anyone_qualifies || a[k] >= a_min_;
    }

    index_t a_min_;
    double scale_;
    std::vector<index_t> latest_, snapshot_;
    index_t unit_ = 1;
    double total_ = 0.0;
    index_t active_ = 0;
};

/// Parameters every distributed scheme shares.
struct distributed_parameters {
    index_t a_min = 1;
    double scale = 10.0;

    constexpr void validate(std::string_view scheme) const {
        require(a_min >= 0, std::string(scheme) + " a_min", a_min, "must be >= 0");
        require(scale > 0.0, std::string(scheme) + " scale", scale, "must be > 0");
    }
    friend constexpr bool operator==(distributed_parameters const&, distributed_parameters const&) = default;
};

} // namespace loopsched::detail
