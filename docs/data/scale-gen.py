# Made for docs/history/performance.md, "Memory per cell, and a fit of 10⁸ cells" (summarised in BENCHMARKS.md, "Memory per cell").
# Run: python3 docs/data/scale-gen.py, then
#   lppf privatize --input counts.csv --output released.csv --epsilon 1 --rows docs.csv --cols words.csv --seed 34
# A sparse 10^4 x 10^4 document-term count table from a K = 20 topic model (seeded):
# each document has ~100 words, so ~10^6 non-zero cells; the release lists all 10^8.
import random
random.seed(34)
D = V = 10_000
K = 20
topics = [[random.gammavariate(0.1, 1.0) for _ in range(V)] for _ in range(K)]
cum = []
for t in topics:
    s = sum(t); acc = 0.0; c = []
    for x in t:
        acc += x / s; c.append(acc)
    cum.append(c)
import bisect
with open("counts.csv", "w") as f:
    f.write("row,col,count\n")
    for d in range(D):
        words = {}
        ks = random.sample(range(K), 2)
        for _ in range(100):
            k = random.choice(ks)
            w = min(bisect.bisect_left(cum[k], random.random()), V - 1)
            words[w] = words.get(w, 0) + 1
        for w in sorted(words):
            f.write(f"d{d:05d},w{w:05d},{words[w]}\n")
with open("docs.csv", "w") as f:
    f.write("label\n")
    for d in range(D): f.write(f"d{d:05d}\n")
with open("words.csv", "w") as f:
    f.write("label\n")
    for w in range(V): f.write(f"w{w:05d}\n")
