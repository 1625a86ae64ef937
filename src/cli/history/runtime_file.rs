//! A runtime's stored releases in one file, history/RUNTIME.json (format 2): what `history
//! record` writes. The releases of one runtime run mostly the same data sets and leave the
//! same ones unsupported, so each list of digests is stored once, under its digest, and each
//! name once; a release refers to them. One JSON document, written one entry per line (a
//! name, a list, a release), so that a new release is a new line in a diff.
//!
//! ```text
//! {"format":2,"runtime":"rt",
//! "names":{
//! "000000000000000a":"onnx-1.22.0/node/test_wrap_pad/0"},
//! "lists":{
//! "9f86…":["000000000000000a","000000000000000b"]},
//! "releases":[
//! {"version":"1.0","corpora":{"onnx-testdata":4},…,"data_sets":"9f86…","not_passed":[{"status":"failed","gates":true,"group":"…","data_sets":["000000000000000a"]}]}
//! ]}
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::stored::{
    Environment, HISTORY_FORMAT, MAX_STORED_BYTES, NotPassed, Release, StoredError, WorkerCheck, is_digest,
};
use crate::data::json_file::read_json;
use crate::judge::check::Status;

/// The file as stored.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuntimeFile {
    /// [`HISTORY_FORMAT`] when written.
    format: u32,
    /// The runtime, as its worker names it: the file's name too.
    runtime: String,
    /// The name of every data set some release did not pass, by content digest: the name it
    /// had in the newest release listing it.
    #[serde(default)]
    names: BTreeMap<String, String>,
    /// The lists of data-set digests the releases refer to, each under its own digest
    /// ([`Release::selection_of`]).
    #[serde(default)]
    lists: BTreeMap<String, Vec<String>>,
    /// In release order.
    releases: Vec<StoredRelease>,
}

/// One release in the runtime's file: a [`Release`] whose lists are references.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredRelease {
    version: String,
    corpora: BTreeMap<String, u32>,
    gating: String,
    tolerance: String,
    date: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    environment: Option<Environment>,
    worker: WorkerCheck,
    /// The list of the data sets it ran: its selection.
    data_sets: String,
    /// The list of those outside what it supports, when there are some.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    unsupported: Option<String>,
    /// The data sets that failed, errored or were skipped, by what is stored of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    not_passed: Vec<NotPassedSet>,
    /// The names this release gave data sets of `not_passed` that differ from the file's.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    names: BTreeMap<String, String>,
    /// What labels each failure group: its smallest data set's message.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    messages: BTreeMap<String, String>,
}

/// Data sets of one release stored alike: one status, gate and group.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct NotPassedSet {
    status: Status,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    gates: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    group: Option<String>,
    /// Sorted.
    data_sets: Vec<String>,
}

/// Reads and checks a runtime's file: its format, that it is named for its runtime, each
/// release as reading a release checks it, each version once.
pub(crate) fn read_runtime_file(path: &Path) -> Result<Vec<Release>, StoredError> {
    let file: RuntimeFile = read_json(path, MAX_STORED_BYTES)?;
    let invalid = |field: String, problem: String| StoredError::invalid(path, field, problem);
    if file.format != HISTORY_FORMAT {
        return Err(invalid(
            "format".into(),
            format!(
                "{}: a runtime's file is of format {HISTORY_FORMAT}, this pad-conformance's",
                file.format
            ),
        ));
    }
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    if stem != file.runtime {
        return Err(invalid(
            "runtime".into(),
            format!("{:?}, but the file is named {stem:?}", file.runtime),
        ));
    }
    for (key, list) in &file.lists {
        if *key != Release::selection_of(list) {
            return Err(invalid(
                format!("lists.{key}"),
                "not the digest of the list it names".into(),
            ));
        }
    }
    if let Some(bad) = file.names.keys().find(|d| !is_digest(d)) {
        return Err(invalid("names".into(), format!("{bad:?} is not a 16-digit hex digest")));
    }
    let mut releases = Vec::with_capacity(file.releases.len());
    let mut versions = BTreeSet::new();
    for stored in file.releases {
        let within = format!("{}: ", stored.version);
        if !versions.insert(stored.version.clone()) {
            return Err(invalid(
                "releases".into(),
                format!("{:?} is stored twice", stored.version),
            ));
        }
        let list = |field: &str, key: &str| {
            file.lists
                .get(key)
                .cloned()
                .ok_or_else(|| invalid(format!("{within}{field}"), format!("{key:?} is not one of lists")))
        };
        let data_sets = list("data_sets", &stored.data_sets)?;
        let unsupported = match &stored.unsupported {
            Some(key) => list("unsupported", key)?,
            None => Vec::new(),
        };
        let mut not_passed = BTreeMap::new();
        for set in stored.not_passed {
            if set.data_sets.windows(2).any(|w| w[0] >= w[1]) {
                return Err(invalid(
                    format!("{within}not_passed"),
                    "a list not sorted, or a digest listed twice".into(),
                ));
            }
            for digest in set.data_sets {
                let name = stored
                    .names
                    .get(&digest)
                    .or_else(|| file.names.get(&digest))
                    .cloned()
                    .ok_or_else(|| invalid(format!("{within}not_passed"), format!("{digest}: no name in names")))?;
                let entry = NotPassed {
                    name,
                    status: set.status,
                    gates: set.gates,
                    group: set.group.clone(),
                };
                if not_passed.insert(digest.clone(), entry).is_some() {
                    return Err(invalid(
                        format!("{within}not_passed"),
                        format!("{digest} is listed twice"),
                    ));
                }
            }
        }
        let mut release = Release {
            format: HISTORY_FORMAT,
            runtime: file.runtime.clone(),
            version: stored.version,
            corpora: stored.corpora,
            gating: stored.gating,
            tolerance: stored.tolerance,
            date: stored.date,
            environment: stored.environment,
            worker: stored.worker,
            selection: stored.data_sets,
            data_sets,
            unsupported,
            not_passed,
            messages: stored.messages,
        };
        release.check(path, &within)?;
        release.regroup();
        releases.push(release);
    }
    Ok(releases)
}

/// The runtime's file holding `releases` (of `runtime`, in release order), as text.
pub(crate) fn runtime_file_text(runtime: &str, releases: &[Release]) -> Result<String, serde_json::Error> {
    // Each data set's name in the newest release that lists it.
    let mut names: BTreeMap<&str, &str> = BTreeMap::new();
    for release in releases {
        for (digest, entry) in &release.not_passed {
            names.insert(digest, &entry.name);
        }
    }
    let mut lists: BTreeMap<String, &[String]> = BTreeMap::new();
    let stored: Vec<StoredRelease> = releases
        .iter()
        .map(|release| {
            lists.insert(release.selection.clone(), &release.data_sets);
            let unsupported = (!release.unsupported.is_empty()).then(|| {
                let key = Release::selection_of(&release.unsupported);
                lists.insert(key.clone(), &release.unsupported);
                key
            });
            let mut sets: BTreeMap<(Status, bool, Option<&String>), Vec<String>> = BTreeMap::new();
            for (digest, entry) in &release.not_passed {
                sets.entry((entry.status, entry.gates, entry.group.as_ref()))
                    .or_default()
                    .push(digest.clone());
            }
            StoredRelease {
                version: release.version.clone(),
                corpora: release.corpora.clone(),
                gating: release.gating.clone(),
                tolerance: release.tolerance.clone(),
                date: release.date.clone(),
                environment: release.environment.clone(),
                worker: release.worker.clone(),
                data_sets: release.selection.clone(),
                unsupported,
                not_passed: sets
                    .into_iter()
                    .map(|((status, gates, group), data_sets)| NotPassedSet {
                        status,
                        gates,
                        group: group.cloned(),
                        data_sets,
                    })
                    .collect(),
                messages: release.messages.clone(),
                names: release
                    .not_passed
                    .iter()
                    .filter(|(digest, entry)| names.get(digest.as_str()) != Some(&entry.name.as_str()))
                    .map(|(digest, entry)| (digest.clone(), entry.name.clone()))
                    .collect(),
            }
        })
        .collect();
    use serde_json::to_string as json;
    let mut text = format!(
        "{{\"format\":{HISTORY_FORMAT},\"runtime\":{},\n\"names\":{{",
        json(runtime)?
    );
    let entries: Vec<String> = names
        .iter()
        .map(|(digest, name)| Ok(format!("\n{}:{}", json(digest)?, json(name)?)))
        .collect::<Result<_, serde_json::Error>>()?;
    text.push_str(&entries.join(","));
    text.push_str("},\n\"lists\":{");
    let entries: Vec<String> = lists
        .iter()
        .map(|(key, list)| Ok(format!("\n{}:{}", json(key)?, json(list)?)))
        .collect::<Result<_, serde_json::Error>>()?;
    text.push_str(&entries.join(","));
    text.push_str("},\n\"releases\":[");
    let entries: Vec<String> = stored
        .iter()
        .map(|release| Ok(format!("\n{}", json(release)?)))
        .collect::<Result<_, serde_json::Error>>()?;
    text.push_str(&entries.join(","));
    text.push_str("\n]}\n");
    Ok(text)
}
