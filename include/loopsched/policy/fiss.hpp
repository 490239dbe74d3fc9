// FISS(sigma, X): fixed-increase self-scheduling, sigma stages growing by B.
#pragma once

#include <loopsched/request.hpp>
#include <loopsched/policy/spec_args.hpp>
#include <loopsched/policy/stage.hpp>

#include <array>
#include <string>
#include <string_view>

namespace loopsched {

/// Fixed-increase self-scheduling (Chronopoulos et al.): stage s < sigma-1 has p chunks of
/// C_0 + sB with C_0 = floor(I/(Xp)), B = floor(2I(1 - sigma/X)/(p sigma (sigma-1)));
/// the last stage splits what remains evenly, ceil(R/p). The paper prints B with a
/// ceiling, but its Table 1 (50, 83, 117) needs the floor.
class fiss {
public:
    static constexpr std::string_view name = "fiss";
    static constexpr std::array<std::string_view, 2> keys{"stages", "x"};

    constexpr fiss() = default;
    /// x = 0 means X = sigma + 2, the paper's suggestion.
    constexpr explicit fiss(index_t stages, double x = 0.0) : fiss(stages, x, "fiss") {}
    [[nodiscard]] constexpr index_t stages() const noexcept { return stages_; }
    [[nodiscard]] constexpr double x() const noexcept { return x_ == 0.0 ? static_cast<double>(stages_) + 2.0 : x_; }

    class state {
    public:
        state(index_t iterations, index_t workers, index_t stages, double x)
                : remaining_(iterations), workers_(workers), stages_(stages), stage_(workers) {
            double const i = static_cast<double>(iterations), p = static_cast<double>(workers),
                         s = static_cast<double>(stages);
            first_ = detail::floor_real(i / (x * p));
            bump_ = detail::floor_real(2.0 * i * (1.0 - s / x) / (p * s * (s - 1.0)));
            chunk_ = stage_chunk();
        }
        [[nodiscard]] index_t propose(request const&) const noexcept { return chunk_; }
        void commit(request const&, index_t granted) {
            remaining_ -= granted;
            if (stage_.record_grant()) chunk_ = stage_chunk();
        }

    private:
        index_t stage_chunk() const {
            index_t s = stage_.stage();
            // Stages past sigma only occur when an adaptor handed out less than proposed.
            index_t c = s < stages_ - 1 ? detail::saturating_add(first_, detail::saturating_mul(s, bump_))
                                        : detail::ceil_div(remaining_, workers_);
            return std::max<index_t>(1, c);
        }
        index_t remaining_, workers_, stages_;
        detail::stage_counter stage_;
        index_t first_ = 0, bump_ = 0, chunk_ = 1;
    };

    [[nodiscard]] state start(loop_info const& info) const {
        detail::validate(info);
        return state(info.iterations, static_cast<index_t>(info.workers), stages_, x());
    }

    static fiss from_spec(spec_args const& a) { return fiss(a.integer("stages", 3), a.real("x", 0.0)); }
    [[nodiscard]] std::string spec() const {
        return detail::spec_writer(name).add("stages", stages_, index_t{3}).add("x", x_, 0.0).str();
    }
    friend constexpr bool operator==(fiss const&, fiss const&) = default;

private:
    friend class dfiss; // checks the same shape under its own name
    /// `scheme` names the parameters in errors. More stages than 2^31 would
    /// each get less than one iteration of any loop there is.
    constexpr fiss(index_t stages, double x, std::string_view scheme) : stages_(stages), x_(x) {
        detail::require(stages >= 2 && stages <= (index_t{1} << 31), std::string(scheme) + " stages sigma", stages,
                        "must be in [2, 2^31]");
        detail::require(x == 0.0 || (x >= static_cast<double>(stages) && x <= 1e300), std::string(scheme) + " x", x,
                        "must be >= sigma so that the bump B is >= 0 (or 0 for sigma + 2)");
    }

    index_t stages_ = 3;
    double x_ = 0.0;
};

} // namespace loopsched
