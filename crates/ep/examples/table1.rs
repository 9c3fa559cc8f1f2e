//! Table 1 of Vinaroz & Park on one data set (seconds): F-norms of each method against a long
//! Gibbs run. `cargo run --release -p ep --example table1 [seed]`

use distributions::Streams;
use ep::sep::{SepSettings, ep, sep, start};
use ep::{MixtureMeans, dp_em::dp_em, dp_sep_noise, metrics::f_norms};

fn main() {
    let seed: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let s = Streams::new(seed);
    let data = MixtureMeans::generate(1000, 4, 4, 0.5, vec![0.0; 4], &mut s.child(0).rng());
    let model = &data.model;
    let reference = model.gibbs_reference(&data.true_means, 1000, 20_000, &mut s.child(1).rng());
    let q0 = start(model, &mut s.child(2).rng());
    let moments = |q: &[ep::Natural]| q.iter().map(|g| g.moments().expect("positive definite")).collect::<Vec<_>>();
    let epochs = 100;
    let gamma: f64 = std::env::var("GAMMA").ok().and_then(|g| g.parse().ok()).unwrap_or(1000.0);
    let base = SepSettings {
        epochs,
        damping: gamma,
        clip: None,
        noise_multiplier: None,
        pd_floor: std::env::var("FLOOR").ok().and_then(|g| g.parse().ok()).unwrap_or(1e-6),
    };
    let report = |name: &str, est: &[(Vec<f64>, Vec<f64>)]| {
        let (m, c, a) = f_norms(&reference, est);
        println!("{name:<22} {m:>10.4} {c:>10.4} {a:>10.4}");
    };
    let fit = ep(model, &q0, 10, &mut s.child(3).rng());
    report(&format!("EP (skipped {})", fit.skipped), &moments(&fit.q));
    let fit = sep(model, &q0, &base, &mut s.child(4).rng()).unwrap();
    report("SEP", &moments(&fit.q));
    if std::env::var_os("SHOW").is_some() {
        for (m, _) in &reference {
            println!("ref {m:.2?}");
        }
        for (m, c) in moments(&fit.q) {
            println!("sep {m:.2?} diag {:.5} {:.5}", c[0], c[5]);
        }
        for (_, c) in &reference {
            println!("ref cov diag {:.5} {:.5}", c[0], c[5]);
        }
        for (m, _) in moments(&q0) {
            println!("start {m:.2?}");
        }
        println!("skipped {}", fit.skipped);
    }
    for c in [20.0, 10.0, 1.0] {
        let fit = sep(model, &q0, &SepSettings { clip: Some(c), ..base }, &mut s.child(5).rng()).unwrap();
        report(&format!("SEP clipped C={c}"), &moments(&fit.q));
    }
    let start_means: Vec<Vec<f64>> = moments(&q0).into_iter().map(|(m, _)| m).collect();
    for eps in [50.0, 5.0, 1.0] {
        let sigma = dp_sep_noise(eps, 1e-5, 1000, epochs).unwrap();
        let fit = sep(
            model,
            &q0,
            &SepSettings { clip: Some(1.0), noise_multiplier: Some(sigma), ..base },
            &mut s.child(6).rng(),
        )
        .unwrap();
        report(&format!("DP-SEP ε={eps} σ={sigma:.2}"), &moments(&fit.q));
        let em_sigma = accountant::calibrate_noise(
            accountant::Accounting::MomentsAccountant,
            accountant::Neighbouring::AddRemove,
            1.0,
            20,
            eps,
            1e-5,
        )
        .unwrap();
        let fit = dp_em(model, &start_means, 20, 5.0, Some(em_sigma), &mut s.child(7).rng());
        report(&format!("DP-EM ε={eps}"), &fit);
    }
}
