//! The employee table of the cleaned corpus (`employees.json`: id, name, department, … of the
//! 156 employees; Zhou et al. 2007, Perry & Wolfe 2011), used to give actors readable labels.

use crate::{CountNetwork, EnronError};
use serde::Deserialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One employee: the id the message table uses, the name and the department.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct Employee {
    pub id: u64,
    pub name: String,
    pub department: String,
}

/// Where the employee table is expected: `employees.json` beside the message table
/// ([`crate::table_location`]).
pub fn employees_location() -> PathBuf {
    crate::table_location().with_file_name("employees.json")
}

/// Reads `employees.json` (a JSON array of objects with at least `id`, `name`, `department`;
/// other fields are ignored). Errors name the file and what is wrong; a repeated id is an error.
pub fn read_employees(path: &Path) -> Result<Vec<Employee>, EnronError> {
    let error = |message: String| EnronError { path: path.to_path_buf(), message };
    let text = std::fs::read_to_string(path).map_err(|e| error(format!("cannot read: {e}")))?;
    let employees: Vec<Employee> = serde_json::from_str(&text)
        .map_err(|e| error(format!("not an array of {{id, name, department}} objects: {e}")))?;
    let mut seen = HashMap::new();
    for e in &employees {
        if let Some(other) = seen.insert(e.id, &e.name) {
            return Err(error(format!("employee id {} appears twice ({other} and {})", e.id, e.name)));
        }
    }
    Ok(employees)
}

impl CountNetwork {
    /// The same network with each actor whose label is an employee id relabelled
    /// `Name (Department)`; other labels are kept.
    pub fn with_employee_names(&self, employees: &[Employee]) -> CountNetwork {
        let by_id: HashMap<String, &Employee> = employees.iter().map(|e| (e.id.to_string(), e)).collect();
        let labels = self
            .labels
            .iter()
            .map(|l| by_id.get(l).map_or_else(|| l.clone(), |e| format!("{} ({})", e.name, e.department)))
            .collect();
        CountNetwork { labels, counts: self.counts.clone() }
    }

    /// The non-zero cells as `(sender label, recipient label, count)`, row-major.
    pub fn cells(&self) -> impl Iterator<Item = (&str, &str, u32)> {
        let v = self.actors();
        self.counts
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(move |(n, &c)| (self.labels[n / v].as_str(), self.labels[n % v].as_str(), c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(text: &str, name: &str) -> PathBuf {
        let path = std::env::temp_dir().join(format!("lppf-employees-{}-{name}.json", std::process::id()));
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn relabels_known_ids_and_keeps_the_others() {
        let path = write(
            r#"[{"id": 7, "name": "Ann Bee", "department": "Legal", "title": "VP"},
                {"id": 9, "name": "Cy Dee", "department": "Trading"}]"#,
            "ok",
        );
        let employees = read_employees(&path).unwrap();
        let net = CountNetwork { labels: vec!["7".into(), "8".into()], counts: vec![0, 3, 1, 0] };
        let named = net.with_employee_names(&employees);
        assert_eq!(named.labels, ["Ann Bee (Legal)", "8"]);
        assert_eq!(named.cells().collect::<Vec<_>>(), [("Ann Bee (Legal)", "8", 3), ("8", "Ann Bee (Legal)", 1)]);
    }

    #[test]
    fn bad_tables_are_errors_naming_the_file() {
        for (text, expected) in [
            (r#"[{"id": 1, "name": "A"}]"#, "department"),
            (r#"[{"id": 1, "name": "A", "department": "L"}, {"id": 1, "name": "B", "department": "L"}]"#, "twice"),
            ("not json", "not an array"),
        ] {
            let path = write(text, expected);
            let e = read_employees(&path).unwrap_err();
            assert!(e.to_string().contains(&*path.to_string_lossy()) && e.message.contains(expected), "{e}");
        }
        let e = read_employees(Path::new("/nonexistent/employees.json")).unwrap_err();
        assert!(e.message.contains("cannot read"), "{e}");
    }
}
