// FSC: fixed-size chunking, the chunk that Kruskal and Weiss derived from the
// scheduling overhead and the spread of the iterations' times.
#pragma once

#include <loopsched/policy/css.hpp>
#include <loopsched/request.hpp>
#include <loopsched/policy/spec_args.hpp>

#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>

namespace loopsched {

/// FSC(h, sigma): every chunk is
///
///     k = ceil( (sqrt(2) N h / (sigma P sqrt(ln P)))^(2/3) )
///
/// for N iterations on P workers, h the overhead of scheduling one chunk and
/// sigma the standard deviation of one iteration's time (both in seconds, or
/// any one unit). Source: C. P. Kruskal and A. Weiss, "Allocating Independent
/// Subtasks on Parallel Processors", IEEE TSE 11(10), 1985, the optimal fixed
/// chunk for large N and P; the same expression as DLS4LB's and LB4OMP's FSC.
///
/// Where the formula has no finite answer (P = 1, sigma = 0) or asks for more
/// than a worker's share, the chunk is ceil(N / P): larger chunks can only idle
/// workers. It is at least 1.
///
/// In a spec string: `fsc:h=2e-6,sigma=1e-4`, or `overhead=` for `h` (its long
/// name, and the one spec() writes): under the synchronization adaptor
/// (`s-fsc`, `sw-fsc`) `h` is the adaptor's interval.
class fsc {
public:
    static constexpr std::string_view name = "fsc";
    static constexpr std::array<std::string_view, 3> keys{"h", "overhead", "sigma"};

    /// h = sigma: a placeholder for sweeps over the catalogue; give measured values.
    constexpr fsc() = default;
    fsc(double overhead, double sigma) : overhead_(overhead), sigma_(sigma) {
        detail::require(std::isfinite(overhead) && overhead > 0.0, "fsc overhead h", overhead,
                        "must be finite and > 0");
        detail::require(std::isfinite(sigma) && sigma >= 0.0, "fsc sigma", sigma, "must be finite and >= 0");
    }

    [[nodiscard]] constexpr double overhead() const noexcept { return overhead_; }
    [[nodiscard]] constexpr double sigma() const noexcept { return sigma_; }

    /// The chunk for `iterations` on `workers`, before the clamp to [1, ceil(N/P)].
    [[nodiscard]] double optimal_chunk(index_t iterations, std::size_t workers) const noexcept {
        double const p = static_cast<double>(workers);
        double const spread = sigma_ * p * std::sqrt(std::log(p));
        if (spread <= 0.0) return std::numeric_limits<double>::infinity();
        return std::pow(std::sqrt(2.0) * static_cast<double>(iterations) * overhead_ / spread, 2.0 / 3.0);
    }

    [[nodiscard]] detail::fixed_chunk_state start(loop_info const& info) const {
        detail::validate(info);
        index_t const share =
                std::max<index_t>(1, detail::ceil_div(info.iterations, static_cast<index_t>(info.workers)));
        double const k = std::ceil(optimal_chunk(info.iterations, info.workers));
        return detail::fixed_chunk_state(
                k >= static_cast<double>(share) ? share : std::max<index_t>(1, static_cast<index_t>(k)));
    }

    static fsc from_spec(spec_args const& a) {
        if (a.raw("h") && a.raw("overhead"))
            throw invalid_parameter("fsc overhead", std::string(*a.raw("overhead")),
                                    "is given twice, as h and as overhead");
        double const h = a.raw("h") ? a.real("h", 1.0) : a.real("overhead", 1.0);
        return fsc(h, a.real("sigma", 1.0));
    }
    [[nodiscard]] std::string spec() const {
        // "overhead", not "h": the canonical text must read back under the S adaptor too.
        return detail::spec_writer(name).add("overhead", overhead_, 1.0).add("sigma", sigma_, 1.0).str();
    }
    friend constexpr bool operator==(fsc const&, fsc const&) = default;

private:
    double overhead_ = 1.0, sigma_ = 1.0;
};

} // namespace loopsched
