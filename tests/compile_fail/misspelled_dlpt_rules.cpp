// An estimate placement whose state declares D_LPT's rules but spells the
// member otherwise (dlpt_rule) is refused: the rules would be off in silence.
// expect: no dlpt_rules.. const returning bool .misspelled
#include <loopsched/mapping/any_placement.hpp>

#include <cstddef>

struct first_worker {
    struct state {
        static constexpr loopsched::hook_set hooks{.dlpt_rules = true};
        std::size_t choose(loopsched::dlpt_board const&, double, double) { return 0; }
        bool dlpt_rule() const { return true; } // meant: dlpt_rules
    };
    state start(loopsched::placement_info const&) const { return {}; }
    friend bool operator==(first_worker, first_worker) = default;
};

int main() {
    loopsched::any_placement p(first_worker{});
    (void)p;
}
