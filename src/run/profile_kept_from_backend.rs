//! Every data set a profile excludes is kept from the backend, key by key: a profile of each
//! key is run, as a run runs it, over data sets of the bundled corpus it excludes and some it
//! keeps, on a backend that records what it is handed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::backend::{Backend, BackendError, Driven};
use crate::cancel::Cancel;
use crate::case::{Expected, Patterns, TestCase, discover};
use crate::judge::check::CheckOptions;
use crate::judge::profile::{InputRole, Profile, ProfileKey};
use crate::model::Model;
use crate::run::runner::{Job, run_jobs};
use crate::tensor::{DEFAULT_MAX_BYTES, Tensor};

/// The fuzz case whose int4 data once reached a worker under `dtypes = ["float"]`: its mode
/// no version defines made its subject unreadable, and an unreadable subject passed.
const INT4_UNKNOWN_MODE: &str = "fuzz/test_fuzz_accepts-forbidden_breaks-unknown-mode_67bd4112_pad/0";

/// Every key a data set can be excluded by.
const KEYS: [ProfileKey; 16] = [
    ProfileKey::MaxIrVersion,
    ProfileKey::MaxOpset,
    ProfileKey::SingleNode,
    ProfileKey::Operators,
    ProfileKey::Dtypes,
    ProfileKey::Ranks,
    ProfileKey::MaxRank,
    ProfileKey::Modes,
    ProfileKey::Input(InputRole::Pads),
    ProfileKey::Input(InputRole::ConstantValue),
    ProfileKey::Input(InputRole::Axes),
    ProfileKey::Input(InputRole::Shape),
    ProfileKey::ModeAxes,
    ProfileKey::Except,
    ProfileKey::EmptyTensors,
    ProfileKey::Storage,
];

/// A profile file that sets `key` alone, so as to exclude some of the corpus and keep the
/// rest. A key added to [`ProfileKey`] fails to compile here until it has one.
fn profile_of(key: ProfileKey) -> &'static str {
    match key {
        ProfileKey::MaxIrVersion => "max_ir_version = 8",
        ProfileKey::MaxOpset => "[max_opset]\n\"ai.onnx\" = 18",
        ProfileKey::SingleNode => "single_node = true",
        ProfileKey::Operators => "operators = [\"Pad-11\", \"Pad-13\"]",
        ProfileKey::Dtypes => "dtypes = [\"float\"]",
        ProfileKey::Ranks => "ranks = [1, 2]",
        ProfileKey::MaxRank => "max_rank = 2",
        ProfileKey::Modes => "modes = [\"constant\", \"edge\"]",
        ProfileKey::Input(InputRole::Pads) => "[inputs]\npads = { min = 0 }",
        ProfileKey::Input(InputRole::ConstantValue) => "[inputs]\nconstant_value = \"absent\"",
        ProfileKey::Input(InputRole::Axes) => "[inputs]\naxes = \"absent\"",
        ProfileKey::Input(InputRole::Shape) => "[inputs]\nshape = { max = 3 }",
        ProfileKey::ModeAxes => "[[mode_axes]]\nmodes = [\"reflect\"]\naxes = [-1]",
        ProfileKey::Except => "[[except]]\nmodes = [\"wrap\"]\nreason = \"no wrap kernel\"",
        ProfileKey::EmptyTensors => "empty_tensors = false",
        ProfileKey::Storage => "[storage]\ndouble = \"float\"",
    }
}

/// A backend that records the model file and inputs of every data set it is asked to run,
/// and answers nothing.
#[derive(Default)]
struct Recording(Mutex<Vec<(PathBuf, Vec<Tensor>)>>);

impl Backend for Recording {
    fn name(&self) -> &str {
        "recording"
    }

    fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        self.0.lock().unwrap().push((model.path.clone(), inputs.to_vec()));
        Ok(Vec::new())
    }
}

impl Driven for Recording {}

/// One data set of the corpus, loaded.
struct Loaded<'c> {
    job: Job<'c>,
    model: Model,
    inputs: Vec<Tensor>,
    expected: Vec<Tensor>,
}

fn load(cases: &[TestCase]) -> Vec<Loaded<'_>> {
    let mut loaded = Vec::new();
    for case in cases {
        let options = case.decode_options(DEFAULT_MAX_BYTES);
        let Ok(model) = case.runnable_model(&options) else {
            continue;
        };
        for (index, data_set) in case.data_sets.iter().enumerate() {
            let Ok(data) = case.load_data_set(data_set, &options) else {
                continue;
            };
            let expected = match data.expected {
                Expected::Outputs(outputs) => outputs,
                Expected::Error(_) => Vec::new(),
            };
            loaded.push(Loaded {
                job: Job { case, data_set: index },
                model: model.clone(),
                inputs: data.inputs,
                expected,
            });
        }
    }
    loaded
}

/// The same tensors, bit for bit (a NaN equals itself; strings by value).
fn same(a: &[Tensor], b: &[Tensor]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(a, b)| {
            a.data_type() == b.data_type()
                && a.shape() == b.shape()
                && (a == b || matches!((a.raw_bytes(), b.raw_bytes()), (Ok(x), Ok(y)) if x == y))
        })
}

/// The name of the data set the backend was handed `inputs` of the model at `path` for.
fn recorded_name(loaded: &[Loaded<'_>], path: &Path, inputs: &[Tensor]) -> String {
    loaded
        .iter()
        .find(|l| Some(l.job.case.dir.as_path()) == path.parent() && same(&l.inputs, inputs))
        .map(|l| l.job.name())
        .unwrap_or_else(|| panic!("the backend was handed {} with inputs of no data set", path.display()))
}

#[test]
fn no_data_set_a_profile_excludes_reaches_the_backend_whichever_key_excludes_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata");
    let cases = discover(&[root], &Patterns::default()).unwrap();
    let loaded = load(&cases);
    assert!(loaded.len() > 1000, "{} data sets loaded", loaded.len());
    let dir = crate::data::scratch_dir().unwrap();
    for key in KEYS {
        let path = dir.path().join(format!("{key}.toml"));
        std::fs::write(&path, profile_of(key)).unwrap();
        let profile = Profile::read(&path).unwrap_or_else(|e| panic!("{e}"));
        let mut excluded = Vec::new();
        let mut kept = BTreeSet::new();
        let mut selected = Vec::new();
        for l in &loaded {
            match profile.excludes_data_set(&l.model, &l.inputs, &l.expected) {
                Some(unsupported) => {
                    assert_eq!(unsupported.key(), key, "{}: {}", l.job.name(), unsupported.reason());
                    excluded.push(l.job);
                }
                // A few of those it keeps: what the backend must still be handed.
                None if kept.len() < 12 => {
                    kept.insert(l.job.name());
                    selected.push(l.job);
                }
                None => {}
            }
        }
        assert!(!excluded.is_empty(), "{key} excludes nothing of the corpus");
        // Some 40 of those it excludes, spread over the corpus, and the int4 case always: a
        // run of every one under every key would cost seconds.
        let step = excluded.len().div_ceil(40);
        let sample = excluded
            .iter()
            .enumerate()
            .filter(|(i, job)| i % step == 0 || job.name() == INT4_UNKNOWN_MODE)
            .map(|(_, job)| *job);
        selected.extend(sample);
        let excluded: BTreeSet<String> = excluded.iter().map(Job::name).collect();
        if key == ProfileKey::Dtypes {
            assert!(excluded.contains(INT4_UNKNOWN_MODE), "{key} keeps {INT4_UNKNOWN_MODE}");
            assert!(selected.iter().any(|job| job.name() == INT4_UNKNOWN_MODE));
        }
        let backend = Recording::default();
        let options = CheckOptions {
            profile,
            ..CheckOptions::default()
        };
        let report = run_jobs(&backend, &selected, &options, 2, &Cancel::new(), &mut |_| {});
        assert_eq!(report.outcomes.len(), selected.len());
        let recorded: BTreeSet<String> = backend
            .0
            .into_inner()
            .unwrap()
            .iter()
            .map(|(path, inputs)| recorded_name(&loaded, path, inputs))
            .collect();
        let reached: Vec<&String> = recorded.intersection(&excluded).collect();
        assert!(
            reached.is_empty(),
            "{key}: excluded, yet handed to the backend: {reached:?}"
        );
        // What it keeps, and that alone, is run: the run applied the profile, not an empty one.
        assert!(!recorded.is_empty(), "{key}: nothing reached the backend");
        assert_eq!(recorded, kept, "{key}");
    }
}
