// A farm placement whose state spells a decision otherwise (grants for grant)
// models no FarmPlacement: the option refuses it at compile time, naming the
// concepts it takes, instead of running a default.
// expect: not a placement.*FarmPlacement
#include <loopsched/mapping/any_placement.hpp>
#include <loopsched/task_options.hpp>

#include <cstddef>
#include <optional>

struct one_at_a_time {
    struct state {
        loopsched::farm_grant grants(loopsched::farm_view&, std::size_t) const { return {1}; } // meant: grant
        std::optional<std::size_t> place_new(loopsched::farm_view&) const { return std::nullopt; }
        std::size_t idle_below() const { return 1; }
        bool moves_work() const { return false; }
        bool largest_first() const { return false; }
    };
    state start(loopsched::farm_info const&) const { return {}; }
    friend bool operator==(one_at_a_time, one_at_a_time) = default;
};

int main() {
    loopsched::task_farm_options o;
    o.placement = one_at_a_time{};
}
