//! Semi-synthetic data (§5.1/§5.2): stored base parameters whose rows (and, for topics, columns:
//! `data.rescale`) are re-scaled by `γ ~ Gamma(e₀f₀, rate f₀)`. The base file is checked before any work starts; the re-scaled
//! rates are `γ_i γ_j μ*_ij` (block) or `γ_d μ*_dv` (topic); the `γ` follow their gamma law.

use distributions::Gamma;
use distributions::gof::chi_square_continuous;
use models::{BlockModel, GammaPrior, PoissonFactorization};
use pipeline::{BaseParameters, ManifestError, ModelKind, parse, true_data};
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lppf-semi-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A block-model base: 6 actors, 2 communities.
fn block_base() -> BaseParameters {
    BaseParameters {
        model: ModelKind::Block,
        row_labels: (0..6).map(|i| format!("actor{i}")).collect(),
        col_labels: Vec::new(),
        factors: vec![
            (0..6).map(|i| vec![1.0 + i as f64, 0.5 / (1.0 + i as f64)]).collect(),
            vec![vec![2.0, 0.1], vec![0.2, 1.5]],
        ],
        provenance: toml::Table::new(),
    }
}

fn manifest_text(base: &Path, kind: &str, components: usize, e0: &str) -> String {
    format!(
        r#"methods = ["non-private", "naive", "private"]
[experiment]
name = "semi"
seed = 7
[model]
kind = "{kind}"
components = {components}
a0 = 0.1
b0 = 0.1
[data]
source = "semi-synthetic"
base = {base:?}
[noise]
alpha = [0.5]
[sweep]
replications = 2
e0 = {e0}
[sampler]
iterations = 20
burn_in = 10
thin = 5
"#,
        base = base.display().to_string()
    )
}

fn write_base(dir: &Path, base: &BaseParameters) -> PathBuf {
    let path = dir.join("base.toml");
    std::fs::write(&path, toml::to_string(base).unwrap()).unwrap();
    path
}

#[test]
fn block_rates_are_the_base_rates_rescaled_by_gamma_i_gamma_j() {
    let dir = scratch("block");
    let base = block_base();
    let path = write_base(&dir, &base);
    let m = parse(&manifest_text(&path, "block", 2, "[0.75, 1.5]"), Path::new("semi.toml")).unwrap();
    assert_eq!((m.rows(), m.cols()), (6, 6));
    assert_eq!(m.datasets().len(), 4);
    assert_eq!(m.cells().len(), 4);
    assert_eq!(m.units().len(), 8);
    let mut reference = BlockModel::new(6, 2, GammaPrior::new(1.0, 1.0).unwrap(), distributions::Streams::new(0));
    let [theta, pi] = &base.factors_flat()[..] else { panic!("a block base has two factors") };
    reference.set_factors(theta, pi).unwrap();
    let mut base_rates = vec![0.0; 36];
    reference.rates_into(&mut base_rates);
    for dataset in m.datasets() {
        let data = true_data(&m, &dataset).unwrap();
        let g = data.row_scales().unwrap();
        assert_eq!(g.len(), 6);
        for i in 0..6 {
            for j in (0..6).filter(|&j| j != i) {
                let expected = g[i] * g[j] * base_rates[i * 6 + j];
                let got = data.rates()[i * 6 + j];
                assert!((got - expected).abs() <= 1e-12 * expected.max(f64::MIN_POSITIVE), "{got} vs {expected}");
            }
        }
    }
    // Different data sets draw different γ.
    let (a, b) = (true_data(&m, &m.datasets()[0]).unwrap(), true_data(&m, &m.datasets()[2]).unwrap());
    assert_ne!(a.row_scales(), b.row_scales());
    let _ = std::fs::remove_dir_all(&dir);
}

/// γ_i ~ Gamma(e₀f₀, rate f₀): chi-square on the probability integral transform, 20 cells,
/// 4,000 rows per e₀, each test at false-alarm rate 1e-3 (seeded, so the outcome is fixed).
#[test]
fn row_scales_follow_gamma_e0_f0_rate_f0() {
    let dir = scratch("gof");
    let rows = 4000;
    let base = BaseParameters {
        model: ModelKind::Topic,
        row_labels: (0..rows).map(|i| format!("doc{i}")).collect(),
        col_labels: Vec::new(),
        factors: vec![vec![vec![1.0]; rows], vec![vec![0.5, 0.5]]],
        provenance: toml::Table::new(),
    };
    let path = write_base(&dir, &base);
    let m = parse(&manifest_text(&path, "topic", 1, "[0.75, 1.5]"), Path::new("semi.toml")).unwrap();
    for dataset in m.datasets().into_iter().filter(|d| d.replication == 0) {
        let e0 = dataset.e0.unwrap();
        let gamma = Gamma::new(e0 * 0.1, 0.1).unwrap();
        let data = true_data(&m, &dataset).unwrap();
        let g = data.row_scales().unwrap();
        let gof = chi_square_continuous(g, |x| gamma.cdf(x), 20);
        assert!(!gof.rejects(1e-3), "e0 = {e0}: {gof:?}");
        let mean = g.iter().sum::<f64>() / rows as f64;
        // sd of the mean: sqrt(e0 / f0 / rows) ≈ 0.14–0.19; 5 sd.
        assert!((mean - e0).abs() < 5.0 * (e0 / 0.1 / rows as f64).sqrt(), "mean γ {mean} vs e0 {e0}");
        // The topic rates are γ_d θ*_d φ*_v (floored at the smallest positive double).
        for (d, &gd) in g.iter().enumerate() {
            let expected = (gd * 1.0).max(f64::MIN_POSITIVE) * 0.5;
            assert!((data.rates()[2 * d] - expected).abs() <= 1e-12 * expected);
        }
    }
    // A wrong law is rejected by the same test: Gamma(e₀f₀, rate 2f₀) (mean e₀/2).
    let dataset = m.datasets()[0];
    let wrong = Gamma::new(dataset.e0.unwrap() * 0.1, 0.2).unwrap();
    let data = true_data(&m, &dataset).unwrap();
    assert!(chi_square_continuous(data.row_scales().unwrap(), |x| wrong.cdf(x), 20).rejects(1e-3));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_base_files_fail_before_any_work() {
    let dir = scratch("bad");
    let field_of = |text: &str| match parse(text, Path::new("semi.toml")) {
        Err(ManifestError::Invalid { field, allowed, .. }) => (field, allowed),
        other => panic!("expected an invalid field, got {other:?}"),
    };
    // Missing file.
    let (field, allowed) = field_of(&manifest_text(&dir.join("none.toml"), "block", 2, "[1.0]"));
    assert_eq!(field, "data.base");
    assert!(allowed.contains("none.toml"), "{allowed}");
    // Wrong model kind, wrong component count, e0 <= 0, f0 <= 0, rows that disagree.
    let path = write_base(&dir, &block_base());
    assert_eq!(field_of(&manifest_text(&path, "topic", 2, "[1.0]")).0, "data.base");
    assert_eq!(field_of(&manifest_text(&path, "block", 3, "[1.0]")).0, "model.components");
    assert_eq!(field_of(&manifest_text(&path, "block", 2, "[1.0, 0.0]")).0, "sweep.e0");
    assert_eq!(field_of(&manifest_text(&path, "block", 2, "[]")).0, "sweep.e0");
    let f0 = manifest_text(&path, "block", 2, "[1.0]")
        .replace("source = \"semi-synthetic\"", "source = \"semi-synthetic\"\nf0 = 0.0");
    assert_eq!(field_of(&f0).0, "data.f0");
    let rows = manifest_text(&path, "block", 2, "[1.0]")
        .replace("source = \"semi-synthetic\"", "source = \"semi-synthetic\"\nrows = 7");
    assert_eq!(field_of(&rows).0, "data.rows");
    let range = manifest_text(&path, "block", 2, "[1.0]")
        .replace("source = \"semi-synthetic\"", "source = \"semi-synthetic\"\nmean_count_range = [1.0, 2.0]");
    assert_eq!(field_of(&range).0, "data.mean_count_range");
    // Inconsistent base files: each names what is wrong.
    type Breakage = fn(&mut BaseParameters);
    let cases: [(Breakage, &str); 4] = [
        (|b| b.factors[0][2].push(1.0), "`theta` row 2"),
        (|b| b.factors[0][1][0] = -1.0, "> 0"),
        (|b| b.factors[1].pop().map(drop).unwrap_or(()), "`pi` has 1 rows; expected 2"),
        (|b| b.row_labels.pop().map(drop).unwrap_or(()), "row_labels"),
    ];
    let rejected = |path: &Path, message: &str| {
        let (field, allowed) = field_of(&manifest_text(path, "block", 2, "[1.0]"));
        assert_eq!(field, "data.base");
        assert!(allowed.contains(message), "{allowed} should mention {message}");
    };
    for (break_it, message) in cases {
        let mut base = block_base();
        break_it(&mut base);
        rejected(&write_base(&dir, &base), message);
    }
    // A factor missing, or one of another model: the file names the factors a block base holds.
    let text = toml::to_string(&block_base()).unwrap();
    let (no_pi, with_phi) = (dir.join("no-pi.toml"), dir.join("with-phi.toml"));
    std::fs::write(&no_pi, text.lines().filter(|l| !l.starts_with("pi ")).collect::<Vec<_>>().join("\n")).unwrap();
    std::fs::write(&with_phi, format!("phi = [[1.0]]\n{text}")).unwrap();
    rejected(&no_pi, "missing `pi`: a block base file holds theta, pi");
    rejected(&with_phi, "unknown field `phi`");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A topic base: 5 documents, 2 topics, 4 words, every rate distinct.
fn topic_base() -> BaseParameters {
    BaseParameters {
        model: ModelKind::Topic,
        row_labels: (0..5).map(|d| format!("doc{d}")).collect(),
        col_labels: (0..4).map(|v| format!("word{v}")).collect(),
        factors: vec![
            (0..5).map(|d| vec![1.0 + d as f64, 2.0 / (1.0 + d as f64)]).collect(),
            vec![vec![0.4, 0.3, 0.2, 0.1], vec![0.05, 0.15, 0.3, 0.5]],
        ],
        provenance: toml::Table::new(),
    }
}

fn with_rescale(text: &str, axes: &str) -> String {
    text.replace("source = \"semi-synthetic\"", &format!("source = \"semi-synthetic\"\nrescale = {axes}"))
}

/// `rescale = ["cols"]`: μ_dv = γ_v μ*_dv (one γ per word, none per document); with both axes,
/// γ_d γ_v μ*_dv, and the row draws are those of the rows-only design (their stream is shared).
#[test]
fn topic_columns_are_rescaled_by_gamma_v_alone_or_with_the_rows() {
    let dir = scratch("cols");
    let path = write_base(&dir, &topic_base());
    let text = manifest_text(&path, "topic", 2, "[1.0]");
    let rates_of = |axes: Option<&str>| {
        let text = axes.map_or_else(|| text.clone(), |a| with_rescale(&text, a));
        let m = parse(&text, Path::new("semi.toml")).unwrap();
        let data = true_data(&m, &m.datasets()[0]).unwrap();
        (data.rates().to_vec(), data.row_scales().map(<[f64]>::to_vec))
    };
    let base = topic_base();
    let [theta, phi] = &base.factors_flat()[..] else { panic!("a topic base has two factors") };
    let base_rate = |d: usize, v: usize| (0..2).map(|k| theta[d * 2 + k] * phi[k * 4 + v]).sum::<f64>();
    let (rows_only, g_rows) = rates_of(None);
    let (cols_only, none) = rates_of(Some(r#"["cols"]"#));
    let (both, g_both) = rates_of(Some(r#"["rows", "cols"]"#));
    assert!(none.is_none(), "no row scales when only the columns are re-scaled");
    assert_eq!(g_rows, g_both, "the row draws do not depend on the column axis");
    let g_rows = g_rows.unwrap();
    // Each word draws its own γ_v (none of them 1: the columns really are re-scaled).
    let gamma: Vec<f64> = (0..4).map(|v| cols_only[v] / base_rate(0, v)).collect();
    assert!(gamma.iter().all(|g| (g - 1.0).abs() > 1e-6), "{gamma:?}");
    assert!((1..4).all(|v| gamma[v] != gamma[v - 1]), "{gamma:?}");
    for v in 0..4 {
        // cols only: the ratio to the base rate is one γ_v for every document.
        let gamma_v = cols_only[v] / base_rate(0, v);
        for d in 0..5 {
            let close = |got: f64, expected: f64| (got - expected).abs() <= 1e-12 * expected;
            assert!(close(cols_only[d * 4 + v], gamma_v * base_rate(d, v)), "cols only, ({d}, {v})");
            assert!(close(rows_only[d * 4 + v], g_rows[d] * base_rate(d, v)), "rows only, ({d}, {v})");
            assert!(close(both[d * 4 + v], g_rows[d] * gamma_v * base_rate(d, v)), "both, ({d}, {v})");
        }
    }
    // Every value a user can get wrong is refused: not semi-synthetic, the columns of a network,
    // an empty or repeated list.
    let block = write_base(&dir, &block_base());
    let field = |text: &str| match parse(text, Path::new("semi.toml")) {
        Err(ManifestError::Invalid { field, allowed, .. }) => format!("{field}: {allowed}"),
        other => panic!("expected an invalid field, got {other:?}"),
    };
    let network = with_rescale(&manifest_text(&block, "block", 2, "[1.0]"), r#"["cols"]"#);
    assert!(field(&network).contains("a block model's columns are its rows"), "{}", field(&network));
    for axes in [r#"["cols", "cols"]"#, r#"["rows", "cols", "rows"]"#] {
        assert!(field(&with_rescale(&text, axes)).starts_with("data.rescale"), "{axes}");
    }
    // No axis: an e₀ (or f₀) would mean nothing, so it is refused.
    assert!(field(&with_rescale(&text, "[]")).starts_with("sweep.e0: absent with data.rescale = []"));
    let prior = r#"methods = ["naive"]
[experiment]
name = "p"
seed = 1
[model]
kind = "topic"
components = 2
a0 = 1.0
b0 = 1.0
[data]
source = "prior"
rows = 4
cols = 3
rescale = ["rows"]
[noise]
alpha = [0.5]
[sweep]
replications = 1
[sampler]
iterations = 4
burn_in = 2
thin = 1
"#;
    assert!(field(prior).starts_with("data.rescale"), "{}", field(prior));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `rescale = []`: the base parameters are the truth as they are (Fig. 1's written-out design):
/// the rates are the base rates exactly, no e₀ is attached, each replication draws its own counts.
#[test]
fn without_rescaling_the_truth_is_the_base_itself() {
    let dir = scratch("none");
    let path = write_base(&dir, &topic_base());
    let text = with_rescale(&manifest_text(&path, "topic", 2, "[1.0]"), "[]").replace("e0 = [1.0]\n", "");
    let m = parse(&text, Path::new("semi.toml")).unwrap();
    let base = topic_base();
    let [theta, phi] = &base.factors_flat()[..] else { panic!("a topic base has two factors") };
    let datasets = m.datasets();
    assert_eq!(datasets.len(), 2);
    let mut counts = Vec::new();
    for dataset in &datasets {
        assert_eq!(dataset.e0, None, "no e0 without re-scaling");
        let data = true_data(&m, dataset).unwrap();
        assert!(data.row_scales().is_none());
        for d in 0..5 {
            for v in 0..4 {
                let expected = (0..2).map(|k| theta[d * 2 + k] * phi[k * 4 + v]).sum::<f64>();
                assert_eq!(data.rates()[d * 4 + v], expected, "({d}, {v})");
            }
        }
        counts.push(data.counts().to_vec());
    }
    assert_ne!(counts[0], counts[1], "each replication draws its own counts");
    let with_f0 = text.replace("rescale = []", "rescale = []\nf0 = 0.5");
    match parse(&with_f0, Path::new("semi.toml")) {
        Err(ManifestError::Invalid { field, .. }) => assert_eq!(field, "data.f0"),
        other => panic!("expected data.f0 refused, got {other:?}"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A tensor base (4 rows × 3 columns × 2 times, 2 components): the manifest's grid is 4 × 6, the
/// rates are `γ_i Σ_k θ*_ik φ*_jk ψ*_tk` at column `j·T + t`, and a run of its three methods writes
/// every unit; the tensor's sweeps take the Poisson likelihood only, and CAVI.
#[test]
fn tensor_rates_are_the_base_rates_rescaled_by_gamma_i() {
    let dir = scratch("tensor");
    let base = BaseParameters {
        model: ModelKind::Tensor,
        row_labels: (0..4).map(|i| format!("r{i}")).collect(),
        col_labels: (0..3).map(|j| format!("c{j}")).collect(),
        factors: vec![
            (0..4).map(|i| vec![1.0 + i as f64, 0.5]).collect(),
            (0..3).map(|j| vec![0.5 + j as f64, 2.0]).collect(),
            vec![vec![3.0, 0.1], vec![0.2, 4.0]],
        ],
        provenance: toml::Table::new(),
    };
    let path = write_base(&dir, &base);
    let text = manifest_text(&path, "tensor", 2, "[1.0]");
    let m = parse(&text, Path::new("semi.toml")).unwrap();
    assert_eq!((m.rows(), m.cols(), m.modes()), (4, 6, (4, 3, 2)));
    let [theta, phi, psi] = &base.factors_flat()[..] else { panic!("a tensor base has three factors") };
    for dataset in m.datasets() {
        let data = true_data(&m, &dataset).unwrap();
        let g = data.row_scales().unwrap();
        for (n, &got) in data.rates().iter().enumerate() {
            let (i, j, t) = (n / 6, n % 6 / 2, n % 2);
            let expected: f64 = (0..2).map(|k| g[i] * theta[i * 2 + k] * phi[j * 2 + k] * psi[t * 2 + k]).sum();
            assert!((got - expected).abs() <= 1e-12 * expected, "cell {n}: {got} vs {expected}");
        }
    }
    let mut run = parse(&text, Path::new("semi.toml")).unwrap();
    run.experiment.output = Some(dir.join("out"));
    let rows = pipeline::run_sweep(&run, Default::default(), &()).unwrap();
    // Two data sets: the non-private reference and the naïve and private fits at one level each.
    assert_eq!(rows.len(), 6);
    let summary = results::summarize(&pipeline::result_rows(&run, &rows));
    assert!(summary.iter().all(|s| s.mean_kl.is_finite() && s.mean_kl >= 0.0), "{summary:?}");
    let overdispersed = text.replace("b0 = 0.1\n", "b0 = 0.1\nlikelihood = \"negative-binomial\"\ndispersion = 2.0\n");
    let e = parse(&overdispersed, Path::new("semi.toml")).unwrap_err().to_string();
    assert!(e.contains("model.likelihood") && e.contains("Poisson likelihood only"), "{e}");
    let cavi = text
        .replace("methods = [\"non-private\", \"naive\", \"private\"]", "methods = [\"private\", \"private-cavi\"]");
    if let Err(e) = parse(&cavi, Path::new("semi.toml")) {
        panic!("the tensor has CAVI: {e}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
