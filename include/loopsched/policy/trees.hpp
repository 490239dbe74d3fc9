// TreeS: tree scheduling (Kim and Purtilo), the initial shares as a chunk
// policy; the DOALL engine moves work between partners once they are out.
#pragma once

#include <loopsched/policy/partner_splits.hpp>
#include <loopsched/request.hpp>
#include <loopsched/policy/spec_args.hpp>

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace loopsched {

/// Tree scheduling (Kim and Purtilo, "Load balancing for parallel loops in
/// workstation clusters", as Chronopoulos et al. run it beside their schemes):
/// every worker's first request takes its whole share of the loop, even
/// (`shares=even`, the simple scheme) or by virtual power V_k (`shares=power`,
/// the distributed one); a worker's later requests get nothing from the
/// policy (but what an adaptor left over). In a DOALL loop the engine then rebalances between partners: an
/// idle worker gets half of what remains of the chunk of a partner, the
/// partners fixed by a binary tree over the workers (the sibling subtree at
/// level 0, then 1, ...; in a subtree, the holder of the largest chunk). The
/// engine knows to do so from `splits_with_partners`; DOACROSS loops, task
/// farms and hierarchical loops refuse such a policy.
class trees {
public:
    static constexpr std::string_view name = "trees";
    static constexpr std::array<std::string_view, 1> keys{"shares"};
    static constexpr bool splits_with_partners = true;

    enum class shares : unsigned char { even, power };

    constexpr trees() = default;
    constexpr explicit trees(shares by) : by_(by) {}
    [[nodiscard]] constexpr shares by() const noexcept { return by_; }

    /// Each worker's first request takes its share. What is left once every
    /// worker had one (an adaptor such as W cut the shares) goes whole to the
    /// next to ask; until then a worker that asks again gets nothing.
    class state {
    public:
        state(std::vector<index_t> share, index_t iterations)
                : share_(std::move(share)), given_(share_.size(), false), unserved_(share_.size()),
                  remaining_(iterations) {}
        [[nodiscard]] index_t propose(request const& r) {
            if (!given_.at(r.worker)) {
                if (share_[r.worker] > 0) return share_[r.worker];
                served(r.worker); // an empty share (fewer iterations than workers)
            }
            return unserved_ == 0 ? remaining_ : 0;
        }
        void commit(request const& r, index_t granted) {
            if (!given_.at(r.worker)) served(r.worker);
            remaining_ -= granted;
        }

    private:
        void served(std::size_t k) {
            given_[k] = true;
            --unserved_;
        }
        std::vector<index_t> share_;
        std::vector<bool> given_;
        std::size_t unserved_;
        index_t remaining_;
    };

    /// Worker k's share: the loop cut at the running sums of the weights
    /// (1 each, or V_k), so that the shares add up to the loop exactly.
    [[nodiscard]] state start(loop_info const& info) const {
        detail::validate(info);
        std::vector<double> weight(info.workers, 1.0);
        if (by_ == shares::power)
            for (std::size_t k = 0; k < info.workers; ++k) weight[k] = info.of(k).power;
        double total = 0.0;
        for (double w : weight) total += w;
        std::vector<index_t> share(info.workers);
        double before = 0.0;
        index_t cut = 0;
        for (std::size_t k = 0; k < info.workers; ++k) {
            before += weight[k];
            index_t const next = k + 1 == info.workers
                                         ? info.iterations
                                         : detail::floor_real(static_cast<double>(info.iterations) * before / total);
            share[k] = next - cut;
            cut = next;
        }
        return state(std::move(share), info.iterations);
    }

    static trees from_spec(spec_args const& a) {
        static constexpr std::array<std::string_view, 2> words{"even", "power"};
        return trees(a.word("shares", words, "even") == "power" ? shares::power : shares::even);
    }
    [[nodiscard]] std::string spec() const { return by_ == shares::power ? "trees:shares=power" : "trees"; }
    friend constexpr bool operator==(trees const&, trees const&) = default;

private:
    shares by_ = shares::even;
};

} // namespace loopsched
