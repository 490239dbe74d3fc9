// TFSS: trapezoid factoring self-scheduling (Chronopoulos et al.'s new scheme).
#pragma once

#include <loopsched/request.hpp>
#include <loopsched/policy/spec_args.hpp>
#include <loopsched/policy/trapezoid.hpp>

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

namespace loopsched {

/// TFSS: stages of p equal chunks; a stage's chunk is floor(sum of the next p TSS
/// chunks / p). With I = 1000, p = 4: 113, 81, 49, 17 (before clipping).
class tfss {
public:
    static constexpr std::string_view name = "tfss";
    static constexpr std::array<std::string_view, 2> keys{"first", "last"};

    constexpr tfss() = default;
    constexpr explicit tfss(index_t first, index_t last = 1) : first_(first), last_(last) {
        detail::require(last >= 1, "tfss last chunk L", last, "must be >= 1");
        detail::require(first == 0 || first >= last, "tfss first chunk F", first, "must be >= L (or 0 for I/2p)");
    }

    class state {
    public:
        state(detail::trapezoid t, index_t workers) : t_(t), workers_(workers) { chunk_ = stage_chunk(); }
        [[nodiscard]] index_t propose(request const&) const noexcept { return chunk_; }
        /// A stage closes when p whole chunks' worth was handed out; a partial grant
        /// (the W adaptor's) counts for its fraction, as in tss.
        void commit(request const&, index_t granted) {
            progress_ += std::min(1.0, static_cast<double>(granted) / static_cast<double>(chunk_));
            if (progress_ + detail::rounding_slack >= static_cast<double>(workers_)) {
                progress_ = 0.0;
                ++stage_;
                chunk_ = stage_chunk();
            }
        }

    private:
        index_t stage_chunk() const {
            return std::max<index_t>(1, t_.sum(detail::saturating_mul(stage_, workers_), workers_) / workers_);
        }

        detail::trapezoid t_;
        index_t workers_;
        index_t stage_ = 0;
        double progress_ = 0.0;
        index_t chunk_ = 1;
    };

    [[nodiscard]] state start(loop_info const& info) const {
        detail::validate(info);
        auto t = detail::trapezoid::make(info.iterations, static_cast<double>(info.workers), first_, last_);
        return state(t, static_cast<index_t>(info.workers));
    }

    static tfss from_spec(spec_args const& a) { return tfss(a.integer("first", 0), a.integer("last", 1)); }
    [[nodiscard]] std::string spec() const {
        return detail::spec_writer(name).add("first", first_, index_t{0}).add("last", last_, index_t{1}).str();
    }
    friend constexpr bool operator==(tfss const&, tfss const&) = default;

private:
    index_t first_ = 0;
    index_t last_ = 1;
};

} // namespace loopsched
