#!/usr/bin/env bash
# Each DOACROSS example's raw result must be byte-identical to its sequential
# loop for every rank count, policy and interval.
# Usage: doacross_identical.sh DOACROSS MPIEXEC WORKDIR
set -euo pipefail
program=$1 mpiexec=$2 work=$3
mkdir -p "$work"
# Each policy on 2 ranks for half the examples and on 4 for the others, in
# turn (every pair of the two would double this test's minute in CI).
turn=0
for example in heat:120x90 floyd-steinberg:90x120 hydro:40x5x60 artificial:80x80; do
  name=${example%%:*} size=${example#*:}
  "$program" --example "$name" --size "$size" --output "$work/$name-sequential.raw" >/dev/null
  for spec in s-css s-tss sw-gss s-dtss s-af dmps-tss; do
    ranks=$(( turn % 2 == 0 ? 2 : 4 ))
    turn=$((turn + 1))
    intervals="1 auto"
    [[ $spec == dmps-* ]] && intervals="5" # DMPS takes h from the programmer
    for interval in $intervals; do
      out="$work/$name-$ranks-$spec-$interval.raw"
      "$mpiexec" -n "$ranks" --oversubscribe "$program" --example "$name" --size "$size" --policy "$spec" \
        --interval "$interval" --output "$out" >/dev/null
      cmp "$work/$name-sequential.raw" "$out" || { echo "differs: $name, $ranks ranks, $spec, h=$interval"; exit 1; }
    done
  done
  turn=$((turn + 1)) # the next example starts on the other rank count
done
# Static mappings (Ciorba): SDS and the chain mappings, no master dealing.
for example in heat:120x90 floyd-steinberg:90x120 hydro:40x5x60 artificial:80x80; do
  name=${example%%:*} size=${example#*:}
  for mapping in sds cyclic cps acs; do
    out="$work/$name-3-$mapping.raw"
    "$mpiexec" -n 3 --oversubscribe "$program" --example "$name" --size "$size" --mapping "$mapping" --output "$out" >/dev/null
    cmp "$work/$name-sequential.raw" "$out" || { echo "differs: $name, 3 ranks, --mapping $mapping"; exit 1; }
  done
done
# The library on one rank, a dedicated master, emulated heterogeneity and a trace change nothing either.
"$program" --example heat --size 120x90 --library --policy s-tss --output "$work/heat-library.raw" >/dev/null
cmp "$work/heat-sequential.raw" "$work/heat-library.raw"
"$mpiexec" -n 3 --oversubscribe "$program" --example floyd-steinberg --size 90x120 --policy sw-tss --dedicated-master \
  --powers 1,1,0.5 --emulate --trace "$work/t.json" --gantt "$work/g.svg" --output "$work/fs-hetero.raw" >/dev/null
cmp "$work/floyd-steinberg-sequential.raw" "$work/fs-hetero.raw"
grep -q '"ph":"X"' "$work/t.json" && grep -q '<rect' "$work/g.svg"
# Bad input fails with a message naming it.
if "$program" --example heat --library --policy tss --size 10x10 2>"$work/err.txt"; then echo "accepted a policy without S"; exit 1; fi
grep -q "synchronization adaptor" "$work/err.txt"
echo "all DOACROSS results identical to the sequential loops"
