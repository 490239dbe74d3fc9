// Mappings: who executes which chunk (dynamic master-worker, static block, static cyclic).
#pragma once

#include <cstddef>
#include <optional>

namespace loopsched {

/// Chunks go to whichever worker asks first (self-scheduling).
struct dynamic_mapping {
    static constexpr bool is_dynamic = true;
    [[nodiscard]] constexpr std::optional<std::size_t> owner(std::size_t, std::size_t, std::size_t) const noexcept {
        return std::nullopt;
    }
};

/// Chunk i of c goes to worker floor(i * p / c): contiguous runs of chunks per worker.
struct static_block_mapping {
    static constexpr bool is_dynamic = false;
    [[nodiscard]] constexpr std::optional<std::size_t> owner(std::size_t chunk, std::size_t chunks,
                                                             std::size_t workers) const noexcept {
        return chunks == 0 ? 0 : chunk * workers / chunks;
    }
};

/// Chunk i goes to worker i mod p (round robin).
struct static_cyclic_mapping {
    static constexpr bool is_dynamic = false;
    [[nodiscard]] constexpr std::optional<std::size_t> owner(std::size_t chunk, std::size_t,
                                                             std::size_t workers) const noexcept {
        return workers == 0 ? 0 : chunk % workers;
    }
};

} // namespace loopsched
