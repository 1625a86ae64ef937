//! `history case NAME`: one data set across every stored release of every runtime, for
//! bisecting a failure a run shows: the release where its verdict changed is the one to look
//! at. The data set is found by its content digest, so a release stored under another name of
//! the same content counts too.

use std::io::Write;
use std::process::ExitCode;

use super::record::corpus;
use super::store::read_all;
use super::stored::is_digest;
use super::timeline::{corpora_text, group_label};
use crate::case::content_digest::data_set_digest;
use crate::cli::args::HistoryCaseArgs;
use crate::cli::fatal::Fatal;

pub(super) fn case(args: &HistoryCaseArgs) -> Result<ExitCode, Fatal> {
    let digest = if is_digest(&args.name) {
        args.name.clone()
    } else {
        named_digest(args)?
    };
    let all = read_all(&args.dir)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{} (content {digest})", args.name)?;
    for (runtime, releases) in &all {
        writeln!(out, "{runtime}:")?;
        let mut previous: Option<String> = None;
        for release in releases {
            let line = match (release.worker.passed, release.status_of(&digest)) {
                (false, _) => "worker failed its self-check".to_owned(),
                (true, None) => {
                    // Another content under this name (a corpus version that changed the data
                    // set) is told, when the release stored it, so that a reader bisects it too.
                    let other = release
                        .not_passed
                        .iter()
                        .find(|(d, n)| n.name == args.name && **d != digest)
                        .map_or_else(String::new, |(d, n)| {
                            let group = n
                                .group
                                .as_deref()
                                .map_or_else(String::new, |g| format!(": {}", group_label(g)));
                            format!("; its content then, {d}: {}{group}", n.status.name())
                        });
                    format!(
                        "not run (this content is not in its corpus, {}){other}",
                        corpora_text(release)
                    )
                }
                (true, Some(status)) => match release.not_passed.get(&digest).and_then(|n| n.group.as_ref()) {
                    Some(group) => format!("{}: {}", status.name(), group_label(group)),
                    None => status.name().to_owned(),
                },
            };
            let mark = if previous.as_ref().is_some_and(|p| *p != line) {
                "  <- changed"
            } else {
                ""
            };
            writeln!(out, "  {:<12} {line}{mark}", release.version)?;
            previous = Some(line);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The content digest of the data set named `args.name` in the corpus: only that one is read.
fn named_digest(args: &HistoryCaseArgs) -> Result<String, Fatal> {
    let (_, cases) = corpus(&args.paths)?;
    for case in &cases {
        for index in case.job_indices() {
            if case.data_set_name(index) == args.name {
                return data_set_digest(case, index).map_err(|e| Fatal(format!("{}: {e}", args.name)));
            }
        }
    }
    let mut near: Vec<String> = cases
        .iter()
        .flat_map(|case| case.job_indices().map(|index| case.data_set_name(index)))
        .filter(|n| n.contains(args.name.as_str()))
        .collect();
    near.sort();
    Err(Fatal(match near.as_slice() {
        [] => format!("{:?}: no data set of that name in the corpus", args.name),
        some => format!(
            "{:?}: not a data set's whole name (`onnx-1.22.0/node/test_wrap_pad/0`); names holding it: {}",
            args.name,
            some.iter().take(5).map(String::as_str).collect::<Vec<_>>().join(", ")
        ),
    }))
}
