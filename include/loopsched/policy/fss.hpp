// FSS(alpha) and FAC2: factoring, stages of p equal chunks of R/(alpha p).
#pragma once

#include <loopsched/request.hpp>
#include <loopsched/policy/spec_args.hpp>
#include <loopsched/policy/stage.hpp>

#include <array>
#include <limits>
#include <string>
#include <string_view>

namespace loopsched {

namespace detail {

/// ceil(R / (alpha * p)), in integers when alpha p is a whole number that fits.
inline index_t factoring_chunk(index_t remaining, double alpha, index_t processors) {
    if (remaining <= 0) return 0;
    double const divisor = alpha * static_cast<double>(processors);
    if (divisor >= static_cast<double>(remaining)) return 1;
    if (is_whole(alpha) && divisor < 9.0e15) return ceil_div(remaining, static_cast<index_t>(alpha) * processors);
    return ceil_real(static_cast<double>(remaining) / divisor);
}

/// Stages of p grants; each stage's chunk is ceil(R/(alpha p)) for R at its start.
class factoring_state {
public:
    factoring_state(index_t remaining, index_t workers, double alpha)
            : remaining_(remaining), workers_(workers), alpha_(alpha), stage_(workers), chunk_(next_chunk()) {}

    [[nodiscard]] index_t propose(request const&) const noexcept { return chunk_; }
    void commit(request const&, index_t granted) {
        remaining_ -= granted;
        if (stage_.record_grant()) chunk_ = next_chunk();
    }

private:
    index_t next_chunk() const { return std::max<index_t>(1, factoring_chunk(remaining_, alpha_, workers_)); }

    index_t remaining_, workers_;
    double alpha_;
    stage_counter stage_;
    index_t chunk_;
};

} // namespace detail

/// Factoring self-scheduling FSS(alpha), Chronopoulos et al.: a stage of p chunks of
/// ceil(R/(alpha p)). The paper's printed Table 1 row mixes floor and ceil (it sums
/// to 994); this rule gives 125x4 63x4 31x4 16x4 8x4 4x4 2x4 1x4 for I=1000, p=4.
class fss {
public:
    static constexpr std::string_view name = "fss";
    static constexpr std::array<std::string_view, 1> keys{"alpha"};

    constexpr fss() = default;
    constexpr explicit fss(double alpha) : alpha_(alpha) {
        detail::require(alpha > 0.0 && alpha < std::numeric_limits<double>::infinity(), "fss alpha", alpha,
                        "must be a finite number > 0");
    }
    [[nodiscard]] constexpr double alpha() const noexcept { return alpha_; }

    [[nodiscard]] detail::factoring_state start(loop_info const& info) const {
        detail::validate(info);
        return detail::factoring_state(info.iterations, static_cast<index_t>(info.workers), alpha_);
    }

    static fss from_spec(spec_args const& a) { return fss(a.real("alpha", 2.0)); }
    [[nodiscard]] std::string spec() const { return detail::spec_writer(name).add("alpha", alpha_, 2.0).str(); }
    friend constexpr bool operator==(fss const&, fss const&) = default;

private:
    double alpha_ = 2.0;
};

/// FAC2 (Hummel, Schonberg & Flynn's practical factoring): every batch hands out
/// half of what remains, ceil(R/2p) per chunk. Same sequence as fss with alpha = 2;
/// kept under its own name because users of LB4OMP and DLS4LB know it as fac2.
struct fac2 {
    static constexpr std::string_view name = "fac2";
    static constexpr std::array<std::string_view, 0> keys{};

    [[nodiscard]] detail::factoring_state start(loop_info const& info) const { return fss(2.0).start(info); }
    static fac2 from_spec(spec_args const&) { return {}; }
    [[nodiscard]] std::string spec() const { return std::string(name); }
    friend constexpr bool operator==(fac2 const&, fac2 const&) = default;
};

} // namespace loopsched
