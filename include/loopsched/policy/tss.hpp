// TSS(F, L): trapezoid self-scheduling, chunks falling linearly from F to L.
#pragma once

#include <loopsched/request.hpp>
#include <loopsched/policy/spec_args.hpp>
#include <loopsched/policy/trapezoid.hpp>

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

namespace loopsched {

/// Trapezoid self-scheduling: C_i = max(L, F - (i-1) D); F = floor(I/2p) and L = 1
/// unless given (Chronopoulos et al.).
class tss {
public:
    static constexpr std::string_view name = "tss";
    static constexpr std::array<std::string_view, 2> keys{"first", "last"};

    constexpr tss() = default;
    /// first = 0 derives F from the loop.
    constexpr explicit tss(index_t first, index_t last = 1) : first_(first), last_(last) {
        detail::require(last >= 1, "tss last chunk L", last, "must be >= 1");
        detail::require(first == 0 || first >= last, "tss first chunk F", first, "must be >= L (or 0 for I/2p)");
    }

    [[nodiscard]] constexpr index_t first() const noexcept { return first_; }
    [[nodiscard]] constexpr index_t last() const noexcept { return last_; }

    class state {
    public:
        explicit state(detail::trapezoid t) : t_(t) {}
        [[nodiscard]] index_t propose(request const&) const noexcept { return t_.chunk_at(position_); }
        /// A grant of part of the proposed chunk (the W adaptor's) uses that part of
        /// a step, so the trapezoid follows what was really handed out; whole grants
        /// advance exactly one step.
        void commit(request const&, index_t granted) noexcept {
            position_ += std::min(1.0, static_cast<double>(granted) / static_cast<double>(t_.chunk_at(position_)));
        }

    private:
        detail::trapezoid t_;
        double position_ = 0.0; // steps taken, fractional under weighting
    };

    [[nodiscard]] state start(loop_info const& info) const {
        detail::validate(info);
        return state(detail::trapezoid::make(info.iterations, static_cast<double>(info.workers), first_, last_));
    }

    static tss from_spec(spec_args const& a) { return tss(a.integer("first", 0), a.integer("last", 1)); }
    [[nodiscard]] std::string spec() const {
        return detail::spec_writer(name).add("first", first_, index_t{0}).add("last", last_, index_t{1}).str();
    }
    friend constexpr bool operator==(tss const&, tss const&) = default;

private:
    index_t first_ = 0;
    index_t last_ = 1;
};

} // namespace loopsched
