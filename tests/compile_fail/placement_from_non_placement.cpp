// any_placement takes the library's placements, an EstimatePlacement or a
// TreePlacement of the user's; anything else is refused by name.
// expect: EstimatePlacement|TreePlacement
#include <loopsched/mapping/any_placement.hpp>

struct not_a_placement {};

int main() {
    loopsched::any_placement p(not_a_placement{});
    (void)p;
}
