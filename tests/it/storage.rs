//! Declared storage narrowing, end to end: a data set whose values the narrower type cannot
//! hold is unsupported before any request; every other one reaches an exec worker as the
//! same request, with the same input bytes, as without the declaration.

use std::collections::BTreeSet;
use std::path::Path;

use crate::support;

use support::files::{run, testdata};

/// A worker that records each request — its id left out (a sequence number), the scratch
/// directory's unpredictable name replaced — with the checksum of each input file it names,
/// one line per request, then refuses it.
const RECORDER: &str = r#"
read -r hello
printf '%s\n' '{"type":"hello","version":1,"name":"recorder"}'
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed 's/.*"id": *\([0-9]*\).*/\1/')
  inputs=$(printf '%s' "$line" | sed 's/.*"inputs": *\[\([^]]*\)\].*/\1/' | tr -d '"' | tr ',' ' ')
  sums=$(for f in $inputs; do cksum < "$f"; done | tr '\n' ' ')
  request=$(printf '%s' "$line" | sed -E 's/"id": *[0-9]+/"id":_/; s#"[^"]*pad-conformance-[^"/]*/#"SCRATCH/#g')
  printf '%s\t%s\n' "$request" "$sums" >> "$LOG"
  printf '{"type":"error","id":%s,"kind":"refused","message":"recorded"}\n' "$id"
done
"#;

/// The requests the recorder saw in a run of `profile` (none: no profile) over the int64
/// and double cases of Pad-11, and the run's standard output.
fn requests(dir: &Path, profile: Option<&str>) -> (BTreeSet<String>, String) {
    let log = dir.join(format!("requests-{}.log", profile.is_some()));
    let worker = dir.join("recorder.sh");
    std::fs::write(&worker, RECORDER.replace("\"$LOG\"", &format!("'{}'", log.display()))).unwrap();
    let backend = format!("exec:sh {}", worker.display());
    let mut args = vec!["--backend", &backend, "--jobs", "1"];
    args.extend([
        "--pattern",
        "test_ext_pad11_*_double_*",
        "--pattern",
        "test_ext_pad11_constant_int64_*",
    ]);
    let written = dir.join("profile.toml");
    if let Some(text) = profile {
        std::fs::write(&written, text).unwrap();
        args.extend(["--profile", written.to_str().unwrap()]);
    }
    let extended = testdata("extended");
    args.push(extended.to_str().unwrap());
    let out = run(&args);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let recorded = std::fs::read_to_string(&log).unwrap_or_default();
    (recorded.lines().map(str::to_owned).collect(), stdout)
}

#[test]
fn data_sets_whose_values_fit_reach_the_worker_unchanged_and_the_others_not_at_all() {
    let dir = tempfile::tempdir().unwrap();
    let (all, _) = requests(dir.path(), None);
    let (narrowed, stdout) = requests(dir.path(), Some("[storage]\nint64 = \"int32\"\ndouble = \"float\"\n"));
    let unsupported: Vec<&str> = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("UNSUP "))
        .filter_map(|line| line.split('/').next())
        .collect();
    // Both kinds are there: some data sets fit, some do not.
    assert!(
        unsupported.contains(&"test_ext_pad11_constant_int64_narrow_beyond_32_bits"),
        "{stdout}"
    );
    assert!(
        stdout.contains("value range: input \"x\" holds 1e300 at index 0, which float storage cannot hold exactly"),
        "{stdout}"
    );
    assert!(
        narrowed
            .iter()
            .any(|r| r.contains("test_ext_pad11_constant_double_r1/")),
        "{narrowed:?}"
    );
    assert!(
        narrowed
            .iter()
            .any(|r| r.contains("test_ext_pad11_constant_int64_empty_0/")),
        "{narrowed:?}"
    );
    // Each request the declaration lets through is one the run without it made, byte for byte
    // (inputs included); the ones it keeps back are exactly the unsupported data sets.
    let kept: BTreeSet<String> = all
        .iter()
        .filter(|r| !unsupported.iter().any(|case| r.contains(&format!("/{case}/"))))
        .cloned()
        .collect();
    assert_eq!(narrowed, kept);
    assert!(
        narrowed.len() >= 5 && all.len() > narrowed.len() + 5,
        "{} of {}",
        narrowed.len(),
        all.len()
    );
}
