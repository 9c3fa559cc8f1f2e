# Locally private Bayesian inference on count data — task runner.
# `just --list` shows the recipes.

# The paper's schedule: 3 e0 × 9 alpha × 5 replications × 3 methods, 15,000 iterations, 4 chains
# per fit; resumes if interrupted. Leaves results/fig4-enron/{results.parquet, summary.csv,
# figure.png}.
#
# The headline: Fig. 4 of Schein et al. (2019) on the Enron structure (about 2 hours on 2 cores:
# 6x the quick run's 18-33 min, by machine; BENCHMARKS.md, docs/fig4.md).
reproduce-fig4:
    cargo run --release -p lppf-cli -- run experiments/fig4-enron.toml

# The same design with 2,500 iterations and 4 chains per fit (about 20 minutes on 2 cores, 33 on
# a slower VM; the deviation is printed).
reproduce-fig4-quick:
    cargo run --release -p lppf-cli -- run experiments/fig4-enron-quick.toml

# The contested Fig. 4 cells (e0 = 1.5, alpha 0.4 and 0.7) at the paper's schedule with 4 chains
# per fit, on fresh data sets (docs/fig4.md; about 16 minutes on 2 cores).
fig4-contested:
    cargo run --release -p lppf-cli -- run experiments/fig4-enron-contested.toml

# Simulation-based calibration of the non-private, naive and private posteriors: the topic model,
# the block model and its undirected form (docs/calibration.md; about 3 minutes on 2 cores).
calibration:
    cargo run --release -p lppf-cli -- run experiments/calibration.toml
    cargo run --release -p lppf-cli -- run experiments/calibration-block.toml
    cargo run --release -p lppf-cli -- run experiments/calibration-undirected.toml

# Tables with known communities or topics and four kinds of noise, released and fitted by each
# candidate model; about 2 hours on 2 cores (the release binary, the Python of `just test`).
# The planted-design study behind docs/model-checking.md, "Planted designs".
planted-designs:
    cargo build --release -p lppf-cli
    target/ci-python/bin/python tools/planted/study.py --out results/planted-designs --replications 3
    target/ci-python/bin/python tools/planted/study.py --out results/planted-designs-enron-size --replications 1 \
        --shapes network-large --noises cell-nb --alphas 0.5 --candidates papers negative-binomial no-warm-up nb-r1 contaminated

# The "no structure" verdict on networks with none and with planted communities (false-positive
# rate and power; docs/model-checking.md, "How often the verdict is right"); resumable, about
# 5 s per data set on 2 cores (100 per design: about 2.5 hours).
verdict-error-rates:
    cargo build --release -p lppf-cli
    target/ci-python/bin/python tools/planted/verdict.py --out docs/evidence/verdict-error-rates \
        --replications 100 --strengths null strong
    target/ci-python/bin/python tools/planted/verdict.py --out docs/evidence/verdict-error-rates \
        --replications 40 --strengths weak

# Topics of Enron e-mails (AESLC): lppf (non-private, private, naive) against scikit-learn's NMF
# and LDA, scored by coherence on the raw counts (needs scikit-learn; about 15 minutes).
aeslc-topics:
    cargo build --release -p lppf-cli
    target/ci-python/bin/python tools/topics/aeslc_compare.py --out docs/evidence/aeslc-topics

# Wall time of default fits against the papers' model on four shapes of data, interleaved
# (BENCHMARKS.md; run on an idle machine; about 5 minutes).
fit-cost:
    cargo build --release -p lppf-cli
    target/ci-python/bin/python tools/planted/cost.py --out docs/evidence/fit-cost --repeats 3

# Copy the small results of the runs the docs quote into docs/evidence/ (committed) and regenerate
# the docs' numbers from them (tools/docs/generate.py); CI checks that the pages agree (issue 36).
docs:
    for run in calibration calibration-4chains calibration-block calibration-undirected fig4-enron-quick-10 fig4-enron-quick-10-collapsed \
               schofield-small-20 fig3-synthetic-10 fig1-topics-20 dp-sep-mog-20 dpvi-abalone dpvi-adult \
               dpvi-abalone-q dpvi-abalone-clip dpvi-adult-q dpvi-adult-clip dpvi-gmm own-data-enron-10 \
               calibration-block-fig4-size calibration-block-fig4-size-augmented calibration-block-fig4-size-4chains \
               calibration-block-fig4-size-replicas \
               fig5-enron-topics-10 fig5-enron-topics-e50 fig4-enron-start-prior fig4-enron-start-cavi tensor-enron; do \
        mkdir -p docs/evidence/$run && \
        cp results/$run/manifest.toml results/$run/provenance.toml results/$run/results.parquet \
           results/$run/summary.csv docs/evidence/$run/ && \
        if [ -f results/$run/sbc.csv ]; then \
            cp results/$run/sbc.csv docs/evidence/$run/ && cp results/$run/sbc.png docs/figures/sbc-$run.png; \
        fi; \
    done
    # SBC of lppf fit's default (docs/calibration.md): figures named by the model.
    for m in topic block undirected; do \
        run=calibration-contaminated-$m && mkdir -p docs/evidence/$run && \
        cp results/$run/manifest.toml results/$run/provenance.toml results/$run/results.parquet \
           results/$run/summary.csv results/$run/sbc.csv docs/evidence/$run/ && \
        cp results/$run/sbc.png docs/figures/sbc-contaminated-$m.png; \
    done
    # Per-fit and all-pairs tables, where a page's generated block needs them.
    for run in schofield-small-20 fig3-synthetic-10 fig1-topics-20 calibration calibration-4chains \
               calibration-block-fig4-size calibration-block-fig4-size-augmented calibration-block-fig4-size-4chains \
               calibration-block-fig4-size-replicas \
               fig5-enron-topics-10 fig5-enron-topics-e50 fig4-enron-start-prior fig4-enron-start-cavi tensor-enron; do \
        cargo run -q -p results --example evidence_tables -- results/$run/results.parquet docs/evidence/$run; \
    done
    cargo run -q -p results --example evidence_tables -- results/fig4-enron-quick-10-collapsed/results.parquet \
        docs/evidence/fig4-enron-quick-10-collapsed results/fig4-enron-quick-10/results.parquet
    # The DPVI and DP-SEP tables (pandas, pyarrow and scipy: python/requirements-ci.txt).
    python3 tools/reference/dp_sep_paired.py docs/evidence/dp-sep-mog-20
    python3 tools/reference/dpvi_paired.py docs/evidence/dpvi-*
    python3 tools/reference/held_out_fits.py docs/evidence/own-data-enron-10
    # The two fits of docs/own-data.md, section 3 (`lppf fit … --output results/own-data/M`), and the
    # papers'-model fits of docs/history/own-data.md with their scores against the raw counts.
    # With them, its three exploratory checks (papers-private-{8000,eps5,model}).
    bash tools/own-data-evidence.sh results/own-data docs/evidence/own-data-fit
    cp results/own-data/papers-private/figure.png docs/figures/own-data-private.png
    cp results/own-data/private/figure.png docs/figures/own-data-default-private.png
    # The worked example of docs/counts-over-time.md (tools/over-time/enron-by-month.sh).
    bash tools/over-time/evidence.sh results/counts-over-time docs/evidence/counts-over-time
    cp results/counts-over-time/private/figure.png docs/figures/counts-over-time-private.png
    python3 tools/docs/generate.py

# Rebuild data/enron/base.toml from the corpus: the cleaned table (default) or a maildir tree.
prepare-enron INPUT="../shared/data/enron/Enron.csv":
    cargo run --release -p lppf-cli -- prepare-enron {{INPUT}}

# Rebuild data/enron/topics-base.toml (the Fig. 5 base; CC BY-NC-SA 4.0) from the AESLC e-mail bodies (about 30 s).
prepare-enron-topics INPUT="../shared/data/enron-aeslc/enron_subject_line":
    cargo run --release -p lppf-cli -- prepare-enron-topics {{INPUT}}

# A tour of the privacy noise and the Bessel recovery step (about a minute the first time: an example builds its crate's test dependencies; seconds after).
demo:
    cargo run --release -p distributions --example privacy_noise_tour

# Run an experiment manifest (resumes if interrupted; add --force to recompute).
run MANIFEST *FLAGS:
    cargo run --release -p lppf-cli -- run {{MANIFEST}} {{FLAGS}}

# Check a manifest without running it.
validate MANIFEST:
    cargo run --release -p lppf-cli -- validate {{MANIFEST}}

# The tiny smoke sweep (seconds).
smoke:
    cargo run --release -p lppf-cli -- run experiments/smoke.toml --force

# The Fig. 3 design (synthetic 20-actor network, 10 data sets, 4 chains per fit; about a minute):
# results/fig3-synthetic-10/figure.png (KL curves and paired differences) and
# docs/figures/fig3-synthetic.png (the paper's figure: privatized data, naive and private rates
# beside the truth, replication 0). experiments/fig3-synthetic.toml is the 5-data-set original.
fig3:
    cargo run --release -p lppf-cli -- run experiments/fig3-synthetic-10.toml
    cargo run --release -p lppf-cli -- recovery experiments/fig3-synthetic-10.toml --output docs/figures/fig3-synthetic.png

# Fig. 1 (synthetic topics, per-document noise; 20 data sets, 4 chains per fit, about 3 minutes):
# results/fig1-topics-20/ and docs/figures/fig1-topics.png (true data and topics, then per noise
# level the privatized data and the naive and private topics, replication 0).
# experiments/fig1-topics.toml is the 5-data-set original.
fig1:
    cargo run --release -p lppf-cli -- run experiments/fig1-topics-20.toml
    cargo run --release -p lppf-cli -- recovery experiments/fig1-topics-20.toml --output docs/figures/fig1-topics.png

# Fig. 5 on real Enron e-mail bodies, reduced design and schedule (about an hour on 2 cores; the
# deviations are printed): results/fig5-enron-topics/. docs/fig5.md has the results.
reproduce-fig5:
    cargo run --release -p lppf-cli -- run experiments/fig5-enron-topics.toml

# Fig. 5, one e0, three noise levels, two replications, short chains (about 5 minutes on 2 cores).
reproduce-fig5-quick:
    cargo run --release -p lppf-cli -- run experiments/fig5-enron-topics-quick.toml

# Reprint the summary of a results directory (and rewrite its summary.csv).
summarize DIR:
    cargo run --release -p lppf-cli -- summarize {{DIR}}

# Redraw figure.svg and figure.png of a results directory (add --log-y for a log KL axis).
plot DIR *FLAGS:
    cargo run --release -p lppf-cli -- plot {{DIR}} {{FLAGS}}

# Every test, including those on the real data in ../shared/data (as CI runs them).
test:
    cargo test --workspace --exclude benches -- --include-ignored

# The Python package as a wheel (abi3: one file for CPython 3.9 and later), built in the release
# profile into target/wheels/; `pip install target/wheels/lppf-*.whl` then needs no compiler. It
# installs on Linux machines whose glibc is at least as new as this one's (the wheel's tag says).
wheel:
    cd python && maturin build --release

# The same wheel for manylinux2014 (glibc 2.17 and later: the RHEL/CentOS 7-9 of most clusters),
# linked with zig, checked and tried in a fresh environment (tools/wheel-manylinux.sh; needs PyPI).
wheel-manylinux:
    bash tools/wheel-manylinux.sh

# The full CI script (tests, clippy -D warnings, rustfmt --check).
ci:
    bash .ci/run

# Criterion benchmarks of the samplers (figures go in BENCHMARKS.md).
bench:
    cargo bench -p benches --bench samplers

# Criterion benchmarks of full Gibbs sweeps, 1 and 2 threads (figures go in BENCHMARKS.md).
bench-gibbs:
    cargo bench -p benches --bench gibbs

# How a topic sweep's cost grows with entries, K and the noise level, 1 thread (about 5 min;
# BENCHMARKS.md "Cost model").
bench-scaling:
    cargo bench -p benches --bench scaling

# Criterion benchmark of one CAVI iteration on the 1000x1000 K=50 problem (BENCHMARKS.md).
bench-cavi:
    cargo bench -p benches --bench cavi

# The MCMC-vs-VI speed study of Schofield et al. (about 2 min; docs/vi-vs-mcmc.md).
schofield-speed:
    cargo run --release -p lppf-cli -- run experiments/schofield-speed.toml

# Leaves results/schofield-small-20/{results.parquet, topics.png}.
#
# The small demonstration of Schofield et al. (20 data sets, 4 chains per Gibbs fit; the
# 5-data-set original is experiments/schofield-small.toml) and its figure of true vs recovered
# topics (about half a minute).
schofield-small:
    cargo run --release -p lppf-cli -- run experiments/schofield-small-20.toml
    cargo run --release -p lppf-cli -- topics experiments/schofield-small-20.toml

# The DPVI experiments of Jälkö et al. 2017 (Figs. 1–4; about 3 minutes): results/dpvi-*/.
dpvi:
    cargo run --release -p lppf-cli -- run experiments/dpvi-abalone.toml
    cargo run --release -p lppf-cli -- run experiments/dpvi-adult.toml
    cargo run --release -p lppf-cli -- run experiments/dpvi-abalone-q.toml
    cargo run --release -p lppf-cli -- run experiments/dpvi-abalone-clip.toml
    cargo run --release -p lppf-cli -- run experiments/dpvi-adult-q.toml
    cargo run --release -p lppf-cli -- run experiments/dpvi-adult-clip.toml
    cargo run --release -p lppf-cli -- run experiments/dpvi-gmm.toml

# Table 1 and Fig. 1 of Vinaroz & Park (DP-SEP; 20 replications, about 4 minutes):
# results/dp-sep-mog-20/ and docs/figures/dp-sep-mog.png (replication 0). experiments/dp-sep-mog.toml
# is the 10-replication original.
dp-sep:
    cargo run --release -p lppf-cli -- run experiments/dp-sep-mog-20.toml
    cp results/dp-sep-mog-20/figure.png docs/figures/dp-sep-mog.png

# Privacy budgets of published DP-SGD settings and calibrated σ (seconds; see also lppf epsilon).
budgets:
    cargo run --release -p accountant --example budgets

# Regenerate the 50-digit Bessel reference table and the Debye coefficients (needs python3 + mpmath).
reference:
    python3 tools/reference/make_bessel_reference.py

# Leaves results/own-data/{released*.csv, model-counts.csv, private/, naive/, non-private/, papers-*/} and results/own-data-enron-10/.
#
# The worked example of docs/own-data.md (about 17 minutes on 2 cores, most of it the held-out run of 10 masks): privatize the Enron network (seeded: a demonstration, NOT private), choose K by held-out score, fit privately and naively at K = 8, and the non-private reference on the raw counts.
own-data-demo:
    bash tools/own-data-demo.sh

# The worked example of docs/counts-over-time.md (about 25 minutes on 2 cores): the Enron network by month, privatized (seeded: a demonstration, NOT private), K by held-out score, private and naive tensor fits scored against the raw counts, and the base of the tensor sweep (data/enron/tensor-base.toml).
counts-over-time:
    bash tools/over-time/enron-by-month.sh

# The tensor sweep of docs/counts-over-time.md, section 4 (about 26 minutes on 2 cores).
reproduce-tensor-enron:
    cargo run --release -p lppf-cli -- run experiments/tensor-enron.toml
