// AF: adaptive factoring (Banicescu & Liu), chunks from each worker's measured
// mean and variance of the time per iteration.
#pragma once

#include <loopsched/request.hpp>
#include <loopsched/policy/spec_args.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace loopsched {

/// Adaptive factoring. With mu_j, sigma_j the mean and standard deviation of
/// worker j's time per iteration, D = sum sigma_j^2/mu_j and E = (sum 1/mu_j)^-1,
/// worker i asking with R remaining gets (D + 2ER - sqrt(D^2 + 4DER)) / (2 mu_i).
///
/// Workers report one time per chunk, not per iteration, so sigma^2 is estimated
/// by batch means: a chunk of n iterations with mean m gives n (m - mu)^2.
/// That needs two chunks; until a worker has reported two, it gets a probe chunk
/// (default ceil(I / 16P), our choice: the paper leaves the first batch open).
/// A worker without measurements is assumed like the fastest measured one.
class af {
public:
    static constexpr std::string_view name = "af";
    static constexpr std::array<std::string_view, 1> keys{"probe"};

    constexpr af() = default;
    constexpr explicit af(index_t probe) : probe_(probe) {
        detail::require(probe >= 1, "af probe chunk", probe, "must be >= 1");
    }

    /// D and sum 1/mu_j are kept as running sums over the measured workers, and
    /// the measured means in an ordered set: a request costs O(log P), not
    /// O(P). With 4,096 simulated workers the O(P) version held the master to
    /// 4% of ideal throughput (benchmarks/scale.cpp).
    class state {
    public:
        state(index_t iterations, std::size_t workers, index_t probe)
                : remaining_(iterations), probe_(probe), n_(workers), t_(workers), t2_over_n_(workers),
                  chunks_(workers), unmeasured_(workers) {}

        index_t propose(request const& r) {
            record(r);
            if (!estimated(r.worker)) return probe_;
            // Workers without an estimate borrow the fastest worker's: the
            // lowest-numbered one of least mean, or the asker if it ties.
            std::size_t fastest = means_.begin()->second;
            if (mean(r.worker) == mean(fastest)) fastest = r.worker;
            double const borrowed = static_cast<double>(unmeasured_);
            double const d = d_sum_ + borrowed * variance(fastest) / mean(fastest);
            double const inverse_sum = inverse_sum_ + borrowed / mean(fastest);
            double const e = 1.0 / inverse_sum, rem = static_cast<double>(remaining_);
            double const x = (d + 2.0 * e * rem - std::sqrt(d * d + 4.0 * d * e * rem)) / (2.0 * mean(r.worker));
            return std::max<index_t>(1, detail::ceil_real(x));
        }
        void commit(request const&, index_t granted) noexcept { remaining_ -= granted; }

    private:
        void record(request const& r) {
            if (r.last.size <= 0) return;
            std::size_t const k = r.worker;
            if (estimated(k)) { // its old terms leave the sums
                d_sum_ -= variance(k) / mean(k);
                inverse_sum_ -= 1.0 / mean(k);
                means_.erase({mean(k), k});
            } else {
                --unmeasured_; // back below if still unmeasured
            }
            double const n = static_cast<double>(r.last.size), t = r.last.compute_seconds;
            n_[k] += n;
            t_[k] += t;
            t2_over_n_[k] += t * t / n;
            ++chunks_[k];
            if (estimated(k)) {
                d_sum_ += variance(k) / mean(k);
                inverse_sum_ += 1.0 / mean(k);
                means_.insert({mean(k), k});
            } else {
                ++unmeasured_;
            }
        }
        bool estimated(std::size_t k) const { return chunks_[k] >= 2 && t_[k] > 0.0; }
        double mean(std::size_t k) const { return t_[k] / n_[k]; }
        double variance(std::size_t k) const {
            // sum_c n_c (m_c - mu)^2 = sum t_c^2/n_c - mu^2 sum n_c, over (chunks - 1).
            double const mu = mean(k);
            return std::max(0.0, (t2_over_n_[k] - mu * mu * n_[k]) / static_cast<double>(chunks_[k] - 1));
        }

        index_t remaining_, probe_;
        std::vector<double> n_, t_, t2_over_n_;
        std::vector<index_t> chunks_;
        std::size_t unmeasured_;                         ///< workers without an estimate yet
        double d_sum_ = 0.0, inverse_sum_ = 0.0;         ///< over the measured workers
        std::set<std::pair<double, std::size_t>> means_; ///< (mean, worker) of the measured workers
    };

    [[nodiscard]] state start(loop_info const& info) const {
        detail::validate(info);
        index_t const p = static_cast<index_t>(info.workers);
        index_t const probe = probe_ > 0 ? probe_ : std::max<index_t>(1, detail::ceil_div(info.iterations, 16 * p));
        return state(info.iterations, info.workers, probe);
    }

    static af from_spec(spec_args const& a) { return a.raw("probe") ? af(a.integer("probe", 1)) : af(); }
    [[nodiscard]] std::string spec() const { return detail::spec_writer(name).add("probe", probe_, index_t{0}).str(); }
    friend constexpr bool operator==(af const&, af const&) = default;

private:
    index_t probe_ = 0;
};

} // namespace loopsched
