//! `lppf completions SHELL` and `lppf man`: shell completions and manual pages generated from the
//! command's own definitions (`clap_complete`, `clap_mangen`), so they list every command and
//! option as `--help` does.

use crate::{Failure, failed};
use clap::CommandFactory;
use clap_complete::Shell;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The options of `lppf man`.
#[derive(clap::Args)]
pub struct ManArgs {
    /// Write lppf.1 and one page per command (lppf-fit.1, …) into this directory (created if
    /// missing), e.g. ~/.local/share/man/man1; without it, print lppf.1 to standard output.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// Writes `text` to standard output. A reader that stops early (`lppf man | head`) closes the
/// pipe: that ends the output quietly, not as an error.
fn print(text: &[u8], what: &str) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(failed(format!("cannot write the {what}: {e}"))),
        _ => Ok(()),
    }
}

/// Prints the completion script of `shell` for `lppf` to standard output.
pub fn completions(shell: Shell) -> Result<(), Failure> {
    // Into memory first: clap_complete panics when it cannot write (a closed pipe).
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut crate::Cli::command(), "lppf", &mut script);
    print(&script, "completion script")
}

/// Prints the manual page of `lppf`, or writes it and every command's into `--dir`.
pub fn man(args: &ManArgs) -> Result<(), Failure> {
    let command = crate::Cli::command();
    match &args.dir {
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(command)
                .render(&mut page)
                .map_err(|e| failed(format!("cannot write the manual page: {e}")))?;
            print(&page, "manual page")
        }
        Some(dir) => {
            // As clap_mangen::generate_to names and renders them, but each page written atomically
            // (generate_to creates the files in place, through any link planted at their names).
            let mut command = command.disable_help_subcommand(true);
            command.build();
            let pages = write_pages(command, dir)?;
            eprintln!("wrote the {pages} manual pages of lppf and its commands to {}", dir.display());
            Ok(())
        }
    }
}

/// Writes the manual page of `command` and of each of its visible subcommands into `dir`
/// (`lppf.1`, `lppf-fit.1`, …); how many.
fn write_pages(command: clap::Command, dir: &Path) -> Result<usize, Failure> {
    let mut pages = 0;
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()).cloned() {
        pages += write_pages(sub, dir)?;
    }
    let man = clap_mangen::Man::new(command);
    let mut page = Vec::new();
    man.render(&mut page).map_err(|e| failed(format!("cannot write the manual page: {e}")))?;
    results::write_atomic(&dir.join(man.get_filename()), &page).map_err(failed)?;
    Ok(pages + 1)
}
