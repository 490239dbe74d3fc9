// AWF and its variants B, C, D, E (Banicescu et al.; Carino & Banicescu): weighted
// factoring whose weights follow the workers' measured speed.
#pragma once

#include <loopsched/request.hpp>
#include <loopsched/policy/spec_args.hpp>
#include <loopsched/policy/stage.hpp>
#include <loopsched/policy/wf.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace loopsched {

namespace detail {

/// Per-worker weighted average time per iteration: chunk c (1-based, per worker)
/// counts c times, so recent chunks weigh more:
/// pi = sum_c c t_c / sum_c c n_c.
class performance_record {
public:
    explicit performance_record(std::size_t workers) : times_(workers), sizes_(workers), chunks_(workers) {}

    void record(std::size_t k, index_t size, double seconds) {
        if (size <= 0) return;
        double const c = static_cast<double>(++chunks_[k]);
        times_[k] += c * seconds;
        sizes_[k] += c * static_cast<double>(size);
    }
    [[nodiscard]] bool measured(std::size_t k) const { return chunks_[k] > 0 && times_[k] > 0.0; }
    [[nodiscard]] double time_per_iteration(std::size_t k) const { return times_[k] / sizes_[k]; }

    /// Weights w_i proportional to 1/pi_i, summing to P. A worker not measured yet
    /// is assumed as fast as the fastest measured one (as DLS4LB does); with no
    /// measurement at all every weight is 1.
    [[nodiscard]] std::vector<double> weights() const {
        double fastest = std::numeric_limits<double>::infinity();
        for (std::size_t k = 0; k < chunks_.size(); ++k)
            if (measured(k)) fastest = std::min(fastest, time_per_iteration(k));
        std::vector<double> speed(chunks_.size(), 1.0);
        if (fastest == std::numeric_limits<double>::infinity()) return speed;
        for (std::size_t k = 0; k < chunks_.size(); ++k)
            speed[k] = 1.0 / (measured(k) ? time_per_iteration(k) : fastest);
        return normalized_weights(std::move(speed));
    }

private:
    std::vector<double> times_, sizes_;
    std::vector<index_t> chunks_;
};

enum class awf_variant { b, c, d, e };

/// AWF-B and -D adapt the weights once per batch; -C and -E at every chunk.
/// B and C measure the body's time only; D and E the elapsed time, overhead included.
class adaptive_weights_state {
public:
    adaptive_weights_state(index_t remaining, std::size_t workers, awf_variant v)
            : remaining_(remaining), workers_(workers), variant_(v), record_(workers),
              stage_(static_cast<index_t>(workers)), batch_weights_(workers, 1.0) {
        open_batch();
    }

    index_t propose(request const& r) {
        bool const elapsed = variant_ == awf_variant::d || variant_ == awf_variant::e;
        record_.record(r.worker, r.last.size, elapsed ? r.last.elapsed_seconds : r.last.compute_seconds);
        bool const per_chunk = variant_ == awf_variant::c || variant_ == awf_variant::e;
        double const w = per_chunk ? record_.weights()[r.worker] : batch_weights_[r.worker];
        double const base =
                per_chunk ? static_cast<double>(ceil_div(remaining_, 2 * static_cast<index_t>(workers_))) : base_;
        return std::max<index_t>(1, ceil_real(w * base));
    }
    void commit(request const&, index_t granted) {
        remaining_ -= granted;
        if (stage_.record_grant()) open_batch();
    }

private:
    void open_batch() {
        base_ = static_cast<double>(ceil_div(remaining_, 2 * static_cast<index_t>(workers_)));
        batch_weights_ = record_.weights();
    }

    index_t remaining_;
    std::size_t workers_;
    awf_variant variant_;
    performance_record record_;
    stage_counter stage_;
    std::vector<double> batch_weights_;
    double base_ = 0.0;
};

template <awf_variant V>
struct awf_policy {
    static constexpr std::string_view name = V == awf_variant::b   ? "awf-b"
                                             : V == awf_variant::c ? "awf-c"
                                             : V == awf_variant::d ? "awf-d"
                                                                   : "awf-e";
    static constexpr std::array<std::string_view, 0> keys{};

    [[nodiscard]] adaptive_weights_state start(loop_info const& info) const {
        validate(info);
        return adaptive_weights_state(info.iterations, info.workers, V);
    }
    static awf_policy from_spec(spec_args const&) { return {}; }
    [[nodiscard]] std::string spec() const { return std::string(name); }
    friend constexpr bool operator==(awf_policy const&, awf_policy const&) = default;
};

} // namespace detail

using awf_b = detail::awf_policy<detail::awf_variant::b>; ///< weights per batch, body time
using awf_c = detail::awf_policy<detail::awf_variant::c>; ///< weights per chunk, body time
using awf_d = detail::awf_policy<detail::awf_variant::d>; ///< weights per batch, elapsed time
using awf_e = detail::awf_policy<detail::awf_variant::e>; ///< weights per chunk, elapsed time

/// AWF for time-stepping applications: within one loop it is weighted factoring;
/// between loops (time steps) the weights follow the measured speed, each step t
/// counting t times. Carry the learning over with `policy = policy.after(state)`.
class awf {
public:
    static constexpr std::string_view name = "awf";
    static constexpr std::array<std::string_view, 0> keys{};

    class state {
    public:
        state(index_t iterations, std::vector<double> weights)
                : batches_(iterations, std::move(weights)), time_(batches_.weights().size()),
                  size_(batches_.weights().size()) {}
        index_t propose(request const& r) {
            if (r.last.size > 0) {
                time_[r.worker] += r.last.compute_seconds;
                size_[r.worker] += static_cast<double>(r.last.size);
            }
            return batches_.propose(r);
        }
        void commit(request const& r, index_t granted) { batches_.commit(r, granted); }

    private:
        friend class awf;
        detail::weighted_batches_state batches_;
        std::vector<double> time_, size_;
    };

    [[nodiscard]] state start(loop_info const& info) const {
        detail::validate(info);
        std::vector<double> w(info.workers, 1.0);
        if (step_ > 1 && sum_time_.size() == info.workers) {
            double fastest = 0.0; // iterations per second of the fastest measured worker
            for (std::size_t k = 0; k < info.workers; ++k) {
                w[k] = sum_time_[k] > 0.0 ? sum_size_[k] / sum_time_[k] : 0.0;
                fastest = std::max(fastest, w[k]);
            }
            for (double& x : w)
                if (x <= 0.0) x = fastest > 0.0 ? fastest : 1.0; // unmeasured: as fast as the fastest
        }
        return state(info.iterations, std::move(w));
    }

    /// The policy for the next time step, having learnt from `finished`.
    [[nodiscard]] awf after(state const& finished) const {
        awf next = *this;
        std::size_t const p = finished.time_.size();
        if (next.sum_time_.size() != p) next.sum_time_.assign(p, 0.0), next.sum_size_.assign(p, 0.0);
        double const t = static_cast<double>(step_);
        for (std::size_t k = 0; k < p; ++k) {
            next.sum_time_[k] += t * finished.time_[k];
            next.sum_size_[k] += t * finished.size_[k];
        }
        ++next.step_;
        return next;
    }
    [[nodiscard]] index_t time_step() const noexcept { return step_; }

    static awf from_spec(spec_args const&) { return {}; }
    [[nodiscard]] std::string spec() const { return std::string(name); }
    friend bool operator==(awf const&, awf const&) = default;

private:
    index_t step_ = 1;
    std::vector<double> sum_time_, sum_size_;
};

} // namespace loopsched
