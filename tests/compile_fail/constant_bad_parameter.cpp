// A policy built in a constant expression with a bad value fails to compile,
// and the diagnostic shows which parameter.
// expect: css chunk k
#include <loopsched/policy/css.hpp>

int main() {
    constexpr loopsched::css bad(0);
    (void)bad;
}
