//! The formats a run's report is written in, and the file extension that names each, so that
//! one run can write several reports (`--output run.json --output run.xml`).

use std::path::Path;

/// A format of a run's report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReportFormat {
    /// The terminal's: a line per data set as it finishes, the summary last.
    Human,
    /// JSON (docs/report-format.md).
    Json,
    /// JUnit XML (feature `junit`).
    #[cfg(feature = "junit")]
    Junit,
    /// Markdown, for pull-request comments.
    Markdown,
    /// The HTML scoreboard, which only the binary writes.
    Html,
}

/// Each format's extensions, lowercase, the first the one named in messages.
const EXTENSIONS: &[(ReportFormat, &[&str])] = &[
    (ReportFormat::Json, &["json"]),
    #[cfg(feature = "junit")]
    (ReportFormat::Junit, &["xml"]),
    (ReportFormat::Markdown, &["md"]),
    (ReportFormat::Html, &["html"]),
    (ReportFormat::Human, &["txt", "log"]),
];

impl ReportFormat {
    /// The format `path`'s extension names, in any case: `.json`, `.xml` (JUnit), `.md`,
    /// `.html`, `.txt` or `.log` (human); `None` for any other, or none.
    pub(crate) fn of_path(path: &Path) -> Option<ReportFormat> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        EXTENSIONS
            .iter()
            .find(|(_, names)| names.contains(&extension.as_str()))
            .map(|(format, _)| *format)
    }

    /// The extensions that name a format, for a message: `.json (JSON), .xml (JUnit), …`.
    pub(crate) fn extensions() -> String {
        let shown: Vec<String> = EXTENSIONS
            .iter()
            .map(|(format, names)| {
                let names: Vec<String> = names.iter().map(|n| format!(".{n}")).collect();
                format!("{} ({})", names.join(" or "), format.name())
            })
            .collect();
        shown.join(", ")
    }

    /// `human`, `JSON`, `JUnit`, …: the format as a message names it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            ReportFormat::Human => "human",
            ReportFormat::Json => "JSON",
            #[cfg(feature = "junit")]
            ReportFormat::Junit => "JUnit",
            ReportFormat::Markdown => "Markdown",
            ReportFormat::Html => "HTML",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_extension_names_its_format_in_any_case_and_any_other_names_none() {
        let of = |path: &str| ReportFormat::of_path(Path::new(path));
        assert_eq!(of("target/run.JSON"), Some(ReportFormat::Json));
        #[cfg(feature = "junit")]
        assert_eq!(of("junit.xml"), Some(ReportFormat::Junit));
        assert_eq!(of("a/b.md"), Some(ReportFormat::Markdown));
        assert_eq!(of("page.html"), Some(ReportFormat::Html));
        assert_eq!(of("run.log"), Some(ReportFormat::Human));
        assert_eq!(of("run.txt"), Some(ReportFormat::Human));
        assert_eq!((of("run.yaml"), of("run"), of(".json")), (None, None, None));
        #[cfg(feature = "junit")]
        assert_eq!(
            ReportFormat::extensions(),
            ".json (JSON), .xml (JUnit), .md (Markdown), .html (HTML), .txt or .log (human)"
        );
        #[cfg(not(feature = "junit"))]
        assert_eq!(
            (of("junit.xml"), ReportFormat::extensions()),
            (
                None,
                ".json (JSON), .md (Markdown), .html (HTML), .txt or .log (human)".to_owned()
            )
        );
    }
}
