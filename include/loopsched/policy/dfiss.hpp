// DFISS: distributed fixed-increase self-scheduling.
#pragma once

#include <loopsched/policy/fiss.hpp>
#include <loopsched/policy/proportional_stage.hpp>
#include <loopsched/policy/spec_args.hpp>

#include <array>
#include <string>
#include <string_view>

namespace loopsched {

/// DFISS (Chronopoulos et al.): SC_0 = floor(I/X), B = floor(2I(1 - sigma/X)/(sigma(sigma-1))),
/// SC_{s+1} = SC_s + B, worker j receiving floor(SC a_j / A); the last stage splits
/// what remains, ceil(R a_j / A), as FISS does.
class dfiss {
public:
    static constexpr std::string_view name = "dfiss";
    static constexpr std::array<std::string_view, 4> keys{"stages", "x", "a_min", "scale"};

    constexpr dfiss() = default;
    constexpr explicit dfiss(index_t stages, double x = 0.0, index_t a_min = 1, double scale = 10.0)
            : shape_(stages, x, name), power_{a_min, scale} {
        power_.validate(name);
    }

    struct rule {
        index_t stages;
        double x;
        index_t first = 0, bump = 0;
        void restart(index_t iterations, double) {
            double const i = static_cast<double>(iterations), s = static_cast<double>(stages);
            first = detail::floor_real(i / x);
            bump = detail::floor_real(2.0 * i * (1.0 - s / x) / (s * (s - 1.0)));
        }
        [[nodiscard]] index_t stage_sum(index_t stage, index_t remaining, double) const {
            return stage < stages - 1 ? detail::saturating_add(first, detail::saturating_mul(stage, bump)) : remaining;
        }
        [[nodiscard]] bool rounds_up(index_t stage) const noexcept { return stage >= stages - 1; }
    };
    using state = detail::proportional_stage_state<rule>;

    [[nodiscard]] state start(loop_info const& info) const {
        detail::validate(info);
        return state(info, power_, rule{shape_.stages(), shape_.x()});
    }

    static dfiss from_spec(spec_args const& a) {
        return dfiss(a.integer("stages", 3), a.real("x", 0.0), a.integer("a_min", 1), a.real("scale", 10.0));
    }
    [[nodiscard]] std::string spec() const {
        return detail::spec_writer(name)
                .add("stages", shape_.stages(), index_t{3})
                .add("x", shape_.x(), static_cast<double>(shape_.stages() + 2))
                .add("a_min", power_.a_min, index_t{1})
                .add("scale", power_.scale, 10.0)
                .str();
    }
    friend constexpr bool operator==(dfiss const&, dfiss const&) = default;

private:
    fiss shape_{}; // validates sigma and X once, as FISS does
    detail::distributed_parameters power_{};
};

} // namespace loopsched
