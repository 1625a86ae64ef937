//! Recording a run into a baseline ([`Baseline::record`]): each failure that gates gets an
//! entry, keeping the reasons and links already there and the entries of other configurations;
//! into a file, merged with what another recording wrote meanwhile, under a lock
//! ([`Baseline::record_into`]).

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use super::baseline::{BASELINE_FORMAT, Baseline, BaselineError, PLAIN_FORMAT};
use super::config::ConfigName;
use super::entry::{Entries, Expectation};
use super::judging::crashed;
use crate::data::{DataRoot, corpus_versions};
use crate::judge::check::{Outcome, Status};
use crate::platform::lock_dir;
use crate::text::first_line;

impl Baseline {
    /// Records a baseline into `path` as [`Baseline::record`] makes it from the baseline
    /// there now (or `fallback` when there is none): read, recorded and replaced under a lock
    /// on the directory, so that two recordings into one file at once each merge into what the
    /// other wrote and no entry is lost. (On Unix the lock is on the directory, which outlives
    /// the rename that replaces the file, and leaves no lock file behind; on Windows, where a
    /// directory takes no lock, on `.pad-conformance.lock` in it: [`lock_dir`].) The unnamed
    /// configuration is not recorded into a file whose entries name configurations.
    pub fn record_into(
        path: &Path,
        fallback: Option<&Baseline>,
        config: Option<&ConfigName>,
        record: impl FnOnce(Option<&Baseline>) -> Recording,
    ) -> Result<Recording, BaselineError> {
        let write_error = |source| BaselineError::Write {
            path: path.to_owned(),
            source,
        };
        let lock = lock_dir(&dir_of(path)).map_err(write_error)?;
        let current = Baseline::read_if_exists(path)?;
        let previous = current.as_ref().or(fallback);
        if let Some(previous) = previous {
            previous.check_recordable_in(path, config)?;
        }
        let recorded = record(previous);
        recorded.baseline.write(path)?;
        // Unlocked when `lock` closes.
        drop(lock);
        Ok(recorded)
    }

    /// Refuses to record the unnamed configuration (`config` none) into this baseline, read
    /// from `path`, when its entries name configurations: its entries would apply everywhere.
    fn check_recordable_in(&self, path: &Path, config: Option<&ConfigName>) -> Result<(), BaselineError> {
        let named = self.named_configs();
        if config.is_some() || named.is_empty() {
            return Ok(());
        }
        Err(BaselineError::UnnamedRecording {
            path: path.to_owned(),
            configs: named.iter().map(ConfigName::as_str).collect::<Vec<_>>().join(", "),
        })
    }

    /// Every configuration an entry names.
    fn named_configs(&self) -> BTreeSet<ConfigName> {
        let lists = self.expected.values().flat_map(|Entries(list)| list);
        lists.filter_map(|e| e.configs.as_ref()).flatten().cloned().collect()
    }

    /// Checks, before a run, that a baseline can be recorded into `path`: what is there is a
    /// baseline or nothing, a regular file, and the directory takes a new file.
    /// A missing parent directory is created (a configuration's baseline often has a
    /// directory of its own). The unnamed configuration (`config` none) is refused here, not
    /// after the run, when the file's entries name configurations.
    pub fn check_recordable(path: &Path, config: Option<&ConfigName>) -> Result<(), BaselineError> {
        std::fs::create_dir_all(dir_of(path)).map_err(|source| BaselineError::Write {
            path: path.to_owned(),
            source,
        })?;
        // The type first: a FIFO or a link is refused without being read through.
        crate::data::atomic_file::check_writable(path).map_err(|source| BaselineError::Write {
            path: path.to_owned(),
            source,
        })?;
        match Baseline::read_if_exists(path)? {
            Some(baseline) => baseline.check_recordable_in(path, config),
            None => Ok(()),
        }
    }

    /// The baseline after a run over `roots` in `previous`'s configuration (none: a new
    /// baseline for the unnamed one): every data set of `ran` that failed or errored on a
    /// gating basis gets an entry in force, with the reason and link `previous` gives it, or
    /// else the first line of its message; an entry in force that still holds (the same
    /// status, or a crash it allows) is kept as it is. The entries of other configurations are
    /// untouched, and so are entries for data sets that did not run (a filter left them out)
    /// but `exists`; entries in force for no data set are dropped. An entry for every
    /// configuration that this one no longer matches stays for the other configurations the
    /// file names. It records the format (2 unless an entry needs 3), this tool's version and
    /// the version of each corpus the roots lie in.
    pub fn record<'a>(
        backend: &str,
        roots: &[DataRoot],
        ran: impl IntoIterator<Item = Ran<'a>>,
        previous: Option<&Baseline>,
        config: Option<&ConfigName>,
        exists: impl Fn(&str) -> bool,
    ) -> Recording {
        let mut counts = RecordCounts::default();
        let mut entries = previous.map(|b| b.expected.clone()).unwrap_or_default();
        let mut others = previous.map(Baseline::named_configs).unwrap_or_default();
        if let Some(config) = config {
            others.remove(config);
        }
        let mut run_names = HashSet::new();
        for ran in ran {
            run_names.insert(ran.name);
            let Entries(list) = entries.entry(ran.name.to_owned()).or_default();
            let in_force = list.iter().position(|e| e.applies_to(config));
            let failing = ran.gates && matches!(ran.status, Status::Failed | Status::Errored);
            let holds = in_force.is_some_and(|i| {
                let e = &list[i];
                (failing && e.status == ran.status)
                    // A crash it allows, or (listing `passed`) nothing that fails the run: what
                    // the gate judges agreeing with it.
                    || (e.intermittent_crash && (ran.crashed || (e.status == Status::Passed && !failing)))
            });
            if holds {
                continue;
            }
            let old = in_force.map(|i| narrow(list, i, config, &others));
            if !failing {
                counts.dropped += usize::from(old.is_some());
                continue;
            }
            let entry = Expectation {
                status: ran.status,
                configs: config.map(|c| vec![c.clone()]),
                intermittent_crash: false,
                ..old.unwrap_or_else(|| Expectation::new(ran.status, first_line(&ran.message, 200)))
            };
            add(list, entry);
        }
        for (name, Entries(list)) in &mut entries {
            if run_names.contains(name.as_str()) {
                continue;
            }
            let Some(i) = list.iter().position(|e| e.applies_to(config)) else {
                continue;
            };
            if exists(name) {
                // Outside the run's selection (a filter, a skip, another shard): kept.
                counts.outside += 1;
            } else {
                narrow(list, i, config, &others);
                counts.stale += 1;
            }
        }
        entries.retain(|_, Entries(list)| !list.is_empty());
        let mut versions = corpus_versions(roots);
        let corpus_version = match versions.len() {
            1 => versions.pop_first().map(|(_, v)| v),
            _ => None,
        };
        let needs_3 = entries
            .values()
            .any(|Entries(list)| list.len() > 1 || list.iter().any(Expectation::needs_format_3));
        let baseline = Baseline {
            format: Some(if needs_3 { BASELINE_FORMAT } else { PLAIN_FORMAT }),
            written_by: Some(format!("pad-conformance {}", env!("CARGO_PKG_VERSION"))),
            backend: backend.to_owned(),
            corpus_version,
            corpus_versions: versions,
            expected: entries,
            config: config.cloned(),
            ..Baseline::default()
        };
        for (_, entry) in baseline.entries_in_force() {
            match entry.status {
                _ if entry.intermittent_crash => counts.intermittent += 1,
                Status::Errored => counts.errored += 1,
                _ => counts.failed += 1,
            }
        }
        counts.other_configs = baseline.expected.values().flat_map(|Entries(l)| l).count() - counts.in_force();
        Recording { baseline, counts }
    }
}

/// One data set of a run, as [`Baseline::record`] reads it.
#[derive(Clone, Debug)]
pub struct Ran<'a> {
    /// `onnx-1.22.0/node/test_wrap_pad/0`.
    pub name: &'a str,
    /// What happened.
    pub status: Status,
    /// Why, when it did not pass.
    pub message: String,
    /// Whether a failure of it fails the run ([`Outcome::gates`]): its basis is one the run
    /// gates on, or the backend did not survive it.
    pub gates: bool,
    /// Whether it crashed or timed out (an entry may allow that as intermittent).
    pub crashed: bool,
}

impl<'a> Ran<'a> {
    /// `outcome`, named `name` (its [`Outcome::name`]).
    pub fn of(outcome: &'a Outcome, name: &'a str) -> Ran<'a> {
        Ran {
            name,
            status: outcome.status(),
            message: outcome.message(),
            gates: outcome.gates(),
            crashed: crashed(outcome),
        }
    }
}

/// The directory a file at `path` lies in (`.` for a bare name).
fn dir_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_owned(),
        _ => PathBuf::from("."),
    }
}

/// Takes `config` out of entry `i` of `list` (none: the unnamed configuration, whose entries
/// apply everywhere), returning it as it was: an entry for every configuration stays for the
/// `others` the file names; an entry left with no configuration goes.
fn narrow(
    list: &mut Vec<Expectation>,
    i: usize,
    config: Option<&ConfigName>,
    others: &BTreeSet<ConfigName>,
) -> Expectation {
    let old = list[i].clone();
    let remaining: Vec<ConfigName> = match (&old.configs, config) {
        (Some(configs), Some(config)) => configs.iter().filter(|c| *c != config).cloned().collect(),
        (None, Some(_)) => others.iter().cloned().collect(),
        (_, None) => Vec::new(),
    };
    if remaining.is_empty() {
        list.remove(i);
    } else {
        list[i].configs = Some(remaining);
    }
    old
}

/// Adds `entry` to `list`, into an entry for other configurations that says the same (its
/// `configs` grows), else as an entry of its own.
fn add(list: &mut Vec<Expectation>, entry: Expectation) {
    let same = |e: &Expectation| {
        Expectation {
            configs: None,
            ..e.clone()
        } == Expectation {
            configs: None,
            ..entry.clone()
        }
    };
    match (&entry.configs, list.iter_mut().find(|e| e.configs.is_some() && same(e))) {
        (Some(new), Some(existing)) => {
            let configs = existing.configs.get_or_insert_default();
            configs.extend(new.iter().cloned());
            configs.sort();
            configs.dedup();
        }
        _ => list.push(entry),
    }
}

/// A recorded baseline, and what the recording did.
#[derive(Clone, Debug)]
pub struct Recording {
    /// What was written.
    pub baseline: Baseline,
    /// Its entries, per kind, and those the recording dropped.
    pub counts: RecordCounts,
}

/// The entries of a recording, per kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecordCounts {
    /// In force, failing with status `failed`.
    pub failed: usize,
    /// In force, errored.
    pub errored: usize,
    /// In force, allowing an intermittent crash.
    pub intermittent: usize,
    /// Dropped: the data set passes now.
    pub dropped: usize,
    /// Dropped: no such data set.
    pub stale: usize,
    /// In force and kept as they were: their data sets exist but the run did not select them.
    pub outside: usize,
    /// Kept untouched: entries of other configurations only.
    pub other_configs: usize,
}

impl RecordCounts {
    /// The entries in force.
    pub fn in_force(&self) -> usize {
        self.failed + self.errored + self.intermittent
    }
}

impl Recording {
    /// `wrote baseline known.json (configuration debug): 3 known failures (2 failed, 1
    /// errored, 0 intermittent crashes); dropped 1 that pass now and 0 for no data set; kept 2
    /// entries of data sets this run did not select; kept 4 entries of other configurations`:
    /// what the command line and the harness print.
    pub fn describe(&self, path: &Path) -> String {
        let c = &self.counts;
        let config = match &self.baseline.config {
            Some(config) => format!(" (configuration {config})"),
            None => String::new(),
        };
        let mut text = format!(
            "wrote baseline {}{config}: {} known failures ({} failed, {} errored, {} intermittent crashes); dropped {} that pass now and {} for no data set",
            crate::text::shown_path(path),
            c.in_force(),
            c.failed,
            c.errored,
            c.intermittent,
            c.dropped,
            c.stale
        );
        if c.outside > 0 {
            text.push_str(&format!(
                "; kept {} entries of data sets this run did not select",
                c.outside
            ));
        }
        if c.other_configs > 0 {
            text.push_str(&format!("; kept {} entries of other configurations", c.other_configs));
        }
        text
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::gate::baseline::tests::{THREE, config, written};

    pub(crate) fn outcome(id: &str, status: Status, message: &str) -> Outcome {
        Outcome::example_said(id, status, message)
    }

    /// Records `run` as a whole run (every name exists).
    pub(crate) fn record(run: &[Outcome], previous: Option<&Baseline>) -> Baseline {
        let names: Vec<String> = run.iter().map(Outcome::name).collect();
        let ran = run.iter().zip(&names).map(|(o, name)| Ran::of(o, name));
        Baseline::record("x", &[], ran, previous, None, |_| true).baseline
    }

    fn ran(name: &'static str, status: Status) -> Ran<'static> {
        Ran {
            name,
            status,
            message: "new message".into(),
            gates: true,
            crashed: false,
        }
    }

    #[test]
    fn two_recordings_into_one_file_at_once_lose_no_entry() {
        let dir = crate::data::scratch_dir().unwrap();
        let path = dir.path().join("known.json");
        // Each recording ran one data set; the other exists and was not run by it.
        let recording = |id: &'static str| {
            let path = path.clone();
            move || {
                Baseline::record_into(&path, None, None, |previous| {
                    let run = [outcome(id, Status::Failed, "wrong")];
                    let names: Vec<String> = run.iter().map(Outcome::name).collect();
                    let ran = run.iter().zip(&names).map(|(o, name)| Ran::of(o, name));
                    Baseline::record("x", &[], ran, previous, None, |_| true)
                })
                .unwrap()
            }
        };
        // The first holds the directory's lock while the second starts: the second can
        // read only once the first has written, whatever the threads' timing.
        let lock = crate::platform::lock_dir(dir.path()).unwrap();
        let second = std::thread::spawn(recording("b"));
        std::thread::sleep(std::time::Duration::from_millis(100));
        record(&[outcome("a", Status::Failed, "wrong")], None)
            .write(&path)
            .unwrap();
        drop(lock);
        second.join().unwrap();
        let both = Baseline::read(&path).unwrap();
        assert_eq!(both.expected.keys().collect::<Vec<_>>(), ["a/0", "b/0"]);
        recording("c")();
        assert_eq!(Baseline::read(&path).unwrap().expected.len(), 3);
    }

    #[test]
    fn recording_keeps_existing_reasons() {
        let run = [
            outcome("a", Status::Failed, "first line\nsecond line"),
            outcome("b", Status::Errored, "boom"),
        ];
        let mut previous = Baseline::default();
        previous.insert("a/0", Expectation::new(Status::Failed, "edited by hand"));
        let recorded = record(&run, Some(&previous));
        assert_eq!(recorded.in_force("a/0").unwrap().reason, "edited by hand");
        assert_eq!(recorded.in_force("b/0").unwrap().reason, "boom");
        assert_eq!(recorded.in_force("b/0").unwrap().status, Status::Errored);
        let text = serde_json::to_string(&recorded).unwrap();
        assert_eq!(serde_json::from_str::<Baseline>(&text).unwrap(), recorded);
    }

    #[test]
    fn recording_a_filtered_run_keeps_the_entries_of_data_sets_not_run() {
        let mut previous = Baseline::default();
        for name in ["a/0", "elsewhere/0", "gone/0"] {
            previous.insert(name, Expectation::new(Status::Failed, format!("{name} by hand")));
        }
        // a/0 ran and passed: dropped. elsewhere/0 did not run and exists: kept. gone/0
        // names no data set: dropped. b/0 is new.
        let ran = [
            Ran {
                name: "a/0",
                status: Status::Passed,
                message: "".into(),
                gates: true,
                crashed: false,
            },
            Ran {
                name: "b/0",
                status: Status::Errored,
                message: "boom\nmore".into(),
                gates: true,
                crashed: false,
            },
        ];
        let recording = Baseline::record("x", &[], ran, Some(&previous), None, |name| name != "gone/0");
        assert_eq!((recording.counts.outside, recording.counts.stale), (1, 1));
        assert!(
            recording.describe(Path::new("k.json")).ends_with(
                "dropped 1 that pass now and 1 for no data set; kept 1 entries of data sets this run did not select"
            ),
            "{}",
            recording.describe(Path::new("k.json"))
        );
        let recorded = recording.baseline;
        let entries: Vec<(&str, &str)> = recorded
            .entries_in_force()
            .map(|(name, e)| (name.as_str(), e.reason.as_str()))
            .collect();
        assert_eq!(entries, [("b/0", "boom"), ("elsewhere/0", "elsewhere/0 by hand")]);
    }

    #[test]
    fn recording_keeps_an_intermittent_entry_unless_something_else_than_a_crash_fails_the_run() {
        let previous = written(THREE).unwrap();
        let release = config("release");
        // A failure on a basis the run does not gate on is not the entry's business: kept.
        let quiet = Ran {
            gates: false,
            ..ran("c/0", Status::Failed)
        };
        let kept = Baseline::record("x", &[], [quiet], Some(&previous), release.as_ref(), |_| true);
        assert_eq!(kept.baseline.expected["c/0"], previous.expected["c/0"]);
        // A wrong answer that gates replaces it with a plain failure, the reason kept.
        let recorded = Baseline::record(
            "x",
            &[],
            [ran("c/0", Status::Failed)],
            Some(&previous),
            release.as_ref(),
            |_| true,
        );
        let c = &recorded.baseline.expected["c/0"].0;
        assert_eq!(c.len(), 1);
        assert_eq!(
            (c[0].status, c[0].intermittent_crash, c[0].reason.as_str()),
            (Status::Failed, false, "heap corruption")
        );
    }

    #[test]
    fn recording_a_configuration_touches_only_its_own_entries_and_counts_them() {
        let previous = written(THREE).unwrap();
        // Release: a/0 now passes, b/0 still fails, c/0 crashes (allowed), d/0 is new.
        let run = [
            ran("a/0", Status::Passed),
            ran("b/0", Status::Failed),
            Ran {
                crashed: true,
                ..ran("c/0", Status::Errored)
            },
            ran("d/0", Status::Errored),
        ];
        let release = config("release");
        let recorded = Baseline::record("x", &[], run, Some(&previous), release.as_ref(), |_| true);
        let b = &recorded.baseline;
        assert_eq!(b.format, Some(3));
        // debug's entry of a/0 is untouched; release's is dropped.
        assert_eq!(b.expected["a/0"].0.len(), 1);
        assert_eq!(b.expected["a/0"].0[0].reason, "overflow panics");
        assert_eq!(b.expected["b/0"], previous.expected["b/0"]);
        assert_eq!(b.expected["c/0"], previous.expected["c/0"]);
        let d = &b.expected["d/0"].0[0];
        assert_eq!((d.status, d.reason.as_str()), (Status::Errored, "new message"));
        assert_eq!(d.configs, Some(vec![ConfigName::new("release").unwrap()]));
        let counts = RecordCounts {
            failed: 1,
            errored: 1,
            intermittent: 1,
            dropped: 1,
            stale: 0,
            outside: 0,
            other_configs: 1,
        };
        assert_eq!(recorded.counts, counts);
        assert_eq!(
            recorded.describe(Path::new("k.json")),
            "wrote baseline k.json (configuration release): 3 known failures (1 failed, 1 errored, 1 intermittent crashes); dropped 1 that pass now and 0 for no data set; kept 1 entries of other configurations"
        );
        // Debug now errs on d/0 the same way, with release's reason: one entry for both.
        let again = Baseline::record(
            "x",
            &[],
            [ran("d/0", Status::Errored)],
            Some(b),
            config("debug").as_ref(),
            |_| true,
        );
        let d = &again.baseline.expected["d/0"].0;
        assert_eq!(d.len(), 1);
        let names: Vec<&str> = d[0].configs.iter().flatten().map(ConfigName::as_str).collect();
        assert_eq!(names, ["debug", "release"]);
    }

    #[test]
    fn an_entry_for_every_configuration_that_one_contradicts_stays_for_the_others() {
        let previous = written(THREE).unwrap();
        // b/0 (every configuration) passes in debug: it stays for release, the other named.
        let recorded = Baseline::record(
            "x",
            &[],
            [ran("b/0", Status::Passed)],
            Some(&previous),
            config("debug").as_ref(),
            |_| true,
        );
        let b = &recorded.baseline.expected["b/0"].0;
        assert_eq!(b.len(), 1);
        assert_eq!(b[0].configs, Some(vec![ConfigName::new("release").unwrap()]));
        assert_eq!(b[0].reason, "no wrap");
        assert_eq!(recorded.counts.dropped, 1);
    }

    #[test]
    fn a_file_that_needs_nothing_of_format_3_is_written_as_2_and_the_unnamed_configuration_does_not_record_into_one_that_does()
     {
        let plain = Baseline::record("x", &[], [ran("a/0", Status::Failed)], None, None, |_| true);
        assert_eq!(plain.baseline.format, Some(2));
        let dir = crate::data::scratch_dir().unwrap();
        let path = dir.path().join("new/dir/known.json");
        Baseline::check_recordable(&path, None).unwrap();
        std::fs::write(&path, THREE).unwrap();
        // Refused before a run, and, should the file change during it, when it is recorded.
        let before = Baseline::check_recordable(&path, None).unwrap_err();
        assert!(matches!(before, BaselineError::UnnamedRecording { .. }), "{before}");
        Baseline::check_recordable(&path, config("debug").as_ref()).unwrap();
        let error = Baseline::record_into(&path, None, None, |_| unreachable!("not recorded")).unwrap_err();
        assert!(
            error
                .to_string()
                .ends_with("known.json: its entries name configurations (debug, release); record it with a configuration (--config NAME, Harness::config)"),
            "{error}"
        );
    }
}
