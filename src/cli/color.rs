//! Whether a report on standard output is coloured, decided once from `--color` and, for
//! `auto`, from the terminal and the environment as anstream reads them: `NO_COLOR` set turns
//! colours off, `CLICOLOR_FORCE` on even for a pipe, `CLICOLOR=0` off, and otherwise a terminal
//! whose `TERM` takes colours (or any terminal in CI, or under `CLICOLOR=1`) gets them.

use crate::cli::args::ColorWhen;
use crate::report::Colors;

impl ColorWhen {
    /// The colours of what goes to standard output.
    pub(super) fn stdout(self) -> Colors {
        let colored = match self {
            ColorWhen::Always => true,
            ColorWhen::Never => false,
            ColorWhen::Auto => anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never,
        };
        if colored { Colors::Always } else { Colors::Never }
    }
}
