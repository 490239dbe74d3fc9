// The shape shared by DFSS, DFISS and DTFSS (Chronopoulos et al., section 6): stages whose
// total SC_k is split among the workers in proportion to A_j / A.
#pragma once

#include <loopsched/policy/available_power.hpp>
#include <loopsched/policy/stage.hpp>

#include <cmath>
#include <concepts>

namespace loopsched::detail {

/// A rule gives the sum of stage s and says how a worker's share is rounded.
template <class R>
concept stage_sum_rule = std::copyable<R> && requires(R& r, R const& cr, index_t n, double a) {
    r.restart(n, a);                                    // I (the remaining iterations) and A
    { cr.stage_sum(n, n, a) } -> std::same_as<index_t>; // stage, R at the stage's start, A
    { cr.rounds_up(n) } -> std::same_as<bool>;          // stage
};

template <stage_sum_rule Rule>
class proportional_stage_state {
public:
    proportional_stage_state(loop_info const& info, distributed_parameters p, Rule rule)
            : power_(info, p.a_min, p.scale), remaining_(info.iterations), rule_(std::move(rule)),
              stage_(power_.active()) {
        restart();
    }

    index_t propose(request const& r) {
        power_.report(r.worker, r.status);
        if (power_.should_recompute()) {
            power_.take_snapshot();
            restart();
        }
        if (power_.excluded(r.worker)) return 0;
        double const share = static_cast<double>(sum_) * power_.normalized(r.worker) / power_.total();
        return std::max<index_t>(1, rule_.rounds_up(stage_.stage()) ? ceil_real(share) : floor_real(share));
    }

    void commit(request const&, index_t granted) {
        remaining_ -= granted;
        if (stage_.record_grant()) sum_ = rule_.stage_sum(stage_.stage(), remaining_, power_.total());
    }

private:
    void restart() {
        rule_.restart(remaining_, power_.total());
        stage_.restart(power_.active());
        sum_ = rule_.stage_sum(0, remaining_, power_.total());
    }

    available_power power_;
    index_t remaining_;
    Rule rule_;
    stage_counter stage_;
    index_t sum_ = 0;
};

} // namespace loopsched::detail
