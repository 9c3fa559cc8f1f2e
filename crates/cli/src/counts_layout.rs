//! How a raw counts file is laid out, as the commands that read one (`privatize`, `score`, and
//! `fit` of raw counts) take it: `--delimiter`, `--row-column`, `--col-column`, `--count-column`,
//! and for counts over time `--time-column`.

use tables::CountsFormat;

/// The layout flags of a raw counts file.
#[derive(clap::Args, Clone, Debug)]
pub struct CountsLayout {
    /// The field delimiter of a CSV counts file: one character, or `tab` [default: a tab for .tsv
    /// and .tab files, else a comma].
    #[arg(long, value_parser = tables::parse_delimiter)]
    delimiter: Option<u8>,
    /// The column of the counts file holding the row labels.
    #[arg(long, default_value = "row")]
    row_column: String,
    /// The column of the counts file holding the column labels.
    #[arg(long, default_value = "col")]
    col_column: String,
    /// The column of the counts file holding the counts (3 or 3.0).
    #[arg(long, default_value = "count")]
    count_column: String,
    /// Counts over time (row,col,time,count): the column holding the time labels. Released as
    /// row,col,time,value; fitted with --model tensor (which reads a column `time` by default).
    #[arg(long, value_name = "NAME")]
    time_column: Option<String>,
}

impl CountsLayout {
    /// The format `tables::read_counts_as` reads.
    pub fn format(&self) -> CountsFormat {
        CountsFormat {
            delimiter: self.delimiter,
            columns: [self.row_column.clone(), self.col_column.clone(), self.count_column.clone()],
            time: self.time_column.clone(),
        }
    }
}
