//! `lppf prepare-enron-network`: the committed example input data/enron/network-counts.csv is a
//! well-formed count table of the paper's 117 actors, and the corpus reproduces it byte for byte.

use crate::common::{lppf, s, scratch};
use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn committed() -> PathBuf {
    workspace().join("data/enron/network-counts.csv")
}

/// Read back as a network: 117 actors named `Name (Department)`, 2,143 non-zero cells, 36,312
/// e-mails (the totals `prepare-enron-network` printed when the file was made), no self-loops.
#[test]
fn the_committed_example_is_a_well_formed_network() {
    let table = tables::read_counts(&committed(), true, &tables::GridLabels::default()).unwrap();
    assert_eq!(table.rows.len(), 117);
    assert!(
        table
            .rows
            .names
            .iter()
            .all(|n| n.ends_with(" (Legal)") || n.ends_with(" (Trading)") || n.ends_with(" (Other)"))
    );
    assert_eq!(table.counts.iter().filter(|&&c| c > 0).count(), 2143);
    assert_eq!(table.counts.iter().sum::<u64>(), 36_312);
    assert!((0..117).all(|i| table.counts[i * 117 + i] == 0));
}

#[test]
#[ignore = "needs ../shared/data/enron/; run with --include-ignored (CI does)"]
fn the_corpus_reproduces_the_committed_example_byte_for_byte() {
    let dir = scratch("enron-network", "corpus");
    let output = dir.join("network-counts.csv");
    prepare_from_corpus(&["--output", s(&output)]);
    assert_eq!(std::fs::read(&output).unwrap(), std::fs::read(committed()).unwrap());
}

/// Runs `lppf prepare-enron-network` on the corpus's table with `args` (outputs and options) and
/// its employee table; panics with the command's stderr if it fails.
fn prepare_from_corpus(args: &[&str]) {
    let (table, employees) = (enron::table_for_tests(), enron::employees_location());
    let mut all = vec!["prepare-enron-network", s(&table)];
    all.extend_from_slice(args);
    all.extend(["--employees", s(&employees)]);
    let out = lppf(&all);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_missing_input_or_employee_table_is_bad_input() {
    let dir = std::env::temp_dir().join(format!("lppf-enron-network-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let output = dir.join("out.csv");
    let table = dir.join("table.csv");
    std::fs::write(&table, "910930020,1,2,Subject\n").unwrap();
    for (input, employees) in [(dir.join("nope.csv"), dir.join("e.json")), (table.clone(), dir.join("nope.json"))] {
        let out = Command::new(env!("CARGO_BIN_EXE_lppf"))
            .args(["prepare-enron-network", input.to_str().unwrap(), "--output", output.to_str().unwrap()])
            .arg("--employees")
            .arg(&employees)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stderr).contains("nope"));
        assert!(!output.exists());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The network by month (`--by-month`): 117 actors × 44 months from 1998-11 to 2002-06, 9,522
/// non-zero cells, 36,312 e-mails (every e-mail of the network, by its month); the months file
/// lists every month once, in order.
#[test]
fn the_committed_network_by_month_is_well_formed() {
    let counts = workspace().join("data/enron/network-by-month.csv");
    let months = tables::read_labels(&workspace().join("data/enron/months.csv")).unwrap();
    assert_eq!((months.len(), months.names[0].as_str(), months.names[43].as_str()), (44, "1998-11", "2002-06"));
    let format = tables::CountsFormat { time: Some("time".into()), ..tables::CountsFormat::default() };
    let given = tables::GridLabels { times: Some(months), ..tables::GridLabels::default() };
    let table = tables::read_counts_as(&counts, true, &given, &format).unwrap();
    let axes = table.axes.as_ref().unwrap();
    assert_eq!((table.rows.len(), axes.cols.len(), axes.times.len()), (117, 117, 44));
    assert_eq!(table.counts.iter().filter(|&&c| c > 0).count(), 9522);
    assert_eq!(table.counts.iter().sum::<u64>(), 36_312);
    let network = tables::read_counts(&committed(), true, &tables::GridLabels::default()).unwrap();
    assert_eq!(network.rows, table.rows, "the same actors as the network");
}

#[test]
#[ignore = "needs ../shared/data/enron/; run with --include-ignored (CI does)"]
fn the_corpus_reproduces_the_committed_network_by_month_byte_for_byte() {
    let dir = scratch("enron-network", "by-month");
    let (output, months) = (dir.join("by-month.csv"), dir.join("months.csv"));
    prepare_from_corpus(&["--by-month", "--output", s(&output), "--months-output", s(&months)]);
    assert_eq!(
        std::fs::read(&output).unwrap(),
        std::fs::read(workspace().join("data/enron/network-by-month.csv")).unwrap()
    );
    assert_eq!(std::fs::read(&months).unwrap(), std::fs::read(workspace().join("data/enron/months.csv")).unwrap());
}
