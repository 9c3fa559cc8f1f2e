"""Per-sweep times of the "default model" benchmarks and their ratios to the papers' model
(BENCHMARKS.md, "One private sweep"; docs/evidence/default-model-sweep/):

    python3 tools/bench/sweep_ratios.py docs/evidence/default-model-sweep/runs.log

`runs.log` has one line `run|bench|mean ms` per benchmark and run. Prints each benchmark's median
over the runs and, for each against the flat Poisson benchmark of the same model, the geometric
mean of the per-run ratios with a 95 % t-interval (runs paired: both from the same run).
"""

import math
import statistics
import sys
from collections import defaultdict

# Two-sided 95 % quantiles of Student's t by degrees of freedom.
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[1].strip())
    times = defaultdict(dict)
    for line in open(sys.argv[1]):
        run, bench, ms = line.strip().split("|")
        times[bench][int(run)] = float(ms)
    for bench in sorted(times):
        print(f"{bench}: median {statistics.median(times[bench].values()):.2f} ms over {len(times[bench])} runs")
    for bench in sorted(times):
        model = bench.split(",")[0]
        base = f"{model}, flat Poisson"
        if bench == base or base not in times:
            continue
        runs = sorted(set(times[bench]) & set(times[base]))
        if len(runs) - 1 not in T95:
            sys.exit(f"{bench}: {len(runs)} paired runs; this script knows t for 2 to 11")
        logs = [math.log(times[bench][r] / times[base][r]) for r in runs]
        mean, half = statistics.mean(logs), T95[len(runs) - 1] * statistics.stdev(logs) / math.sqrt(len(runs))
        print(f"{bench} / flat: {math.exp(mean):.2f} [{math.exp(mean - half):.2f}, {math.exp(mean + half):.2f}]")


if __name__ == "__main__":
    main()
