// A compile-time dependence set with a vector that is not lexicographically positive.
// expect: every dependence vector must be lexicographically positive
#include <loopsched/dependence/uniform.hpp>

int main() {
    loopsched::uniform<loopsched::vec{1, 0}, loopsched::vec{0, -1}> deps;
    (void)deps.vectors();
}
