//! `lppf completions SHELL` and `lppf man`: shell completions and manual pages generated from the
//! command's own definitions (`clap_complete`, `clap_mangen`), so they list every command and
//! option as `--help` does.

use crate::{Failure, failed};
use clap::CommandFactory;
use clap_complete::Shell;
use std::path::PathBuf;

/// The options of `lppf man`.
#[derive(clap::Args)]
pub struct ManArgs {
    /// Write lppf.1 and one page per command (lppf-fit.1, …) into this directory (created if
    /// missing), e.g. ~/.local/share/man/man1; without it, print lppf.1 to standard output.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// Prints the completion script of `shell` for `lppf` to standard output.
pub fn completions(shell: Shell) -> Result<(), Failure> {
    clap_complete::generate(shell, &mut crate::Cli::command(), "lppf", &mut std::io::stdout());
    Ok(())
}

/// Prints the manual page of `lppf`, or writes it and every command's into `--dir`.
pub fn man(args: &ManArgs) -> Result<(), Failure> {
    let command = crate::Cli::command();
    match &args.dir {
        None => clap_mangen::Man::new(command)
            .render(&mut std::io::stdout())
            .map_err(|e| failed(format!("cannot write the manual page: {e}"))),
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| failed(format!("{}: {e}", dir.display())))?;
            clap_mangen::generate_to(command, dir).map_err(|e| failed(format!("{}: {e}", dir.display())))?;
            eprintln!("wrote the manual pages of lppf and its commands to {}", dir.display());
            Ok(())
        }
    }
}
