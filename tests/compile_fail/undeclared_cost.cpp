// Divide-and-conquer ops with a cost they do not declare are refused: an
// optional member is declared by name, so that a misspelled one cannot pass.
// expect: have cost.problem. but do not declare it
#include <loopsched/algorithm/divide_and_conquer.hpp>
#include <loopsched/transport/in_process.hpp>

#include <span>
#include <vector>

struct fib {
    bool is_leaf(int n) const { return n < 2; }
    long solve(int n) const { return n; }
    std::vector<int> divide(int n) const { return {n - 1, n - 2}; }
    long combine(int, std::span<long> r) const { return r[0] + r[1]; }
    double cost(int n) const { return n; }
};

int main() {
    loopsched::in_process::run(2,
                               [](loopsched::in_process::endpoint& t) { loopsched::divide_and_conquer(t, 10, fib{}); });
}
