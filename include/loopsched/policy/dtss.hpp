// DTSS: distributed trapezoid self-scheduling, TSS over the available power A.
#pragma once

#include <loopsched/policy/available_power.hpp>
#include <loopsched/policy/spec_args.hpp>
#include <loopsched/policy/trapezoid.hpp>

#include <array>
#include <string>
#include <string_view>

namespace loopsched {

/// DTSS (Chronopoulos et al.): TSS with p replaced by A = sum of A_k. Worker k gets
/// C = a_k (F - D (S + (a_k - 1)/2)), S = sum of a over earlier grants, i.e. a_k
/// consecutive chunks of the trapezoid, never less than a_k L.
/// When more than half of the A_k changed, F, N, D are recomputed with I = R.
class dtss {
public:
    static constexpr std::string_view name = "dtss";
    static constexpr std::array<std::string_view, 3> keys{"last", "a_min", "scale"};

    constexpr dtss() = default;
    constexpr explicit dtss(index_t last, index_t a_min = 1, double scale = 10.0) : last_(last), power_{a_min, scale} {
        detail::require(last >= 1, "dtss last chunk L", last, "must be >= 1");
        power_.validate(name);
    }

    class state {
    public:
        state(loop_info const& info, index_t last, detail::distributed_parameters p)
                : power_(info, p.a_min, p.scale), remaining_(info.iterations), last_(last) {
            recompute();
        }

        index_t propose(request const& r) {
            power_.report(r.worker, r.status);
            if (power_.should_recompute()) {
                power_.take_snapshot();
                recompute();
            }
            if (power_.excluded(r.worker)) return 0;
            double const a = power_.normalized(r.worker);
            double const f = static_cast<double>(t_.first), d = static_cast<double>(t_.decrement);
            index_t const floor_chunk = std::max<index_t>(1, detail::ceil_real(a * static_cast<double>(last_)));
            return std::max(floor_chunk, detail::floor_real(a * (f - d * (assigned_ + (a - 1.0) / 2.0))));
        }
        void commit(request const& r, index_t granted) {
            assigned_ += power_.normalized(r.worker);
            remaining_ -= granted;
        }

    private:
        void recompute() {
            t_ = detail::trapezoid::make(remaining_, power_.total(), 0, last_);
            assigned_ = 0.0;
        }
        detail::available_power power_;
        index_t remaining_, last_;
        detail::trapezoid t_{};
        double assigned_ = 0.0; // S
    };

    [[nodiscard]] state start(loop_info const& info) const {
        detail::validate(info);
        return state(info, last_, power_);
    }

    static dtss from_spec(spec_args const& a) {
        return dtss(a.integer("last", 1), a.integer("a_min", 1), a.real("scale", 10.0));
    }
    [[nodiscard]] std::string spec() const {
        return detail::spec_writer(name)
                .add("last", last_, index_t{1})
                .add("a_min", power_.a_min, index_t{1})
                .add("scale", power_.scale, 10.0)
                .str();
    }
    friend constexpr bool operator==(dtss const&, dtss const&) = default;

private:
    index_t last_ = 1;
    detail::distributed_parameters power_{};
};

} // namespace loopsched
