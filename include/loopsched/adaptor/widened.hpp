// widened: an adaptor that keeps a policy's chunks at least a given width
// (the last chunk, clipped to what remains, aside). DOACROSS loops need it.
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/request.hpp>

#include <algorithm>
#include <utility>

namespace loopsched {

/// A policy whose chunks are at least `min` wide: a chunk narrower than the
/// dependences' reach along u_c would leave its successor needing data from
/// two chunks back, so DOACROSS loops widen it (only the loop's last chunk,
/// clipped to what remains, can be narrower, and nothing follows it).
template <ChunkPolicy P>
struct widened {
    P inner;
    index_t min = 1;

    class state {
    public:
        state(state_of<P> s, index_t min) : inner_(std::move(s)), min_(min) {}
        index_t propose(request const& r) {
            index_t const c = inner_.propose(r);
            return c == 0 ? 0 : std::max(c, min_);
        }
        void commit(request const& r, index_t granted) { inner_.commit(r, granted); }

    private:
        state_of<P> inner_;
        index_t min_;
    };
    [[nodiscard]] state start(loop_info const& info) const { return state(inner.start(info), min); }
};

} // namespace loopsched
