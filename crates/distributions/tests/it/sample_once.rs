//! The one-off draws (`sample_once`) of the private Gibbs step's distributions give the same
//! numbers, bit for bit, and the same errors as building the distribution and drawing from it —
//! with the generator left in the same place — on both sides of every internal switch.

use distributions::{Bessel, Binomial, Erlang, ParamError, StreamRng, stream};
use rand::distr::Distribution;
use rand::{Rng, RngExt};

/// Draws five times both ways from the same stream position and compares values, errors and the
/// generator's next word.
fn same<T: PartialEq + std::fmt::Debug, D: Distribution<T>>(
    label: &str,
    built: Result<D, ParamError>,
    once: impl Fn(&mut StreamRng) -> Result<T, ParamError>,
) {
    for seed in 0..5 {
        let (mut a, mut b) = (stream(seed, 1), stream(seed, 1));
        match &built {
            Ok(d) => assert_eq!(d.sample(&mut a), once(&mut b).unwrap(), "{label}, seed {seed}"),
            // By their text: a NaN parameter value is not equal to itself.
            Err(e) => assert_eq!(once(&mut b).unwrap_err().to_string(), e.to_string(), "{label}"),
        }
        assert_eq!(a.next_u64(), b.next_u64(), "{label}: the stream moved differently");
    }
}

#[test]
fn bessel_once_is_bessel() {
    let nus = [0.0, 0.5, 1.0, 3.0, 40.0, 1e4];
    // a = 0, tiny, on both sides of the small-argument switch (a/2)² = ν + 1, large; and invalid.
    for nu in nus {
        let switch = 2.0 * (nu + 1.0f64).sqrt();
        for a in [0.0, 1e-9, 0.3, switch * (1.0 - 1e-15), switch, switch * (1.0 + 1e-15), 2.0 * switch, 1e3, 1e6] {
            same(&format!("Bes({nu}, {a})"), Bessel::new(nu, a), |r| Bessel::sample_once(nu, a, r));
        }
    }
    for (nu, a) in
        [(-1.0, 1.0), (1.0, -1.0), (f64::NAN, 1.0), (1.0, f64::NAN), (2e15, 1.0), (1.0, 2e15), (1.0, f64::INFINITY)]
    {
        same(&format!("Bes({nu}, {a})"), Bessel::new(nu, a), |r| Bessel::sample_once(nu, a, r));
    }
}

/// `sample_once_squared(ν, x)` is `sample_once(ν, 2√x)`: on a grid of `x` across the switch
/// `x = ν + 1` (each side by a few ulps), tiny and subnormal `x`, a seeded random sample of the
/// private step's `(ν, x)`, and invalid values.
#[test]
fn bessel_once_squared_is_bessel_once() {
    let check = |nu: f64, x: f64| {
        let label = format!("Bes({nu}, 2√{x})");
        for seed in 0..20 {
            let (mut a, mut b) = (stream(seed, 2), stream(seed, 2));
            let (expected, found) =
                (Bessel::sample_once(nu, 2.0 * x.sqrt(), &mut a), Bessel::sample_once_squared(nu, x, &mut b));
            assert_eq!(format!("{expected:?}"), format!("{found:?}"), "{label}, seed {seed}");
            assert_eq!(a.next_u64(), b.next_u64(), "{label}: the stream moved differently");
        }
    };
    for nu in [0.0, 1.0, 2.0, 7.0, 63.0, 1e4, 1e15, 1.5e15] {
        let switch = nu + 1.0f64;
        let mut near = vec![switch];
        let (mut up, mut down) = (switch, switch);
        for _ in 0..8 {
            up = up.next_up();
            down = down.next_down();
            near.extend([up, down]);
        }
        for x in near.into_iter().chain([
            0.0,
            5e-324,
            1e-310,
            1e-200,
            1e-9,
            0.3 * switch,
            0.99 * switch,
            1.01 * switch,
            4.0 * switch,
        ]) {
            check(nu, x);
        }
    }
    let mut rng = stream(9, 9);
    for _ in 0..2000 {
        let nu = f64::from(rng.random_range(0..12u32));
        let x = rng.random::<f64>() * 3.0 * (nu + 1.0);
        check(nu, x);
    }
    for (nu, x) in [(-1.0, 1.0), (1.0, -1.0), (f64::NAN, 1.0), (1.0, f64::NAN), (1.0, f64::INFINITY), (2e15, 0.5)] {
        check(nu, x);
    }
}

#[test]
fn binomial_once_is_binomial() {
    for n in [0, 1, 2, 5, 63, 64, 65, 1000] {
        for p in [0.0, 1e-12, 0.2, 0.5, 0.5 + 1e-16, 0.8, 1.0 - 1e-12, 1.0, -0.1, 1.1, f64::NAN] {
            same(&format!("Binom({n}, {p})"), Binomial::new(n, p), |r| Binomial::sample_once(n, p, r));
        }
    }
}

#[test]
fn erlang_once_is_erlang() {
    for shape in [0, 1, 2, 4, 5, 30] {
        for rate in [1e-300, 0.5, 1.0 / 0.3, 1e300, 0.0, -1.0, f64::NAN, f64::INFINITY] {
            same(&format!("Erlang({shape}, {rate})"), Erlang::new(shape, rate), |r| {
                Erlang::sample_once(shape, rate, r)
            });
        }
    }
}
