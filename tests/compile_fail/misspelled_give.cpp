// A dividing placement whose state declares the amount-taking give but spells
// it otherwise (give_sized) is refused: the sized transfer would fall back to
// the plain give in silence.
// expect: has no give.std::span<queued_task const>, bool, double. const
#include <loopsched/mapping/any_placement.hpp>

#include <cstddef>
#include <span>
#include <vector>

using namespace loopsched;

using tasks = std::span<queued_task const>;

struct sized_steal {
    struct state {
        static constexpr hook_set hooks{.give_amount = true};
        std::vector<placed_worker> first_list(std::span<placed_worker const> w) const { return {w.front()}; }
        std::vector<std::vector<placed_worker>> split(std::span<placed_worker const> l, std::size_t) const {
            return {{l.begin(), l.end()}};
        }
        bool divides(std::size_t queued, std::size_t workers) const { return queued < workers; }
        std::size_t next(tasks, bool) const { return 0; }
        std::vector<std::size_t> give(tasks, bool) const { return {}; }
        std::vector<std::size_t> give_sized(tasks, bool, double) const { return {}; } // meant: give
        idle_action when_idle() const { return idle_action::steal; }
        bool balances() const { return false; }
        bool spills() const { return true; }
    };
    state start(placement_info const&) const { return {}; }
    friend bool operator==(sized_steal, sized_steal) = default;
};

int main() {
    any_placement p(sized_steal{});
    (void)p;
}
