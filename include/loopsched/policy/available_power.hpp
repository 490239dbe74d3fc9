// Available computing power A_k = floor(scale V_k / Q_k) of Chronopoulos et al.'s distributed
// schemes, the A_min cut-off, and the "more than half changed" recomputation rule.
#pragma once

#include <loopsched/detail/small_vector.hpp>
#include <loopsched/request.hpp>

#include <algorithm>
#include <cstddef>
#include <numeric>

namespace loopsched::detail {

class available_power {
public:
    available_power(loop_info const& info, index_t a_min, double scale)
            : a_min_(a_min), scale_(scale), powers_(info.workers) {
        for (std::size_t k = 0; k < info.workers; ++k) {
            powers_[k].latest = of(info.of(k));
            latest_qualifying_ += powers_[k].latest >= a_min_;
        }
        take_snapshot();
    }

    /// A_k = floor(scale V/Q) (Chronopoulos et al., eq. 2).
    [[nodiscard]] index_t of(worker_status s) const { return floor_real(scale_ * s.power / s.run_queue); }

    /// Records what worker k reports with its request. Keeps the counts the
    /// other questions need, so that each costs O(1) whatever the number of workers.
    void report(std::size_t k, worker_status s) {
        auto& p = powers_[k];
        index_t const a = of(s);
        if (a == p.latest) return;
        latest_qualifying_ += static_cast<std::size_t>(a >= a_min_) - static_cast<std::size_t>(p.latest >= a_min_);
        changed_ += static_cast<std::size_t>(a != p.snapshot) - static_cast<std::size_t>(p.latest != p.snapshot);
        p.latest = a;
    }

    /// True when more than half of the A_k differ from those the parameters were
    /// computed with (the master then recomputes with I = the remaining iterations).
    [[nodiscard]] bool should_recompute() const noexcept { return 2 * changed_ > powers_.size(); }

    /// Adopts the latest A_k as the basis of the parameters (the ACP status array).
    /// Powers are divided by their gcd: the x10 scaling is a precision device, and
    /// without it equal workers would not reduce DTSS to TSS.
    void take_snapshot() {
        for (auto& p : powers_) p.snapshot = p.latest;
        changed_ = 0;
        unit_ = 0;
        for (auto const& p : powers_)
            if (included(p.snapshot, latest_qualifying_)) unit_ = std::gcd(unit_, clamped(p.snapshot));
        if (unit_ == 0) unit_ = 1;
        total_ = 0.0;
        active_ = 0;
        for (auto const& p : powers_)
            if (included(p.snapshot, latest_qualifying_)) {
                total_ += static_cast<double>(clamped(p.snapshot)) / static_cast<double>(unit_);
                ++active_;
            }
    }

    /// Left out: A_k < A_min, unless every worker is under A_min (then nobody is,
    /// so that the loop still ends).
    [[nodiscard]] bool excluded(std::size_t k) const { return !included(powers_[k].latest, latest_qualifying_); }

    /// a_k: worker k's latest power in units of the snapshot's gcd.
    [[nodiscard]] double normalized(std::size_t k) const {
        return static_cast<double>(clamped(powers_[k].latest)) / static_cast<double>(unit_);
    }
    /// A: the sum of the snapshot's normalised powers over included workers.
    [[nodiscard]] double total() const noexcept { return total_; }
    /// Workers included in the snapshot: the number of grants in a stage.
    [[nodiscard]] index_t active() const noexcept { return active_; }

private:
    static index_t clamped(index_t a) noexcept { return std::max<index_t>(1, a); }

    /// Whether a worker of power `a` takes part, when `qualifying` workers reach A_min.
    bool included(index_t a, std::size_t qualifying) const noexcept { return qualifying == 0 || a >= a_min_; }

    struct powers {
        index_t latest = 0;   ///< as last reported
        index_t snapshot = 0; ///< as the parameters were computed with
    };

    index_t a_min_;
    double scale_;
    // Inline for a few workers: a worker builds this state too, to check the
    // policy before each loop, and back-to-back short loops should not allocate.
    boost::container::small_vector<powers, 4> powers_;
    std::size_t latest_qualifying_ = 0; ///< workers whose latest A_k >= A_min (the snapshot's, in take_snapshot)
    std::size_t changed_ = 0;           ///< workers whose latest A_k differs from the snapshot's
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
        require(scale > 0.0 && scale <= 1e300, std::string(scheme) + " scale", scale, "must be a finite number > 0");
    }
    friend constexpr bool operator==(distributed_parameters const&, distributed_parameters const&) = default;
};

} // namespace loopsched::detail
