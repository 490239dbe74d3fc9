// WF: weighted factoring (Hummel, Schmidt, Uma & Wein), FAC2 batches split by fixed weights.
#pragma once

#include <loopsched/request.hpp>
#include <loopsched/policy/spec_args.hpp>
#include <loopsched/policy/stage.hpp>

#include <array>
#include <numeric>
#include <string>
#include <string_view>
#include <vector>

namespace loopsched {

namespace detail {

/// Weights scaled so that they sum to P (a weight of 1 is an average worker).
inline std::vector<double> normalized_weights(std::vector<double> w) {
    double const total = std::accumulate(w.begin(), w.end(), 0.0);
    for (double& x : w) x *= static_cast<double>(w.size()) / total;
    return w;
}

/// Batches of P grants; a batch opening with R remaining gives worker i
/// ceil(w_i R / 2P) (FAC2's batch of R/2, split by weight).
class weighted_batches_state {
public:
    weighted_batches_state(index_t remaining, std::vector<double> weights)
            : remaining_(remaining), weights_(normalized_weights(std::move(weights))),
              stage_(static_cast<index_t>(weights_.size())) {
        open_batch();
    }

    [[nodiscard]] index_t propose(request const& r) const {
        return std::max<index_t>(1, ceil_real(weights_.at(r.worker) * base_));
    }
    void commit(request const&, index_t granted) {
        remaining_ -= granted;
        if (stage_.record_grant()) open_batch();
    }
    [[nodiscard]] std::vector<double> const& weights() const noexcept { return weights_; }

private:
    void open_batch() { base_ = static_cast<double>(remaining_) / (2.0 * static_cast<double>(weights_.size())); }

    index_t remaining_;
    std::vector<double> weights_;
    stage_counter stage_;
    double base_ = 0.0;
};

inline void validate_weights(std::vector<double> const& w, std::string_view scheme) {
    for (std::size_t k = 0; k < w.size(); ++k)
        require(w[k] > 0.0 && w[k] <= 1e300, std::string(scheme) + " weight[" + std::to_string(k) + "]", w[k],
                "must be a finite number > 0");
}

} // namespace detail

/// Weighted factoring. The weights are given, or else taken from the workers'
/// virtual powers V_k in loop_info.
class wf {
public:
    static constexpr std::string_view name = "wf";
    static constexpr std::array<std::string_view, 1> keys{"weights"};

    wf() = default;
    explicit wf(std::vector<double> weights) : weights_(std::move(weights)) {
        detail::validate_weights(weights_, name);
    }

    [[nodiscard]] std::vector<double> const& weights() const noexcept { return weights_; }

    [[nodiscard]] detail::weighted_batches_state start(loop_info const& info) const {
        detail::validate(info);
        std::vector<double> w = weights_;
        if (w.empty())
            for (std::size_t k = 0; k < info.workers; ++k) w.push_back(info.of(k).power);
        detail::require(w.size() == info.workers, "wf weights count", w.size(),
                        "must equal the number of workers, " + std::to_string(info.workers));
        return detail::weighted_batches_state(info.iterations, std::move(w));
    }

    static wf from_spec(spec_args const& a) { return wf(a.reals("weights")); }
    [[nodiscard]] std::string spec() const { return detail::spec_writer(name).add_list("weights", weights_).str(); }
    friend bool operator==(wf const&, wf const&) = default;

private:
    std::vector<double> weights_;
};

} // namespace loopsched
