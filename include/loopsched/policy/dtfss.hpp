// DTFSS: distributed trapezoid factoring self-scheduling.
#pragma once

#include <loopsched/policy/proportional_stage.hpp>
#include <loopsched/policy/spec_args.hpp>
#include <loopsched/policy/trapezoid.hpp>

#include <array>
#include <cmath>
#include <string>
#include <string_view>

namespace loopsched {

/// DTFSS (Chronopoulos et al.): the trapezoid is computed with A (as DTSS does); a stage's sum
/// is the next A trapezoid chunks, worker j receiving floor(SC a_j / A). With equal
/// powers this is TFSS.
class dtfss {
public:
    static constexpr std::string_view name = "dtfss";
    static constexpr std::array<std::string_view, 3> keys{"last", "a_min", "scale"};

    constexpr dtfss() = default;
    constexpr explicit dtfss(index_t last, index_t a_min = 1, double scale = 10.0) : last_(last), power_{a_min, scale} {
        detail::require(last >= 1, "dtfss last chunk L", last, "must be >= 1");
        power_.validate(name);
    }

    struct rule {
        index_t last;
        detail::trapezoid shape{};
        index_t per_stage = 1;
        void restart(index_t iterations, double total_power) {
            shape = detail::trapezoid::make(iterations, total_power, 0, last);
            per_stage = std::max<index_t>(1, std::llround(total_power));
        }
        [[nodiscard]] index_t stage_sum(index_t stage, index_t, double) const {
            return shape.sum(detail::saturating_mul(stage, per_stage), per_stage);
        }
        [[nodiscard]] bool rounds_up(index_t) const noexcept { return false; }
    };
    using state = detail::proportional_stage_state<rule>;

    [[nodiscard]] state start(loop_info const& info) const {
        detail::validate(info);
        return state(info, power_, rule{last_});
    }

    static dtfss from_spec(spec_args const& a) {
        return dtfss(a.integer("last", 1), a.integer("a_min", 1), a.real("scale", 10.0));
    }
    [[nodiscard]] std::string spec() const {
        return detail::spec_writer(name)
                .add("last", last_, index_t{1})
                .add("a_min", power_.a_min, index_t{1})
                .add("scale", power_.scale, 10.0)
                .str();
    }
    friend constexpr bool operator==(dtfss const&, dtfss const&) = default;

private:
    index_t last_ = 1;
    detail::distributed_parameters power_{};
};

} // namespace loopsched
