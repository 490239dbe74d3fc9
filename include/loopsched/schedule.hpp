// chunk_sequencer: turns a policy's chunk sizes into consecutive index ranges,
// clipped to what remains; and round_robin_schedule, the schedule a policy
// produces when the workers ask in turn.
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/detail/iota.hpp>
#include <loopsched/error.hpp>
#include <loopsched/hooks.hpp>
#include <loopsched/request.hpp>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace loopsched {

/// Iterations [first, first + size) of a loop.
struct chunk {
    index_t first = 0;
    index_t size = 0;

    [[nodiscard]] constexpr index_t end() const noexcept { return first + size; }
    [[nodiscard]] auto indices() const { return iota_range(first, end()); }
    friend constexpr bool operator==(chunk const&, chunk const&) = default;
};

/// Hands out a loop's iterations in order, one chunk per request, as the policy
/// sizes them. Every chunk is clipped to what remains and none is empty.
template <ChunkPolicy P>
class chunk_sequencer {
public:
    chunk_sequencer(P const& policy, loop_info info) : info_(std::move(info)), state_(start(policy, info_)) {}

    /// The next chunk for r's worker; nullopt when the loop is done or the policy
    /// leaves this worker out for now (tell the two apart with done()).
    std::optional<chunk> next(request const& r) {
        detail::validate(r, info_);
        if (done()) return std::nullopt;
        index_t size = state_.propose(r);
        if (size < 0) throw error("loopsched: policy proposed a negative chunk (" + std::to_string(size) + ")");
        if (size == 0) return std::nullopt;
        size = std::min(size, remaining());
        state_.commit(r, size);
        chunk c{next_, size};
        next_ += size;
        return c;
    }

    [[nodiscard]] bool done() const noexcept { return next_ == info_.iterations; }
    [[nodiscard]] index_t remaining() const noexcept { return info_.iterations - next_; }
    [[nodiscard]] loop_info const& info() const noexcept { return info_; }
    [[nodiscard]] state_of<P> const& state() const noexcept { return state_; }
    /// The loop ended (on the root): a state that declares hook_set{.finish =
    /// true} hears how it went (`table`: its loop_statistics).
    template <class Table>
    void finish(Table& table) {
        detail::finish_state(state_, table);
    }

private:
    static state_of<P> start(P const& policy, loop_info const& info) {
        detail::validate(info);
        return policy.start(info);
    }

    loop_info info_;
    state_of<P> state_;
    index_t next_ = 0;
};

/// One grant: which worker got which iterations.
struct assignment {
    std::size_t worker = 0;
    chunk range{};
    friend constexpr bool operator==(assignment const&, assignment const&) = default;
};

/// Reports nothing: every request says "no measurement".
struct no_timing {
    constexpr chunk_timing operator()(std::size_t, chunk const&) const noexcept { return {}; }
};

/// Calls `f(assignment)` for each grant when workers 0, 1, ..., P-1, 0, ... ask
/// in turn, each reporting its status from `info` and, for its previous chunk,
/// `timing(worker, chunk)`. A worker the policy leaves out is skipped. Throws if
/// a whole round hands out nothing while iterations remain (a policy that would
/// hang a real run). Memory stays constant however many chunks there are.
template <ChunkPolicy P, class F, class Timing = no_timing>
void for_each_round_robin(P const& policy, loop_info const& info, F&& f, Timing timing = {}) {
    chunk_sequencer<P> seq(policy, info);
    std::vector<std::optional<chunk>> previous(info.workers);
    while (!seq.done()) {
        bool granted = false;
        for (std::size_t k = 0; k < info.workers && !seq.done(); ++k) {
            request r{k, info.of(k), previous[k] ? timing(k, *previous[k]) : chunk_timing{}};
            if (auto c = seq.next(r)) {
                f(assignment{k, *c});
                previous[k] = c;
                granted = true;
            } else {
                previous[k].reset(); // its measurement has been reported
            }
        }
        if (!granted && !seq.done())
            throw error("loopsched: no worker received work in a whole round with " + std::to_string(seq.remaining()) +
                        " iterations left");
    }
}

/// The whole schedule of for_each_round_robin.
template <ChunkPolicy P, class Timing = no_timing>
std::vector<assignment> round_robin_schedule(P const& policy, loop_info const& info, Timing timing = {}) {
    std::vector<assignment> out;
    for_each_round_robin(
            policy, info, [&](assignment const& a) { out.push_back(a); }, timing);
    return out;
}

} // namespace loopsched
