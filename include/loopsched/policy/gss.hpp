// GSS(k): guided self-scheduling, R/p per request with a minimum chunk k.
#pragma once

#include <loopsched/hooks.hpp>
#include <loopsched/request.hpp>
#include <loopsched/policy/spec_args.hpp>

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

namespace loopsched {

/// How R/p is rounded. Chronopoulos et al. (Polychronopoulos & Kuck) uses ceil; the tables
/// of Ciorba (4.2, 4.3) are reproduced only with floor.
enum class rounding { ceil, floor };

/// Guided self-scheduling: C = max(k, ceil(R/p)) (or floor, see rounding).
class gss {
public:
    static constexpr std::string_view name = "gss";
    static constexpr std::array<std::string_view, 2> keys{"min", "round"};

    constexpr gss() = default;
    constexpr explicit gss(index_t min_chunk, rounding round = rounding::ceil) : min_(min_chunk), round_(round) {
        detail::require(min_chunk >= 1, "gss min chunk k", min_chunk, "must be >= 1");
    }

    static constexpr hook_set hooks{.min_chunk = true};
    [[nodiscard]] constexpr index_t min_chunk() const noexcept { return min_; }
    [[nodiscard]] constexpr rounding round() const noexcept { return round_; }

    class state {
    public:
        state(index_t remaining, index_t workers, index_t min_chunk, rounding round)
                : remaining_(remaining), workers_(workers), min_(min_chunk), round_(round) {}

        [[nodiscard]] index_t propose(request const&) const noexcept {
            index_t share = round_ == rounding::ceil ? detail::ceil_div(remaining_, workers_) : remaining_ / workers_;
            return std::max(min_, share);
        }
        void commit(request const&, index_t granted) noexcept { remaining_ -= granted; }

    private:
        index_t remaining_, workers_, min_;
        rounding round_;
    };

    [[nodiscard]] state start(loop_info const& info) const {
        detail::validate(info);
        return state(info.iterations, static_cast<index_t>(info.workers), min_, round_);
    }

    static gss from_spec(spec_args const& a) {
        static constexpr std::array<std::string_view, 2> words{"ceil", "floor"};
        return gss(a.integer("min", 1), a.word("round", words, "ceil") == "floor" ? rounding::floor : rounding::ceil);
    }
    [[nodiscard]] std::string spec() const {
        return detail::spec_writer(name)
                .add("min", min_, index_t{1})
                .add("round", std::string(round_ == rounding::floor ? "floor" : "ceil"), std::string("ceil"))
                .str();
    }
    friend constexpr bool operator==(gss const&, gss const&) = default;

private:
    index_t min_ = 1;
    rounding round_ = rounding::ceil;
};

} // namespace loopsched
