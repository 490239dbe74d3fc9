#!/usr/bin/env python3
"""The real-failure matrix: rank_failure_test under `mpirun --with-ft ulfm`,
one rank killed (SIGKILL) per run at a seeded moment, every configuration on 3
and 4 ranks (by the seed's parity) with SEEDS seeds. A run passes when every
survivor printed PASS and none FAIL, within the timeout (a hang fails).
Prints one line per configuration and the totals; exits 1 on any failure.

    kill_matrix.py PROGRAM MPIRUN [--seeds 20] [--jobs 3] [--only SUBSTRING | --name NAME]
    kill_matrix.py --list        the configurations' names, one per line
"""
import argparse
import concurrent.futures
import os
import re
import statistics
import subprocess
import sys
import time

# (name, the program's arguments, where the victim is: "worker", "group worker" or "root")
CONFIGURATIONS = [
    ("doall ss (CSS(1)), computing master, killed in its body", "--work doall --scheme ss --kill body", "worker"),
    ("doall gss, dedicated master, killed at a random time", "--work doall --scheme gss --kill timer --dedicated", "worker"),
    ("doall fss, computing master, killed at a random time", "--work doall --scheme fss --kill timer", "worker"),
    ("doall af (adaptive), dedicated master, killed in its body", "--work doall --scheme af --kill body --dedicated", "worker"),
    ("doall dtss (distributed), computing master, killed in its body", "--work doall --scheme dtss --kill body", "worker"),
    ("doall w-fss (weighted), dedicated master, killed at a random time", "--work doall --scheme w-fss --kill timer --dedicated", "worker"),
    ("doall gss, killed after the loop returned on it", "--work doall --scheme gss --kill after", "worker"),
    ("farm ss, killed before its first farm", "--work farm --scheme ss --kill start", "worker"),
    ("doall fss without reissue, killed in its body", "--work doall --scheme fss --kill body --no-reissue", "worker"),
    ("doall fss, the root killed at a random time", "--work doall --scheme fss --kill timer", "root"),
    ("hierarchy fss/ss, a sub-master or worker killed at a random time", "--work doall --scheme fss/ss --kill timer --no-reissue", "worker"),
    ("hierarchy fss/ss, a group's worker killed in its body", "--work doall --scheme fss/ss --kill body", "group worker"),
    ("hierarchy fss/gss, a group's worker killed at a random time", "--work doall --scheme fss/gss --kill timer", "group worker"),
    ("farm kazouris, computing master, killed in its body", "--work farm --scheme kazouris --kill body", "worker"),
    ("farm ss, dedicated master, killed at a random time", "--work farm --scheme ss --kill timer --dedicated", "worker"),
    ("farm fss (a chunk policy), computing master, killed at a random time", "--work farm --scheme fss --kill timer", "worker"),
    ("doall gss without a master, killed at a random time", "--work doall --scheme gss --kill timer --masterless", "worker"),
    ("doall w-fss without a master (claims log), killed in its body", "--work doall --scheme w-fss --kill body --masterless", "worker"),
    ("doall fss without a master, nothing gathered (rows up a tree), killed at a random time", "--work doall --scheme fss --kill timer --masterless --no-gather", "worker"),
    ("doacross s-css, killed at a random time", "--work doacross --scheme s-css:chunk=5,h=20 --kill timer", "worker"),
    ("divide and conquer, steal, killed at a random time", "--work dnc --scheme steal --kill timer", "worker"),
]
# Unkilled runs of the same first loops: their times beside the kills'.
BASELINES = [
    ("doall fss, nothing killed", "--work doall --scheme fss --kill none", "worker"),
    ("farm fss, nothing killed", "--work farm --scheme fss --kill none", "worker"),
]

LINE = re.compile(r"^(PASS|FAIL) rank (\d+): .*?: (.*?); first loop ([\d.]+) s, kill to its end (-?[\d.]+) s")


def run_one(program, mpirun, args, where, seed, timeout):
    ranks = 3 if seed % 2 == 0 else 4
    # A hierarchy's one group worker is rank 2 (see rank_failure_test.cpp).
    victim = 0 if where == "root" else 2 if where == "group worker" else 1 + (seed // 2) % (ranks - 1)
    command = [mpirun, "--with-ft", "ulfm", "-n", str(ranks), "--oversubscribe", program] + args.split() + [
        "--victim", str(victim), "--seed", str(seed)]
    started = time.monotonic()
    relaunched = 0
    while True:
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
            out, err, hung = done.stdout, done.stderr, False
        except subprocess.TimeoutExpired as e:
            text = lambda b: b.decode(errors="replace") if isinstance(b, bytes) else (b or "")
            out, err, hung = text(e.stdout), text(e.stderr), True
        # The launcher itself failed before any rank ran (PRRTE, several
        # mpiruns starting at once): launched again, and counted.
        if not hung and not out.strip() and "PMIx server" in err and relaunched < 2:
            relaunched += 1
            continue
        break
    lines = [LINE.match(l) for l in out.splitlines()]
    lines = [m for m in lines if m]
    passed = [m for m in lines if m.group(1) == "PASS"]
    failed = [m for m in lines if m.group(1) == "FAIL"]
    killed = len(lines) == ranks - 1
    # A body kill the victim never reached (it had work left when every loop
    # ended, and says so on every rank's line): a run without a kill, not a failure.
    unreached = len(lines) == ranks and "--kill body" in args and all("victim not reached" in m.group(3) for m in lines)
    ok = not hung and not failed and (killed or unreached or (len(lines) == ranks and "--kill timer" in args) or
                                      (len(lines) == ranks and "--kill none" in args))
    detail = ""
    if not ok:
        detail = ("hung after %d of %d ranks reported" % (len(lines), ranks) if hung else
                  failed[0].string if failed else "%d of %d ranks reported" % (len(lines), ranks))
        detail += "".join("\n       | " + l for l in err.strip().splitlines()[-6:])
    first = [float(m.group(4)) for m in passed]
    to_end = [float(m.group(5)) for m in passed if float(m.group(5)) >= 0]
    outcome = passed[0].group(3) if passed else ""
    return {"ok": ok, "killed": killed, "unreached": unreached, "finalize_hung": "FINALIZE HUNG" in out, "relaunched": relaunched, "detail": detail, "command": " ".join(command),
            "first": max(first) if first else None, "to_end": max(to_end) if to_end else None,
            "rank_lost": "rank_lost" in outcome, "seconds": time.monotonic() - started}


def main():
    if sys.argv[1:] == ["--list"]:
        print("\n".join(c[0] for c in CONFIGURATIONS + BASELINES))
        return 0
    parser = argparse.ArgumentParser()
    parser.add_argument("program")
    parser.add_argument("mpirun")
    parser.add_argument("--name", default=None)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--jobs", type=int, default=3)
    parser.add_argument("--only", default="")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--loops", type=int, default=100)
    a = parser.parse_args()
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    configurations = [c for c in CONFIGURATIONS + BASELINES if a.only in c[0] and a.name in (None, c[0])]
    if not configurations:
        print("kill_matrix.py: no configuration named %r" % (a.name or a.only))
        return 2
    total = {"runs": 0, "kills": 0, "unreached": 0, "failures": 0, "loops": 0, "finalize_hung": 0, "relaunched": 0}
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for name, args, where in configurations:
            args = args + " --loops %d" % a.loops
            runs = list(pool.map(lambda s: run_one(a.program, a.mpirun, args, where, s, a.timeout), range(1, a.seeds + 1)))
            kills = sum(r["killed"] for r in runs)
            bad = [r for r in runs if not r["ok"]]
            total["runs"] += len(runs)
            total["kills"] += kills
            unreached = sum(r["unreached"] for r in runs)
            total["unreached"] += unreached
            total["failures"] += len(bad)
            total["finalize_hung"] += sum(r["finalize_hung"] for r in runs)
            total["relaunched"] += sum(r["relaunched"] for r in runs)
            total["loops"] += sum(a.loops + 1 for r in runs if r["ok"])
            firsts = [r["first"] for r in runs if r["first"] is not None]
            ends = [r["to_end"] for r in runs if r["to_end"] is not None and r["killed"]]
            figures = "first loop median %.3f s" % statistics.median(firsts) if firsts else ""
            if ends:
                figures += ", kill to its end median %.3f s, worst %.3f s" % (statistics.median(ends), max(ends))
            print("%-4s %-72s runs %2d, kills %2d (rank_lost in %2d), %s%s" % (
                "ok" if not bad else "FAIL", name, len(runs), kills, sum(r["rank_lost"] for r in runs if r["killed"]),
                figures, "; the victim never reached its kill in %d" % unreached if unreached else ""), flush=True)
            for r in bad:
                print("     %s\n       %s" % (r["detail"], r["command"]), flush=True)
    print("kill matrix: %d runs, %d ranks killed (%d victims never reached their body kill), "
          "%d loops checked on the survivors, %d failures (%.0f s); "
          "MPI_Finalize hung in %d runs (open-mpi/ompi#11404), ended by the program's watchdog; "
          "mpirun failed to start and was launched again %d times" % (
              total["runs"], total["kills"], total["unreached"], total["loops"], total["failures"], time.monotonic() - started,
              total["finalize_hung"], total["relaunched"]))
    return 1 if total["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
