//! Prints ε for a few published DP-SGD settings and the σ that meets a budget (seconds).
//! `cargo run --release -p accountant --example budgets`

use accountant::{Accounting, Neighbouring, calibrate_noise, epsilon};

fn main() -> Result<(), accountant::AccountantError> {
    let n = Neighbouring::AddRemove;
    for (label, q, sigma, steps) in [
        ("Abadi et al. 2016 (q 0.01, σ 4, T 10^4)", 0.01, 4.0, 10_000u64),
        ("MNIST q 256/60000, σ 1.3, 20 epochs", 256.0 / 60_000.0, 1.3, 4688),
        ("MNIST q 256/60000, σ 0.7, 70 epochs", 256.0 / 60_000.0, 0.7, 16_407),
    ] {
        let ma = epsilon(Accounting::MomentsAccountant, n, q, sigma, steps, 1e-5)?;
        let ac = epsilon(Accounting::AdvancedComposition, n, q, sigma, steps, 1e-5)?;
        println!("{label}: moments accountant ε = {ma:.4}, advanced composition ε = {ac:.4}");
    }
    for eps in [0.5, 1.0, 2.0, 4.0] {
        let ma = calibrate_noise(Accounting::MomentsAccountant, n, 0.04, 1000, eps, 1e-3 / 3342.0)?;
        let ac = calibrate_noise(Accounting::AdvancedComposition, n, 0.04, 1000, eps, 1e-3 / 3342.0)?;
        println!("Abalone DPVI (q 0.04, T 1000) at ε = {eps}: σ = {ma:.3} (moments), {ac:.3} (advanced)");
    }
    Ok(())
}
