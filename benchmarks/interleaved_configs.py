#!/usr/bin/env python3
"""Per-task timings of mdcore configs on the water-24k box, measured in interleaved rounds.

Usage: benchmarks/interleaved_configs.py MDCORE ROUNDS STEPS WARMUP "ARGS" ["ARGS" ...]

Each round runs every config once (alternating the order round by round), so a
slow spell of a shared machine touches every config alike; the table gives each
task's median ms per step. "ARGS" are extra `mdcore run` flags; "BIN=path ARGS"
runs another binary (an older build) in the same rounds. Runs wait while a
compiler, a test or another mdcore is running.
"""
import json
import os
import statistics
import subprocess
import sys
import time

BOX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "water-24k")
BUSY = ("cc1plus", "mdcore", "bench_", "ld", "nvcc", "cicc", "ptxas", "mpirun", "test_")
TASKS = ["nonbonded", "prune", "search", "pme_spread", "pme_fft", "pme_solve", "pme_gather", "constraints", "update",
         "other", "step"]


def wait_quiet():
    for _ in range(600):
        names = subprocess.run(["ps", "-eo", "comm="], capture_output=True, text=True).stdout.split()
        if not any(n.startswith(BUSY) for n in names):
            return
        time.sleep(2)


def main(argv):
    if len(argv) < 6:
        sys.exit(__doc__)
    binary, rounds, steps, warmup, configs = argv[1], int(argv[2]), int(argv[3]), int(argv[4]), argv[5:]
    results = {c: [] for c in configs}
    for r in range(rounds):
        for c in (configs if r % 2 == 0 else list(reversed(configs))):
            exe, args = binary, c
            if c.startswith("BIN="):
                exe, _, args = c.partition(" ")
                exe = exe[4:]
            wait_quiet()
            run = subprocess.run([exe, "run", "--gro", f"{BOX}/conf.gro", "--top", f"{BOX}/topol.top", "--steps",
                                  str(steps), "--warmup", str(warmup), "--threads", "2", "--json", "-"] + args.split(),
                                 capture_output=True, text=True)
            if run.returncode:
                sys.exit(f"interleaved_configs: '{c}' failed: {run.stderr.strip()[-300:]}")
            report = json.loads(run.stdout)
            per_step = {k: v * 1000.0 / (steps - warmup) for k, v in report["timings"].items()}
            per_step["step"] = report["ms_per_step"]
            results[c].append(per_step)
    print(f"{'config':40s}" + "".join(f"{k[:8]:>9s}" for k in TASKS))
    for c in configs:
        print(f"{c[:40]:40s}" + "".join(f"{statistics.median(t.get(k, 0.0) for t in results[c]):9.3f}" for k in TASKS))
    # Per round, each config's step and nonbonded time over the first config's in
    # that round: the comparison a drifting machine cannot skew.
    first = results[configs[0]]
    for c in configs[1:]:
        for k in ("step", "nonbonded", "constraints"):
            ratios = [t[k] / f[k] for t, f in zip(results[c], first) if f.get(k)]
            if ratios:
                print(f"{k} ratio to the first config, per round: " + " ".join(f"{x:.3f}" for x in ratios) +
                      f"  (median {statistics.median(ratios):.3f})  [{c[:40]}]")


if __name__ == "__main__":
    main(sys.argv)
