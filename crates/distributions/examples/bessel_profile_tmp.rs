use distributions::{Bessel, stream};
use rand::distr::Distribution;
fn main() {
    let mut rng = stream(1, 0);
    let mut s = 0u64;
    for i in 0..2_000_000u64 {
        let a = 100.0 + (i % 7) as f64;
        s += Bessel::new(10.0, a).map_or(0, |d| d.sample(&mut rng));
    }
    println!("{s}");
}
