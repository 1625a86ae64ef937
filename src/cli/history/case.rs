//! `history case NAME`: one data set across every stored release of every runtime, for
//! bisecting a failure a run shows: the release where its verdict changed is the one to look
//! at. The data set is found by its content digest, so a release stored under another name of
//! the same content counts too.

use std::io::Write;
use std::process::ExitCode;

use super::record::corpus_digests;
use super::stored::{is_digest, read_all};
use crate::cli::Fatal;
use crate::cli::args::HistoryCaseArgs;
use crate::judge::check::Status;

pub(super) fn case(args: &HistoryCaseArgs) -> Result<ExitCode, Fatal> {
    let digest = if is_digest(&args.name) {
        args.name.clone()
    } else {
        let digests = corpus_digests(&args.paths)?;
        match digests.get(&args.name) {
            Some(digest) => digest.clone(),
            None => {
                let mut near: Vec<&String> = digests.keys().filter(|n| n.contains(args.name.as_str())).collect();
                near.sort();
                return Err(Fatal(match near.as_slice() {
                    [] => format!("{:?}: no data set of that name in the corpus", args.name),
                    some => format!(
                        "{:?}: not a data set's whole name (`onnx-1.22.0/node/test_wrap_pad/0`); names holding it: {}",
                        args.name,
                        some.iter().take(5).map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
                    ),
                }));
            }
        }
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
                (true, None) => "not run".to_owned(),
                (true, Some(Status::Passed)) => "passed".to_owned(),
                (true, Some(_)) => {
                    let entry = &release.not_passed[&digest];
                    match &entry.group {
                        Some(group) => format!("{} ({group})", entry.status.name()),
                        None => entry.status.name().to_owned(),
                    }
                }
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
