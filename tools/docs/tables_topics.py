"""Generated table of docs/own-data.md, "Topics of documents: what privacy costs": the coherence
of lppf's topics and of scikit-learn's NMF and LDA on Enron e-mails
(docs/evidence/aeslc-topics/, written by tools/topics/aeslc_compare.py)."""

from docstats import mean_sd, minus
from sources import rows, toml


def aeslc_topics():
    """Per fit: the mean NPMI of its topics with its standard error, the share of distinct top
    words, and its most coherent topic's words."""
    table = toml("aeslc-topics/table.toml")
    topics = rows("aeslc-topics", "coherence.csv")
    fits = list(dict.fromkeys(r["fit"] for r in topics))
    lines = [f"{table['documents']} e-mails × {table['vocabulary']} words ({table['total_count']:,} words counted; "
             f"released at α = e⁻¹), K = {table['topics']}, top {table['top']} words per topic; NPMI from the "
             f"{table['corpus_documents']:,} e-mails of the corpus.", "",
             "| fit | NPMI, mean ± se over topics | distinct top words | its most coherent topic |",
             "| --- | --- | --- | --- |"]
    for fit in fits:
        mine = [r for r in topics if r["fit"] == fit]
        scores = [float(r["npmi"]) for r in mine]
        mean, sd = mean_sd(scores)
        words = [w for r in mine for w in r["words"].split()]
        best = max(mine, key=lambda r: float(r["npmi"]))
        lines.append(f"| {fit} | {mean:+.3f} ± {sd / len(scores) ** 0.5:.3f} | {len(set(words)) / len(words):.2f} | "
                     f"{best['words']} |")
    return minus("\n".join(lines))
