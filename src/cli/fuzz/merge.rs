//! `fuzz-merge`: the JSON reports of one fuzz run's shards (`fuzz --shard K/N --format json`)
//! joined into the report of the whole run, as `FuzzReport::merge` joins them in the library.
//! The parts must be one run's: the same seed, backend and options, each shard of the same N
//! once.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::data::basis::Gating;
use crate::data::json_file::read_json;
use crate::data::shard::Shard;
use crate::data::side_file::MAX_REPORT_BYTES;

use super::json::{FindingJson, FuzzJson, ShardJson, SiteJson};
use crate::cli::args::{BenchFormat, FuzzMergeArgs};
use crate::cli::fatal::Fatal;
use crate::cli::output::{check_run_files, chosen_format, finish, open_output};
use crate::cli::shard_parts::{PartsDiffer, ShardsError, ShardsSeen};
use crate::fuzz::encoding::Encoding;
use crate::judge::cause_key::Pattern;
use crate::judge::survival::{self, Survival};
use crate::judge::verdict::Cause;
use crate::text::{escape_line, first_line};

pub(in crate::cli) fn fuzz_merge(args: &FuzzMergeArgs) -> Result<ExitCode, Fatal> {
    let inputs: Vec<_> = args.reports.iter().map(|p| ("report", Some(p.as_path()))).collect();
    check_run_files(&[("--output", args.output.as_deref())], &inputs, &[])?;
    let parts = args
        .reports
        .iter()
        .map(|path| Ok((path.clone(), read_json::<FuzzJson>(path, MAX_REPORT_BYTES)?)))
        .collect::<Result<Vec<_>, Fatal>>()?;
    let merged = merge_fuzz_reports(&parts)?;
    let format = chosen_format(args.format, args.output.as_ref(), BenchFormat::Json, BenchFormat::Human);
    let (mut out, _) = open_output(args.output.as_ref())?;
    let written = match format {
        BenchFormat::Json => writeln!(out, "{}", serde_json::to_string_pretty(&merged)?),
        BenchFormat::Human => write_human(&merged, &mut out),
    };
    finish(written, out)?;
    Ok(if merged.findings.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The merged run as a person reads it: each root cause — gating ones first — with its hits
/// and smallest case's message, then its totals, last.
fn write_human(merged: &FuzzJson, out: &mut dyn Write) -> std::io::Result<()> {
    let labelled = (merged.findings.iter().map(|f| ("CAUSE", f)))
        .chain(merged.not_gating.iter().map(|f| ("NOT GATING", f)))
        .chain(merged.encodings.iter().map(|f| ("ENCODING", f)));
    for (label, finding) in labelled {
        writeln!(
            out,
            "{label} {} ({} hits; smallest: {})\n      {}",
            escape_line(&finding.key),
            finding.hits,
            escape_line(&finding.case),
            escape_line(&first_line(&finding.message, 240))
        )?;
    }
    if !merged.findings.is_empty() {
        writeln!(
            out,
            "each cause's case: rerun the shards with --out DIR, then pad-conformance promote DIR --dry-run"
        )?;
    }
    writeln!(
        out,
        "fuzz-merge, seed {}: {} cases, {} unsupported, {} root causes: {} gating, {} not gating",
        merged.seed,
        merged.cases,
        merged.unsupported,
        merged.findings.len() + merged.not_gating.len(),
        merged.findings.len(),
        merged.not_gating.len()
    )
}

/// Why reports are not the shards of one run.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum FuzzMergeError {
    /// A report that does not state its run's options.
    #[error(
        "{}: states no options (\"run\"; written by an older pad-conformance): its shards cannot be checked to be one run's",
        crate::text::shown_path(path)
    )]
    NoOptions { path: PathBuf },
    /// Another seed or another option, a shard twice, or shards missing.
    #[error(transparent)]
    Shards(#[from] ShardsError),
    /// A shard a signal stopped before it drew every case.
    #[error(
        "{}: interrupted (\"interrupted\": true): the shard did not draw all its cases",
        crate::text::shown_path(path)
    )]
    Interrupted { path: PathBuf },
    /// A shard that is not one (index 0 or past the count).
    #[error("{}: shard {index}/{count} is not a shard", crate::text::shown_path(path))]
    NotAShard { path: PathBuf, index: u32, count: u32 },
    /// Counts whose sum passes what a count can hold: no run draws that many cases.
    #[error("{field}: the shards' counts add up past {} (a count no run reaches)", u64::MAX)]
    Overflow { field: &'static str },
}

/// The shards `parts` (each a report and its file) as the report of the whole run: causes
/// joined by key, each with the smallest case of the shard that drew it first on the
/// strongest basis (what the unsharded run keeps), hits and sites summed; cases summed, the
/// slowest shard's seconds. Findings are in order of key, sites in order of name.
pub(super) fn merge_fuzz_reports(parts: &[(PathBuf, FuzzJson)]) -> Result<FuzzJson, FuzzMergeError> {
    let Some((first_path, first)) = parts.first() else {
        return Err(ShardsError::no_parts().into());
    };
    let run = |path: &Path, report: &FuzzJson| {
        report
            .run
            .clone()
            .ok_or_else(|| FuzzMergeError::NoOptions { path: path.to_owned() })
    };
    let ours = run(first_path, first)?;
    let mut seen = ShardsSeen::default();
    for (path, report) in parts {
        let theirs = run(path, report)?;
        if report.interrupted {
            return Err(FuzzMergeError::Interrupted { path: path.clone() });
        }
        let differs = |field, theirs: String, ours: String| {
            FuzzMergeError::from(ShardsError::Differs(Box::new(PartsDiffer {
                path: path.clone(),
                field,
                theirs,
                first: first_path.clone(),
                ours,
                parts: "shards",
            })))
        };
        let show = |v: &dyn std::fmt::Debug| format!("{v:?}");
        let fields: [(&'static str, String, String); 13] = [
            ("seed", report.seed.to_string(), first.seed.to_string()),
            ("backend", show(&theirs.backend), show(&ours.backend)),
            ("runtime", show(&theirs.runtime), show(&ours.runtime)),
            ("--cases", show(&theirs.case_limit), show(&ours.case_limit)),
            ("--max-elements", show(&theirs.max_elements), show(&ours.max_elements)),
            ("--refusals", show(&theirs.refusals), show(&ours.refusals)),
            ("--encodings", show(&theirs.encodings), show(&ours.encodings)),
            ("comparison", show(&theirs.tolerance), show(&ours.tolerance)),
            ("--basis", show(&theirs.gating), show(&ours.gating)),
            ("--profile", show(&theirs.profile), show(&ours.profile)),
            (
                "--inputs-as-constants",
                show(&theirs.inputs_as_constants),
                show(&ours.inputs_as_constants),
            ),
            ("--strict-rules", show(&theirs.strict_rules), show(&ours.strict_rules)),
            (
                "shard count",
                report.shard.count.to_string(),
                first.shard.count.to_string(),
            ),
        ];
        if let Some((field, theirs, ours)) = fields.into_iter().find(|(_, theirs, ours)| theirs != ours) {
            return Err(differs(field, theirs, ours));
        }
        let ShardJson { index, count } = report.shard;
        let Ok(shard) = Shard::new(index, count) else {
            return Err(FuzzMergeError::NotAShard {
                path: path.clone(),
                index,
                count,
            });
        };
        seen.add(path, shard)?;
    }
    seen.complete(first.shard.count)?;
    let gating = Gating::from_names(&ours.gating.split(',').map(str::to_owned).collect::<Vec<_>>()).unwrap_or_default();
    // Causes are joined by their typed pattern, unless a part was written before patterns were.
    let typed = parts
        .iter()
        .flat_map(|(_, r)| r.findings.iter().chain(&r.not_gating).chain(&r.encodings))
        .all(|finding| finding.pattern.is_some());
    let (findings, not_gating) = join_causes(
        parts.iter().flat_map(|(_, r)| r.findings.iter().chain(&r.not_gating)),
        typed,
    )?
    .into_iter()
    .partition(|f| {
        // A part written before patterns were names no failure kind: its basis decides.
        let survival = f.pattern.as_ref().map_or(Survival::Answered, Survival::of_pattern);
        survival::gates(&gating, f.basis.kind, survival)
    });
    let encodings = join_causes(parts.iter().flat_map(|(_, r)| &r.encodings), typed)?;
    let total = |field, count: fn(&FuzzJson) -> u64| total(field, parts.iter().map(|(_, r)| count(r)));
    let cases = total("cases", |r| r.cases)?;
    let seconds = parts.iter().map(|(_, r)| r.seconds).fold(0.0, f64::max);
    Ok(FuzzJson {
        seed: first.seed,
        shard: ShardJson { index: 1, count: 1 },
        cases,
        seconds,
        cases_per_second: cases as f64 / seconds.max(1e-9),
        unsupported: total("unsupported", |r| r.unsupported)?,
        // Causes a shard dropped (its memory budget full), summed: another shard may have kept one.
        dropped: total("dropped", |r| r.dropped)?,
        run: Some(ours),
        interrupted: false,
        findings,
        not_gating,
        reencoded: total("reencoded", |r| r.reencoded)?,
        encodings,
    })
}

/// The sum of counts read from the shards' files, refused rather than wrapped.
fn total(field: &'static str, counts: impl IntoIterator<Item = u64>) -> Result<u64, FuzzMergeError> {
    counts
        .into_iter()
        .try_fold(0u64, u64::checked_add)
        .ok_or(FuzzMergeError::Overflow { field })
}

/// What one cause of a shard is joined by: its form (in the order of [`Encoding`], a name no
/// form has after them), cause and pattern, typed; when any part comes from before patterns
/// were written, the worded key instead (never parsed), so that no cause is split in two.
type JoinKey = (Option<Result<Encoding, String>>, Cause, Option<Pattern>, Option<String>);

fn join_key(finding: &FindingJson, typed: bool) -> JoinKey {
    let form = finding
        .encoding
        .as_deref()
        .map(|name| Encoding::from_name(name).ok_or_else(|| name.to_owned()));
    match typed {
        true => (form, finding.cause, finding.pattern.clone(), None),
        false => (form, finding.cause, None, Some(finding.key.clone())),
    }
}

/// Causes found on several shards joined: one per cause and pattern (and form, for encoding
/// causes), with the smallest case of the shard that drew it first on the strongest basis,
/// hits and sites summed; in order of cause and pattern, as the unsharded run orders them,
/// sites in order of name.
fn join_causes<'a>(
    found: impl Iterator<Item = &'a FindingJson>,
    typed: bool,
) -> Result<Vec<FindingJson>, FuzzMergeError> {
    let mut causes: BTreeMap<JoinKey, FindingJson> = BTreeMap::new();
    let mut sites: BTreeMap<JoinKey, BTreeMap<String, u64>> = BTreeMap::new();
    for finding in found {
        let key = join_key(finding, typed);
        let counts = sites.entry(key.clone()).or_default();
        for site in &finding.seen_in {
            let count = counts.entry(site.site.clone()).or_default();
            *count = total("seen_in cases", [*count, site.cases])?;
        }
        let rank = |f: &FindingJson| (f.drawn_basis.unwrap_or(f.basis.kind), f.case_index);
        match causes.get_mut(&key) {
            Some(known) => {
                let hits = total("hits", [known.hits, finding.hits])?;
                if rank(finding) < rank(known) {
                    *known = finding.clone();
                }
                known.hits = hits;
            }
            None => {
                causes.insert(key, finding.clone());
            }
        }
    }
    Ok(causes
        .into_iter()
        .map(|(key, mut finding)| {
            finding.seen_in = sites
                .remove(&key)
                .unwrap_or_default()
                .into_iter()
                .map(|(site, cases)| SiteJson { site, cases })
                .collect();
            finding
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::fuzz::json::RunJson;
    use crate::data::basis::{Basis, BasisNote};
    use crate::judge::cause_key::{Flavour, Region};
    use crate::operators::PadMode;

    fn cause(index: u64, drawn: Basis, sites: &[(&str, u64)]) -> FindingJson {
        FindingJson {
            cause: Cause::WrongValues,
            pattern: Some(Pattern::Values {
                region: Region::Padding(Some(PadMode::Reflect)),
                flavour: Flavour::Values,
            }),
            key: "wrong-values: reflect padding, other values".into(),
            slug: "wrong-values_reflect-padding_other-values".into(),
            hits: sites.iter().map(|(_, n)| n).sum(),
            seen_in: sites
                .iter()
                .map(|(site, cases)| SiteJson {
                    site: (*site).into(),
                    cases: *cases,
                })
                .collect(),
            basis: BasisNote {
                kind: drawn,
                section: "docs/semantics.md#reflect-mode".into(),
            },
            drawn_basis: Some(drawn),
            case: format!("case {index}"),
            original: format!("drawn {index}"),
            case_index: index,
            message: String::new(),
            encoding: None,
            encoding_description: None,
        }
    }

    fn shard(index: u32, found: FindingJson) -> (PathBuf, FuzzJson) {
        let report = FuzzJson {
            seed: 1,
            shard: ShardJson { index, count: 2 },
            cases: 10,
            seconds: f64::from(index),
            cases_per_second: 0.0,
            unsupported: 1,
            dropped: 0,
            interrupted: false,
            run: Some(RunJson {
                backend: "b".into(),
                runtime: None,
                case_limit: Some(20),
                time: None,
                max_elements: 64,
                refusals: 0.15,
                encodings: Some(0.1),
                tolerance: "exact".into(),
                gating: "spec,reference".into(),
                profile: None,
                inputs_as_constants: false,
                strict_rules: false,
            }),
            findings: Vec::new(),
            not_gating: vec![found],
            reencoded: 0,
            encodings: Vec::new(),
        };
        (PathBuf::from(format!("part-{index}.json")), report)
    }

    #[test]
    fn encoding_causes_join_by_form_and_stay_apart_from_the_pad_causes() {
        let in_form = |index, form: &str| FindingJson {
            encoding: Some(form.into()),
            ..cause(index, Basis::Spec, &[("Pad-13 float", 1)])
        };
        let mut one = shard(1, cause(0, Basis::Spec, &[("Pad-18 float", 1)]));
        one.1.encodings = vec![
            in_form(5, "packed-lists"),
            in_form(6, "typed-data"),
            in_form(7, "reversed-fields"),
        ];
        one.1.reencoded = 3;
        let mut two = shard(2, cause(1, Basis::Spec, &[("Pad-18 float", 1)]));
        two.1.encodings = vec![in_form(2, "packed-lists")];
        two.1.reencoded = 4;
        let merged = merge_fuzz_reports(&[one, two]).unwrap();
        assert_eq!(merged.findings.len(), 1, "{merged:?}");
        let forms: Vec<(Option<&str>, u64, u64)> = merged
            .encodings
            .iter()
            .map(|f| (f.encoding.as_deref(), f.case_index, f.hits))
            .collect();
        // In the order of the forms, as the unsharded run lists them (not of their names).
        assert_eq!(
            forms,
            [
                (Some("packed-lists"), 2, 2),
                (Some("typed-data"), 6, 1),
                (Some("reversed-fields"), 7, 1)
            ]
        );
        assert_eq!(merged.reencoded, 7);
        // Shards of another --encodings share are another run.
        let mut other = shard(2, cause(1, Basis::Spec, &[]));
        other.1.run.as_mut().unwrap().encodings = Some(0.5);
        let error = merge_fuzz_reports(&[shard(1, cause(0, Basis::Spec, &[])), other]).unwrap_err();
        assert!(error.to_string().contains("--encodings"), "{error}");
    }

    #[test]
    fn causes_join_by_their_typed_pattern_not_their_wording() {
        // The same cause and pattern worded two ways (another version's wording) is one cause.
        let reworded = FindingJson {
            key: "wrong-values: padding (reflect), other values".into(),
            ..cause(4, Basis::Spec, &[("Pad-18 float", 1)])
        };
        let first = cause(2, Basis::Spec, &[("Pad-18 float", 3)]);
        let merged = merge_fuzz_reports(&[shard(1, first), shard(2, reworded)]).unwrap();
        assert_eq!(merged.findings.len(), 1, "{merged:?}");
        assert_eq!((merged.findings[0].case_index, merged.findings[0].hits), (2, 4));
        // Another flavour of the same region is another cause, whatever the wording.
        let other_flavour = FindingJson {
            pattern: Some(Pattern::Values {
                region: Region::Padding(Some(PadMode::Reflect)),
                flavour: Flavour::SignOfZero,
            }),
            ..cause(4, Basis::Spec, &[])
        };
        let merged = merge_fuzz_reports(&[shard(1, cause(2, Basis::Spec, &[])), shard(2, other_flavour)]).unwrap();
        assert_eq!(merged.findings.len(), 2, "{merged:?}");
        // Reports written before patterns were: joined by their key, as then.
        let old = |index| FindingJson {
            pattern: None,
            ..cause(index, Basis::Spec, &[("Pad-18 float", 1)])
        };
        let merged = merge_fuzz_reports(&[shard(1, old(2)), shard(2, old(4))]).unwrap();
        assert_eq!((merged.findings.len(), merged.findings[0].hits), (1, 2));
        // Parts of both kinds: joined by the key, so that no cause is split in two.
        let new = cause(4, Basis::Spec, &[("Pad-18 float", 1)]);
        let merged = merge_fuzz_reports(&[shard(1, old(2)), shard(2, new)]).unwrap();
        assert_eq!((merged.findings.len(), merged.findings[0].hits), (1, 2));
    }

    #[test]
    fn a_cause_keeps_the_case_drawn_first_on_the_strongest_basis() {
        // Shard 1 drew it first (case 0), on a project rule; shard 2 later (case 3), on the spec.
        let merged = merge_fuzz_reports(&[
            shard(1, cause(0, Basis::Rule, &[("Pad-18 float", 2), ("Pad-19 int", 1)])),
            shard(2, cause(3, Basis::Spec, &[("Pad-18 float", 4)])),
        ])
        .unwrap();
        assert!(merged.not_gating.is_empty());
        let [found] = merged.findings.as_slice() else {
            panic!("{merged:?}")
        };
        assert_eq!((found.case_index, found.case.as_str(), found.hits), (3, "case 3", 7));
        assert_eq!(
            found.seen_in,
            [
                SiteJson {
                    site: "Pad-18 float".into(),
                    cases: 6
                },
                SiteJson {
                    site: "Pad-19 int".into(),
                    cases: 1
                }
            ]
        );
        assert_eq!((merged.cases, merged.unsupported, merged.seconds), (20, 2, 2.0));
        assert_eq!(merged.shard, ShardJson { index: 1, count: 1 });
        // On one basis, the case drawn first.
        let merged = merge_fuzz_reports(&[
            shard(2, cause(1, Basis::Rule, &[("Pad-18 float", 1)])),
            shard(1, cause(4, Basis::Rule, &[("Pad-18 float", 1)])),
        ])
        .unwrap();
        assert_eq!(merged.not_gating[0].case_index, 1);
    }

    #[test]
    fn counts_that_would_wrap_and_shard_counts_past_the_bound_are_refused() {
        let mut one = shard(1, cause(0, Basis::Rule, &[("Pad-18 float", u64::MAX)]));
        let two = shard(2, cause(3, Basis::Rule, &[("Pad-18 float", 1)]));
        let error = merge_fuzz_reports(&[one.clone(), two.clone()]).unwrap_err();
        assert_eq!(error, FuzzMergeError::Overflow { field: "seen_in cases" });
        one.1.not_gating[0].seen_in.clear();
        one.1.not_gating[0].hits = u64::MAX;
        let error = merge_fuzz_reports(&[one.clone(), two.clone()]).unwrap_err();
        assert_eq!(error, FuzzMergeError::Overflow { field: "hits" });
        one.1.not_gating[0].hits = 1;
        one.1.cases = u64::MAX;
        let error = merge_fuzz_reports(&[one.clone(), two.clone()]).unwrap_err();
        assert_eq!(error, FuzzMergeError::Overflow { field: "cases" });
        // A part claiming to be one of 4,294,967,295 is refused before any list of the rest.
        let mut huge = shard(1, cause(0, Basis::Rule, &[]));
        huge.1.shard.count = u32::MAX;
        let mut other = shard(2, cause(0, Basis::Rule, &[]));
        other.1.shard.count = u32::MAX;
        let error = merge_fuzz_reports(&[huge, other]).unwrap_err();
        assert!(
            matches!(error, FuzzMergeError::NotAShard { count: u32::MAX, .. }),
            "{error}"
        );
    }

    #[test]
    fn an_interrupted_shard_is_refused() {
        let mut stopped = shard(2, cause(3, Basis::Rule, &[]));
        stopped.1.interrupted = true;
        let error = merge_fuzz_reports(&[shard(1, cause(0, Basis::Rule, &[])), stopped]).unwrap_err();
        assert_eq!(
            error,
            FuzzMergeError::Interrupted {
                path: "part-2.json".into()
            }
        );
    }
}
