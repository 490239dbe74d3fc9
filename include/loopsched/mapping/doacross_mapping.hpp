// Static mappings of a DOACROSS loop's tiles to ranks (Ciorba, 3.4 and
// 4.2): SDS along the optimal hyperplane, and the chain mappings cyclic, CPS
// and ACS. Every rank derives the same owner for every tile; no master deals.
#pragma once

#include <loopsched/concepts.hpp>
#include <loopsched/detail/arithmetic.hpp>
#include <loopsched/error.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace loopsched {

template <std::size_t N>
class tiling;
struct tile_placement;
struct doacross_tile_state;

/// How parallel_for_doacross places tiles on ranks when it runs without
/// self-scheduling: pass one where the chunk policy goes (by name:
/// parse_doacross_mapping or parse_placement, in placement_spec.hpp).
///
/// - sds: tiles hyperplane by hyperplane (the optimal hyperplane of the
///   tiles' dependences for the last tile), each hyperplane
///   in lexicographic order, the r-th tile of that sequence on worker r mod P
///   (CRONUS's successive dynamic scheduling at tile grain).
/// - cyclic, cps, acs: chains of tiles along the communication vector of the
///   first two dimensions, mapped as chain_set's map_cyclic, map_cps and
///   map_acs do (acs by each rank's available power V/Q).
///
/// `tile`: the tile's extent along each dimension; empty or 0 along a
/// dimension: chosen (4 tiles per worker along the first two dimensions, the
/// whole extent along the others), so that each hyperplane has work for every worker.
struct doacross_mapping {
    enum class rule { sds, cyclic, cps, acs };
    rule how = rule::sds;
    std::vector<index_t> tile{};

    [[nodiscard]] std::string_view name() const noexcept {
        switch (how) {
        case rule::sds: return "sds";
        case rule::cyclic: return "chains-cyclic";
        case rule::cps: return "cps";
        case rule::acs: return "acs";
        }
        return "sds";
    }
    /// The state the DOACROSS engine asks (a TileMapping's): the workers and
    /// their available powers V/Q (only ACS weighs them).
    [[nodiscard]] doacross_tile_state start(placement_info const& info) const;
    friend bool operator==(doacross_mapping const&, doacross_mapping const&) = default;
};

/// A doacross_mapping over one loop: places a tiling's tiles.
struct doacross_tile_state {
    doacross_mapping mapping;
    std::size_t workers = 1;
    std::vector<double> powers{}; ///< per worker, V/Q; empty: all equal
    /// Every tile's owner, and each worker's tiles in the order it runs them
    /// (defined with tilings, in dependence/tiling.hpp).
    template <std::size_t N>
    [[nodiscard]] tile_placement place(tiling<N> const& tiles) const;
};

inline doacross_tile_state doacross_mapping::start(placement_info const& info) const {
    doacross_tile_state s{*this, info.workers, {}};
    for (auto const& w : info.status) s.powers.push_back(w.power / w.run_queue);
    return s;
}

} // namespace loopsched
