// DFSS: distributed factoring self-scheduling.
#pragma once

#include <loopsched/policy/fss.hpp>
#include <loopsched/policy/proportional_stage.hpp>
#include <loopsched/policy/spec_args.hpp>

#include <array>
#include <string>
#include <string_view>

namespace loopsched {

/// DFSS (Chronopoulos et al.): a stage hands out SC = ceil(R/alpha), worker j receiving
/// ceil(SC a_j / A). The paper prints SC = floor(2R/A), which does not reduce to FSS
/// when all powers are equal; ceil(R/alpha) does, so that is what we use.
class dfss {
public:
    static constexpr std::string_view name = "dfss";
    static constexpr std::array<std::string_view, 3> keys{"alpha", "a_min", "scale"};

    constexpr dfss() = default;
    constexpr explicit dfss(double alpha, index_t a_min = 1, double scale = 10.0)
            : alpha_(alpha), power_{a_min, scale} {
        detail::require(alpha > 0.0 && alpha <= 1e300, "dfss alpha", alpha, "must be a finite number > 0");
        power_.validate(name);
    }

    struct rule {
        double alpha;
        void restart(index_t, double) noexcept {}
        [[nodiscard]] index_t stage_sum(index_t, index_t remaining, double) const {
            return detail::factoring_chunk(remaining, alpha, 1);
        }
        [[nodiscard]] bool rounds_up(index_t) const noexcept { return true; }
    };
    using state = detail::proportional_stage_state<rule>;

    [[nodiscard]] state start(loop_info const& info) const {
        detail::validate(info);
        return state(info, power_, rule{alpha_});
    }

    static dfss from_spec(spec_args const& a) {
        return dfss(a.real("alpha", 2.0), a.integer("a_min", 1), a.real("scale", 10.0));
    }
    [[nodiscard]] std::string spec() const {
        return detail::spec_writer(name)
                .add("alpha", alpha_, 2.0)
                .add("a_min", power_.a_min, index_t{1})
                .add("scale", power_.scale, 10.0)
                .str();
    }
    friend constexpr bool operator==(dfss const&, dfss const&) = default;

private:
    double alpha_ = 2.0;
    detail::distributed_parameters power_{};
};

} // namespace loopsched
