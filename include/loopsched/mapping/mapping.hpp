// The loop mappings (see LoopMapping): dynamic (whoever asks), static block
// and static cyclic, and any_mapping to choose one at run time by name.
#pragma once

#include <loopsched/mapping/concepts.hpp>
#include <loopsched/detail/spec_of.hpp>
#include <loopsched/error.hpp>
#include <loopsched/policy/request.hpp>

#include <concepts>
#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace loopsched {

/// Units go to whichever worker asks first (self-scheduling): the default.
struct dynamic_mapping {
    static constexpr std::string_view name = "dynamic";
    struct state {
        [[nodiscard]] std::size_t place(work_unit const&, request const& asking) const noexcept {
            return asking.worker;
        }
    };
    [[nodiscard]] constexpr bool ahead_of_time() const noexcept { return false; }
    [[nodiscard]] state start(placement_info const&) const noexcept { return {}; }
    friend constexpr bool operator==(dynamic_mapping, dynamic_mapping) = default;
};

/// Unit i of u goes to worker floor(i p / u): a contiguous run of units per worker.
struct static_block_mapping {
    static constexpr std::string_view name = "block";
    struct state {
        std::size_t workers = 1, units = 0;
        [[nodiscard]] std::size_t place(work_unit const& u, request const&) const noexcept {
            if (units == 0) return 0;
            // u.index < units <= SIZE_MAX / workers is not guaranteed: divide first where the product would wrap.
            if (u.index <= std::numeric_limits<std::size_t>::max() / workers) return u.index * workers / units;
            return u.index / (units / workers + (units % workers != 0));
        }
    };
    [[nodiscard]] constexpr bool ahead_of_time() const noexcept { return true; }
    [[nodiscard]] state start(placement_info const& info) const {
        detail::require(info.workers >= 1, "placement workers", info.workers, "must be >= 1");
        return {info.workers, info.units};
    }
    friend constexpr bool operator==(static_block_mapping, static_block_mapping) = default;
};

/// Unit i goes to worker i mod p (round robin).
struct static_cyclic_mapping {
    static constexpr std::string_view name = "cyclic";
    struct state {
        std::size_t workers = 1;
        [[nodiscard]] std::size_t place(work_unit const& u, request const&) const noexcept { return u.index % workers; }
    };
    [[nodiscard]] constexpr bool ahead_of_time() const noexcept { return true; }
    [[nodiscard]] state start(placement_info const& info) const {
        detail::require(info.workers >= 1, "placement workers", info.workers, "must be >= 1");
        return {info.workers};
    }
    friend constexpr bool operator==(static_cyclic_mapping, static_cyclic_mapping) = default;
};

/// One of the library's mappings, chosen at run time (parse_mapping, in placement_spec.hpp).
class any_mapping {
public:
    using variant = std::variant<dynamic_mapping, static_block_mapping, static_cyclic_mapping>;

    any_mapping() = default;
    template <class M>
    requires std::constructible_from<variant, M> any_mapping(M m) : held_(m) {}

    class state {
    public:
        using variant = std::variant<dynamic_mapping::state, static_block_mapping::state, static_cyclic_mapping::state>;
        explicit state(variant s) : held_(s) {}
        [[nodiscard]] std::size_t place(work_unit const& u, request const& asking) const {
            return std::visit([&](auto const& s) { return s.place(u, asking); }, held_);
        }

    private:
        variant held_;
    };

    [[nodiscard]] bool ahead_of_time() const {
        return std::visit([](auto const& m) { return m.ahead_of_time(); }, held_);
    }
    [[nodiscard]] state start(placement_info const& info) const {
        return std::visit([&](auto const& m) { return state(m.start(info)); }, held_);
    }
    [[nodiscard]] std::string_view name() const {
        return std::visit([](auto const& m) { return m.name; }, held_);
    }
    friend bool operator==(any_mapping const&, any_mapping const&) = default;

private:
    variant held_{};
};

namespace detail {
/// The name a mapping goes by in the loop's agreement.
template <LoopMapping M>
std::string mapping_name(M const& m) {
    return spec_of(m);
}
} // namespace detail

} // namespace loopsched
