"""Topics of real e-mails under local privacy, against standard non-private tools
(docs/own-data.md, "Topics: what privacy costs"): a document–term table of Enron sent mail
(AESLC, CC BY-NC-SA 4.0, ../shared/data/enron-aeslc/SOURCE.md), fitted by `lppf fit` on the raw
counts (non-private), on a release (private and naive), and by scikit-learn's NMF and LDA on the
raw counts and NMF on the release; every fit's topics are scored by their coherence on the raw
counts.

    target/ci-python/bin/python tools/topics/aeslc_compare.py --out docs/evidence/aeslc-topics

Needs numpy, pandas, pyarrow and scikit-learn (1.9.1 here; not part of CI), and
target/release/lppf (LPPF_BIN: another binary).

The table: the sent mail (a file `<mailbox>_sent_<n>.subject`; the body is every line before
the first `@subject` line; the same body from the same sender once), lower-cased words of three
or more letters, scikit-learn's English stop words removed. The vocabulary is the VOCABULARY
words in the most documents among those in at most 30 % of them; of the documents with at least
MIN_TOKENS vocabulary words, DOCUMENTS are drawn (seeded). The release is one seeded
demonstration (NOT private) at alpha = e^-1 (epsilon = 1 per unit count).

Coherence: the normalised pointwise mutual information (NPMI; Bouma 2009; Lau, Newman & Baldwin
2014) of each pair of a topic's TOP words, from which documents of the whole corpus (all the
kept documents, not only the sample) contain them, averaged over pairs; a topic's score, then
the mean over the K topics with its standard error. Higher is more coherent; 0 is chance.
Also each fit's share of distinct words among all its topics' top words (1: no two topics share
a word).

Topics of each fit:
* lppf: phi of the factors.parquet sample (one kept sample of one chain: what factors.parquet
  holds), and the posterior summary of summary.txt (the partition's groups of documents, each
  with its distinctive words from the pooled posterior mean rates) as a second reading;
* NMF: the rows of `components_` (KL divergence, multiplicative updates); LDA: the rows of
  `components_` (online variational Bayes, scikit-learn's defaults).
"""

import argparse
import csv
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
from sklearn.decomposition import NMF, LatentDirichletAllocation
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

ROOT = Path(__file__).resolve().parents[2]
LPPF = Path(os.environ.get("LPPF_BIN", ROOT / "target" / "release" / "lppf"))
# The likelihood of the committed fits (lppf fit's default when they were made; every other
# setting is lppf fit's default).
LIKELIHOOD = "negative-binomial"
CORPUS = ROOT.parent / "shared" / "data" / "enron-aeslc" / "enron_subject_line"
VOCABULARY, DOCUMENTS, MIN_TOKENS, TOPICS, TOP, SEED = 300, 400, 15, 10, 10, 2026
ALPHA = float(np.exp(-1.0))
WORD = re.compile(r"[a-z]{3,}")


def read_bodies(root):
    """The sent mail's bodies in sorted path order, each (sender, body) once."""
    seen, bodies = set(), []
    for path in sorted(root.rglob("*.subject")):
        parts = path.name[: -len(".subject")].rsplit("_", 2)
        if len(parts) != 3 or parts[1] != "sent":
            continue
        lines = path.read_text(encoding="utf-8", errors="strict").splitlines()
        if "@subject" not in lines:
            continue
        body = "\n".join(lines[: lines.index("@subject")]).strip()
        if body and (parts[0], body) not in seen:
            seen.add((parts[0], body))
            bodies.append(body)
    return bodies


def table(bodies):
    """(counts of every kept document, vocabulary): documents x words."""
    tokens = [[w for w in WORD.findall(b.lower()) if w not in ENGLISH_STOP_WORDS] for b in bodies]
    df = {}
    for t in tokens:
        for w in set(t):
            df[w] = df.get(w, 0) + 1
    eligible = [w for w, n in df.items() if n <= 0.3 * len(tokens)]
    vocabulary = sorted(sorted(eligible), key=lambda w: -df[w])[:VOCABULARY]
    index = {w: j for j, w in enumerate(vocabulary)}
    counts = np.zeros((len(tokens), len(vocabulary)), dtype=np.int64)
    for i, t in enumerate(tokens):
        for w in t:
            if w in index:
                counts[i, index[w]] += 1
    return counts[counts.sum(1) >= MIN_TOKENS], vocabulary


def npmi(top_words, present):
    """Mean NPMI over the pairs of `top_words` (column indices) from `present` (documents x
    words, booleans); a pair that never co-occurs scores -1."""
    n = present.shape[0]
    scores = []
    for a in range(len(top_words)):
        for b in range(a + 1, len(top_words)):
            i, j = top_words[a], top_words[b]
            pi, pj = present[:, i].mean(), present[:, j].mean()
            pij = (present[:, i] & present[:, j]).sum() / n
            scores.append(-1.0 if pij == 0 else np.log(pij / (pi * pj)) / -np.log(pij))
    return float(np.mean(scores))


def write_counts(path, counts, rows, cols):
    with open(path, "w") as f:
        f.write("row,col,count\n")
        for i, j in zip(*np.nonzero(counts)):
            f.write(f"{rows[i]},{cols[j]},{counts[i, j]}\n")


def read_release(path, rows, cols):
    """The released values as a rows x cols array, placed by their labels."""
    r, c = {x: i for i, x in enumerate(rows)}, {x: j for j, x in enumerate(cols)}
    values = np.zeros((len(rows), len(cols)), dtype=np.int64)
    with open(path) as f:
        for rec in csv.DictReader(f):
            values[r[rec["row"]], c[rec["col"]]] = int(rec["value"])
    return values


def run(args):
    subprocess.run([str(a) for a in args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def lppf_topics(fit_dir, vocabulary):
    """phi's top words per topic, from factors.parquet."""
    f = pq.read_table(fit_dir / "factors.parquet").to_pandas()
    phi = f[f.matrix == "phi"].pivot(index="component", columns="label", values="value")
    index = {w: j for j, w in enumerate(vocabulary)}
    return [[index[w] for w in row.sort_values(ascending=False).index[:TOP]] for _, row in phi.iterrows()]


def lppf_groups(fit_dir, vocabulary):
    """The summary's groups of two or more documents: their distinctive words (by p ln(p/q) of the
    posterior mean rates, as summary.txt lists them)."""
    rates = pq.read_table(fit_dir / "rates.parquet").to_pandas()
    mean = rates.pivot(index="row", columns="col", values="mean")[vocabulary]
    groups = {}
    with open(fit_dir / "partition.csv") as f:
        for r in csv.DictReader(f):
            groups.setdefault(r["group"], []).append(r["row"])
    q = mean.sum(axis=0) / mean.values.sum()
    topics = []
    for members in groups.values():
        if len(members) < 2:
            continue
        p = mean.loc[members].sum(axis=0)
        p = p / p.sum()
        score = (p * np.log(p / q)).where(p > q, -np.inf)
        topics.append([vocabulary.index(w) for w in score.sort_values(ascending=False).index[:TOP]])
    return topics


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--work", type=Path, default=ROOT / "results" / "aeslc-topics")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    args.work.mkdir(parents=True, exist_ok=True)
    counts, vocabulary = table(read_bodies(CORPUS))
    present = counts > 0
    rng = np.random.default_rng(SEED)
    sample = np.sort(rng.choice(counts.shape[0], size=DOCUMENTS, replace=False))
    y = counts[sample]
    docs = [f"mail{i:05}" for i in sample]
    write_counts(args.work / "counts.csv", y, docs, vocabulary)
    (args.work / "rows.csv").write_text("label\n" + "\n".join(docs) + "\n")
    (args.work / "cols.csv").write_text("label\n" + "\n".join(vocabulary) + "\n")
    run([LPPF, "privatize", "--input", args.work / "counts.csv", "--rows", args.work / "rows.csv", "--cols",
         args.work / "cols.csv", "--alpha", ALPHA, "--seed", SEED, "--force", "--output", args.work / "release.csv"])
    release = read_release(args.work / "release.csv", docs, vocabulary)
    fits = {}
    for method, data in (("non-private", "counts.csv"), ("private", "release.csv"), ("naive", "release.csv")):
        out = args.work / f"lppf-{method}"
        if not (out / "fit.toml").exists():
            run([LPPF, "fit", "--input", args.work / data, "--model", "topic", "--components", TOPICS,
                 "--method", method, "--seed", SEED, "--likelihood", LIKELIHOOD, "--quiet", "--force",
                 "--output", out])
        fits[f"lppf {method}: phi of one sample"] = lppf_topics(out, vocabulary)
        fits[f"lppf {method}: posterior groups"] = lppf_groups(out, vocabulary)
    top = lambda m: [list(np.argsort(-row)[:TOP]) for row in m]  # noqa: E731
    nmf = NMF(TOPICS, beta_loss="kullback-leibler", solver="mu", init="nndsvda", max_iter=1000, random_state=SEED)
    nmf.fit(y)
    fits["NMF (KL) on the raw counts"] = top(nmf.components_)
    lda = LatentDirichletAllocation(TOPICS, random_state=SEED)
    lda.fit(y)
    fits["LDA on the raw counts"] = top(lda.components_)
    nmf_release = NMF(TOPICS, beta_loss="kullback-leibler", solver="mu", init="nndsvda", max_iter=1000,
                      random_state=SEED)
    nmf_release.fit(np.maximum(release, 0))
    fits["NMF (KL) on the release, negatives set to 0"] = top(nmf_release.components_)
    with open(args.out / "coherence.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["fit", "topic", "npmi", "words"])
        for name, topics in fits.items():
            for k, words in enumerate(topics):
                writer.writerow([name, k, npmi(words, present), " ".join(vocabulary[j] for j in words)])
    with open(args.out / "table.toml", "w") as f:
        f.write(f"# tools/topics/aeslc_compare.py: the table fitted (seeded; NOT private). The words of\n"
                f"# coherence.csv come from AESLC e-mails (CC BY-NC-SA 4.0, ../shared/data/enron-aeslc/SOURCE.md).\n"
                f"documents = {DOCUMENTS}\nvocabulary = {VOCABULARY}\ncorpus_documents = {counts.shape[0]}\n"
                f"min_tokens = {MIN_TOKENS}\ntopics = {TOPICS}\ntop = {TOP}\nalpha = {ALPHA}\nseed = {SEED}\n"
                f"total_count = {int(y.sum())}\nreleased_total = {int(release.sum())}\n")
    for name, topics in fits.items():
        scores = [npmi(w, present) for w in topics]
        distinct = len({j for w in topics for j in w}) / sum(len(w) for w in topics)
        print(f"{name}: NPMI {np.mean(scores):+.3f} ± {np.std(scores, ddof=1) / np.sqrt(len(scores)):.3f} "
              f"({len(topics)} topics), distinct words {distinct:.2f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
