//! The UCI loaders: malformed rows are counted and skipped; the real files load as SOURCE.md
//! describes them; splits are seeded and standardized with training statistics.

use distributions::Streams;
use dpvi::uci;
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dpvi-uci-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn malformed_abalone_rows_are_counted_and_skipped() {
    let dir = scratch("abalone");
    let path = dir.join("abalone.data");
    let text = "M,0.455,0.365,0.095,0.514,0.2245,0.101,0.15,15\n\
                X,0.1,0.1,0.1,0.1,0.1,0.1,0.1,3\n\
                F,0.5,oops,0.1,0.1,0.1,0.1,0.1,9\n\
                I,0.3,0.2,0.1\n\
                \n\
                F,0.53,0.42,0.135,0.677,0.2565,0.1415,0.21,9\n";
    std::fs::write(&path, text).unwrap();
    let t = uci::abalone(&path).unwrap();
    assert_eq!((t.rows(), t.skipped), (2, 3));
    assert_eq!(t.y, vec![true, false]);
    assert_eq!(&t.x_nd[..4], &[0.0, 0.0, 1.0, 0.455]);
    std::fs::write(&path, "garbage\n").unwrap();
    assert!(uci::abalone(&path).unwrap_err().contains("no parsable"));
    assert!(uci::abalone(&dir.join("missing")).unwrap_err().contains("missing"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn malformed_adult_rows_are_counted_and_skipped() {
    let dir = scratch("adult");
    std::fs::write(
        dir.join("adult.data"),
        "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K\n\
         50, ?, 83311, Bachelors, 13, Married, Exec, Husband, White, Male, 0, 0, 13, United-States, >50K\n\
         bad, row\n\
         38, Private, x, HS-grad, 9, Divorced, Handlers, Not-in-family, White, Male, 0, 0, 40, United-States, <=50K\n\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("adult.test"),
        "|1x3 Cross validator\n25, Private, 226802, 11th, 7, Never-married, Machine, Own-child, Black, Male, 0, 0, 40, United-States, >50K.\n",
    )
    .unwrap();
    let t = uci::adult(&dir).unwrap();
    assert_eq!((t.rows(), t.skipped), (3, 2));
    assert_eq!(t.y, vec![false, true, true]);
    assert!(t.features.contains(&"workclass=?".to_string()));
    // Every row has exactly one category per categorical column.
    for row in t.x_nd.chunks(t.dim()) {
        assert_eq!(row[6..].iter().sum::<f64>(), 8.0);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

fn uci_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/uci"))
}

#[test]
#[ignore = "needs ../shared/data/uci; run with --include-ignored (CI does)"]
fn the_real_files_load_as_source_md_describes_them() {
    let adult = uci::adult(uci_dir()).unwrap();
    assert_eq!((adult.rows(), adult.skipped), (32_561 + 16_281, 0));
    assert_eq!(adult.y.iter().filter(|y| **y).count(), 7_841 + 3_846);
    let abalone = uci::abalone(&uci_dir().join("abalone.data")).unwrap();
    // Rings >= 10 (counted with awk -F, '$9>=10' abalone.data).
    assert_eq!((abalone.rows(), abalone.skipped, abalone.y.iter().filter(|y| **y).count()), (4177, 0, 2081));
    let split = uci::split(&abalone, 0.8, &mut Streams::new(1).rng()).unwrap();
    assert_eq!((split.train_y.len(), split.test_y.len(), split.dim), (3342, 835, 11));
    // Training columns are standardized; the intercept is 1.
    for j in 0..split.dim - 1 {
        let col: Vec<f64> = split.train_x.chunks(split.dim).map(|r| r[j]).collect();
        let mean = col.iter().sum::<f64>() / col.len() as f64;
        let var = col.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / col.len() as f64;
        assert!(mean.abs() < 1e-9 && (var - 1.0).abs() < 1e-9, "column {j}: mean {mean}, var {var}");
    }
    assert!(split.train_x.chunks(split.dim).all(|r| r[split.dim - 1] == 1.0));
    assert_eq!(split, uci::split(&abalone, 0.8, &mut Streams::new(1).rng()).unwrap());
    assert!(uci::split(&abalone, 1.0, &mut Streams::new(1).rng()).is_err());
}
