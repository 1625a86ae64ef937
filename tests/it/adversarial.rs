//! The adversarial regression suite: hostile inputs made here (in a temporary directory,
//! nothing committed), each run beside a good case through the library. For each: no panic,
//! no hang, an errored entry whose message names the file and the field or value, and the
//! good case still passing. Misbehaving exec workers are in `adversarial/workers.rs`.

mod catalogue;
mod workers;

use std::collections::BTreeMap;
use std::path::Path;

use pad_conformance::RefBackend;
use pad_conformance::testing::{Cancel, CheckOptions, Outcome, Patterns, Status, discover, jobs, run_jobs};
#[cfg(unix)]
use pad_conformance::testing::{Colors, write_outcome};

use catalogue::{Expect, Hostile};

use crate::support::good_case::{GOOD, copy_good};

/// Runs every case under `root` with the ref backend; outcomes by data set name.
fn run_all(root: &Path) -> BTreeMap<String, Outcome> {
    let cases = discover(&[root.to_owned()], &Patterns::default()).unwrap();
    let jobs = jobs(&cases);
    let report = run_jobs(
        &RefBackend,
        &jobs,
        &CheckOptions::default(),
        2,
        &Cancel::new(),
        &mut |_| {},
    );
    let mut by_name = BTreeMap::new();
    for outcome in report.outcomes {
        let previous = by_name.insert(outcome.name(), outcome);
        assert!(previous.is_none(), "two outcomes share a name");
    }
    by_name
}

#[test]
fn every_hostile_input_errors_alone_with_a_message_naming_the_file_and_field() {
    let hostile: Vec<Hostile> = catalogue::all();
    assert!(hostile.len() >= 100, "only {} hostile inputs", hostile.len());
    each_errors_alone_as_expected(&hostile);
}

// Fifty thousand names of each kind, through the whole runner: a step of .ci/run, not of
// `cargo test` (which runs them at 5,000 in the catalogue).
#[test]
#[ignore = "slow: run by .ci/run"]
fn fifty_thousand_initializers_listed_as_inputs_and_op_types_run_as_expected() {
    each_errors_alone_as_expected(&catalogue::many_names(50_000));
}

/// Runs `hostile` beside the good case: the good case passes, and each hostile input gets its
/// expected status with a message naming every expected part.
fn each_errors_alone_as_expected(hostile: &[Hostile]) {
    let root = pad_conformance::testing::scratch_dir().unwrap();
    copy_good(root.path(), GOOD);
    for (i, h) in hostile.iter().enumerate() {
        let dir = root.path().join(format!("test_h{i:03}_{}_pad", h.label));
        (h.build)(&dir);
    }
    let outcomes = run_all(root.path());
    assert_eq!(outcomes[&format!("{GOOD}/0")].status(), Status::Passed);
    let mut wrong = Vec::new();
    for (i, h) in hostile.iter().enumerate() {
        let id = format!("test_h{i:03}_{}_pad", h.label);
        let mine: Vec<&Outcome> = outcomes.values().filter(|o| o.id() == id).collect();
        if mine.is_empty() {
            wrong.push(format!("{id}: vanished (no outcome)"));
            continue;
        }
        for outcome in mine {
            let (status, parts) = match &h.expect {
                Expect::Errored(parts) => (Status::Errored, parts),
                Expect::Skipped(parts) => (Status::Skipped, parts),
                Expect::Passed => (Status::Passed, &Vec::new()),
            };
            let missing: Vec<&String> = parts
                .iter()
                .filter(|p| !outcome.message().contains(p.as_str()))
                .collect();
            if outcome.status() != status || !missing.is_empty() {
                wrong.push(format!(
                    "{}: {:?} (expected {status:?}), missing {missing:?} in {:?}",
                    outcome.name(),
                    outcome.status(),
                    first_chars(&outcome.message(), 600)
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{} wrong:\n{}", wrong.len(), wrong.join("\n"));
}

fn first_chars(text: &str, n: usize) -> String {
    text.chars().take(n).collect()
}

// 5,000 data sets: a step of .ci/run, not of `cargo test`.
#[test]
#[ignore = "slow: run by .ci/run"]
fn thousands_of_empty_data_sets_each_error_and_the_model_is_read_once() {
    let root = pad_conformance::testing::scratch_dir().unwrap();
    copy_good(root.path(), GOOD);
    let dir = copy_good(root.path(), "test_many_data_sets_pad");
    for n in 1..5000 {
        std::fs::create_dir(dir.join(format!("test_data_set_{n}"))).unwrap();
    }
    let outcomes = run_all(root.path());
    assert_eq!(outcomes[&format!("{GOOD}/0")].status(), Status::Passed);
    assert_eq!(outcomes["test_many_data_sets_pad/0"].status(), Status::Passed);
    let empty = &outcomes["test_many_data_sets_pad/4999"];
    assert_eq!(empty.status(), Status::Errored);
    assert!(
        empty
            .message()
            .contains("test_data_set_4999: 0 input_K.pb files for 2 graph inputs"),
        "{}",
        empty.message()
    );
    assert_eq!(outcomes.len(), 5001);
}

#[cfg(unix)]
#[test]
fn names_that_are_not_utf8_keep_distinct_ids_and_forged_names_print_escaped() {
    use std::os::unix::ffi::OsStrExt;
    let root = pad_conformance::testing::scratch_dir().unwrap();
    copy_good(root.path(), std::ffi::OsStr::from_bytes(b"test_\xff_pad"));
    copy_good(root.path(), std::ffi::OsStr::from_bytes(b"test_\xfe_pad"));
    copy_good(root.path(), "test_x\nPASS  forged  Pad-25\x1b[2K_pad");
    let outcomes = run_all(root.path());
    let names: Vec<&String> = outcomes.keys().collect();
    assert_eq!(
        names,
        [
            "test_\\xfe_pad/0",
            "test_\\xff_pad/0",
            "test_x\nPASS  forged  Pad-25\x1b[2K_pad/0"
        ]
    );
    assert!(outcomes.values().all(|o| o.status() == Status::Passed));
    let forged = &outcomes["test_x\nPASS  forged  Pad-25\x1b[2K_pad/0"];
    let mut line = Vec::new();
    write_outcome(forged, None, Colors::Never, &mut line).unwrap();
    let line = String::from_utf8(line).unwrap();
    assert_eq!(line.lines().count(), 1, "{line:?}");
    assert!(
        line.starts_with("PASS  test_x\\nPASS  forged  Pad-25\\u{1b}[2K_pad/0  Pad-25"),
        "{line:?}"
    );
}

#[test]
fn a_data_set_whose_files_add_up_past_the_limit_is_refused_before_reading() {
    // Three sparse files of 1.5 GiB: each within the 2 GiB tensor limit, 4.5 GiB together.
    let root = pad_conformance::testing::scratch_dir().unwrap();
    copy_good(root.path(), GOOD);
    let dir = copy_good(root.path(), "test_sparse_pad");
    for file in ["input_0.pb", "input_1.pb", "output_0.pb"] {
        let f = std::fs::File::create(dir.join("test_data_set_0").join(file)).unwrap();
        f.set_len(3 << 29).unwrap();
    }
    let outcomes = run_all(root.path());
    assert_eq!(outcomes[&format!("{GOOD}/0")].status(), Status::Passed);
    let sparse = &outcomes["test_sparse_pad/0"];
    assert_eq!(sparse.status(), Status::Errored);
    let output: std::path::PathBuf = ["test_sparse_pad", "test_data_set_0", "output_0.pb"].iter().collect();
    assert!(
        sparse.message().contains(&output.display().to_string()),
        "{}",
        sparse.message()
    );
    assert!(
        sparse.message().contains(
            "with the files listed before it, 4831838208 bytes, over the limit of 4296015872 bytes for one data set"
        ),
        "{}",
        sparse.message()
    );
}
