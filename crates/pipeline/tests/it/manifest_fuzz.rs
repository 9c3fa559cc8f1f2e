//! A seeded manifest fuzz test (issue 20): mutants of the shipped manifests of every kind — a
//! value replaced by a hostile one, a line deleted or repeated — must parse, or fail with an
//! error that names a field; never panic. (The CLI turns a failure here into exit code 2.)

use pipeline::parse_experiment;
use std::path::Path;

/// Hostile values: out of range, not finite, subnormal, huge, of the wrong type, nested.
const VALUES: &[&str] = &[
    "-1",
    "0",
    "1",
    "1e308",
    "5e-324",
    "nan",
    "inf",
    "-0.0",
    "0.9999999999999999",
    "18446744073709551615",
    "9223372036854775807",
    "\"\"",
    "\"x\"",
    "[]",
    "[0.2, 0.2]",
    "[\"x\"]",
    "{ nested = 1 }",
    "true",
    "1979-05-27",
];

/// xorshift64*: a fixed, dependency-free stream for the mutations.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }
}

/// One mutant of `text`: a `key = value` line's value replaced, or a line deleted or repeated.
fn mutate(text: &str, rng: &mut Rng) -> (String, String) {
    let lines: Vec<&str> = text.lines().collect();
    let candidates: Vec<usize> =
        (0..lines.len()).filter(|&i| lines[i].contains('=') && !lines[i].trim_start().starts_with('#')).collect();
    let i = candidates[rng.below(candidates.len())];
    let key = lines[i].split('=').next().unwrap_or("").trim().to_string();
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    match rng.below(8) {
        0 => {
            out.remove(i);
        }
        1 => out.insert(i, lines[i].to_string()),
        _ => out[i] = format!("{key} = {}", VALUES[rng.below(VALUES.len())]),
    }
    (out.join("\n"), key)
}

#[test]
fn mutated_manifests_parse_or_name_a_field_and_never_panic() {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
    let shipped = ["smoke.toml", "fig4-enron.toml", "fig5-enron-topics.toml", "dpvi-gmm.toml", "dp-sep-mog.toml"];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut refused, mut accepted) = (0, 0);
    for round in 0..400 {
        let name = shipped[round % shipped.len()];
        // data.base is relative to the repository root.
        let text = std::fs::read_to_string(root.join("experiments").join(name))
            .unwrap()
            .replace("base = \"data/", &format!("base = \"{}/data/", root.display()));
        let (mutant, key) = mutate(&text, &mut rng);
        let outcome = std::panic::catch_unwind(|| parse_experiment(&mutant, Path::new(name)).map(|_| ()));
        let result = outcome.unwrap_or_else(|_| panic!("{name}: panicked on a mutant of `{key}`:\n{mutant}"));
        match result {
            Ok(()) => accepted += 1,
            Err(e) => {
                refused += 1;
                let message = e.to_string();
                assert!(
                    message.contains(name) && (message.contains("field `") || message.contains("missing field")),
                    "{name}, mutant of `{key}`: the error names no field: {message}"
                );
            }
        }
    }
    // The mutations must exercise both outcomes.
    assert!(refused > 100 && accepted > 10, "refused {refused}, accepted {accepted}");
}
