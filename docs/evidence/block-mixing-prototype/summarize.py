import sys, collections
rows = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    f = line.split()
    path, arm, chain, tail = f[0], f[1], int(f[3]), float(f[5])
    rows[path].setdefault(arm, []).append(tail)
tot = collections.Counter()
for path, arms in sorted(rows.items()):
    best = max(max(v) for v in arms.values())
    out = []
    for arm in ("off", "on", "cavi", "cavi4x200", "cavi8x200", "cavi8", "cavi8r"):
        gaps = [best - t for t in arms[arm]]
        near = sum(g < 30 for g in gaps)
        tot[arm] += near
        tot[arm + "_n"] += len(gaps)
        out.append(f"{arm}: near {near}/{len(gaps)} median gap {sorted(gaps)[len(gaps)//2]:.0f}")
    print(path.split('/')[-1], " | ".join(out))
print({k: v for k, v in tot.items()})
