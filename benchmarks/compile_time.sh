#!/usr/bin/env bash
# Compile time of one translation unit that includes <loopsched/loopsched.hpp>
# against one that includes only <vector>, side by side, median of 5 runs each.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '#include <loopsched/loopsched.hpp>\nint main() { return loopsched::parse_policy("gss").spec().size() == 3 ? 0 : 1; }\n' > "$tmp/ours.cpp"
printf '#include <vector>\nint main() { std::vector<int> v{1, 2, 3}; return v.size() == 3 ? 0 : 1; }\n' > "$tmp/baseline.cpp"
flags=(-std=c++20 -O2 -Iinclude -I/usr/lib/x86_64-linux-gnu/openmpi/include -c)
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_one() { # file -> seconds
  local start end
  start=$(date +%s.%N); g++ "${flags[@]}" "$1" -o "$tmp/out.o"; end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { print b - a }'
}
ours=() base=()
for _ in 1 2 3 4 5; do   # interleaved so that machine noise hits both alike
  ours+=("$(time_one "$tmp/ours.cpp")")
  base+=("$(time_one "$tmp/baseline.cpp")")
done
o=$(printf '%s\n' "${ours[@]}" | median); b=$(printf '%s\n' "${base[@]}" | median)
printf 'compile time of one TU (s, median of 5, -O2): umbrella header vs <vector>\n'
printf 'compile_tu_umbrella_vs_vector: ours=%.2f baseline=%.2f ratio=%.2f\n' "$o" "$b" "$(awk -v a="$o" -v b="$b" 'BEGIN { print a / b }')"
