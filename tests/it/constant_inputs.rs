//! Constant-input mode: a backend that takes pads, constant_value, axes and shape only as
//! constants runs the same data sets when the runner makes them initializers.

use pad_conformance::testing::{CheckOptions, Driven, Patterns, Status, check_data_set, discover};
use pad_conformance::{Backend, BackendError, InputLimits, InputRole, Model, Profile, RefBackend, Tensor};

/// Like tract: anything but the data as a graph input is refused.
struct ConstantsOnly;

impl Backend for ConstantsOnly {
    fn name(&self) -> &str {
        "constants-only"
    }

    fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        if model.graph.inputs.len() > 1 {
            return Err(format!("{:?} must be constants", &model.graph.inputs[1..]).into());
        }
        // The file the model was read from holds the constants too.
        let reread = pad_conformance::testing::read_model(&model.path, &Default::default())?;
        assert_eq!(reread.graph.inputs.len(), 1);
        RefBackend.run(model, inputs)
    }
}

impl Driven for ConstantsOnly {}

fn statuses(options: &CheckOptions) -> Vec<(String, Status)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata/onnx-1.22.0");
    let cases = discover(&[root], &Patterns::default()).unwrap();
    cases
        .iter()
        .flat_map(|case| case.job_indices().map(move |i| (case, i)))
        .map(|(case, i)| {
            let outcome = check_data_set(&ConstantsOnly, case, i, options);
            (outcome.name(), outcome.status())
        })
        .collect()
}

#[test]
fn constant_inputs_let_a_constants_only_backend_run_every_case() {
    let plain = statuses(&CheckOptions::default());
    let errored = plain.iter().filter(|(_, s)| *s == Status::Errored).count();
    assert_eq!(errored, 18, "the node cases feed pads or shape as inputs: {plain:?}");
    let constant = CheckOptions {
        inputs_as_constants: true,
        ..CheckOptions::default()
    };
    let folded = statuses(&constant);
    assert_eq!(folded.len(), plain.len());
    assert!(folded.iter().all(|(_, s)| *s == Status::Passed), "{folded:?}");
    // A profile that says so does the same.
    let profiled = CheckOptions {
        profile: Profile::everything().constant_inputs_only(),
        ..CheckOptions::default()
    };
    assert_eq!(statuses(&profiled), folded);
}

/// Like a runtime that plans shapes first but takes its fill value at run time: pads and
/// axes must be initializers, and the constant value must stay a graph input.
struct PadsConstantValueFed;

impl Backend for PadsConstantValueFed {
    fn name(&self) -> &str {
        "pads-constant-value-fed"
    }

    fn run(&self, model: &Model, inputs: &[Tensor]) -> Result<Vec<Tensor>, BackendError> {
        let (node, _) = model.pad_nodes().next().ok_or("no Pad-family node")?;
        for (position, name) in node.inputs.iter().enumerate().skip(1).filter(|(_, n)| !n.is_empty()) {
            let fed = model.graph.inputs.contains(name);
            // Input 2 is the constant value.
            if fed != (position == 2) {
                return Err(format!("input {position} ({name}) fed: {fed}").into());
            }
        }
        RefBackend.run(model, inputs)
    }
}

impl Driven for PadsConstantValueFed {}

#[test]
fn input_forms_fold_the_inputs_they_name_and_leave_the_others_fed() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata/onnx-1.22.0");
    let cases = discover(&[root], &Patterns::new(&["test_constant_pad*"]).unwrap()).unwrap();
    let check = |options: &CheckOptions| -> Vec<Status> {
        cases
            .iter()
            .flat_map(|case| case.job_indices().map(move |i| (case, i)))
            .map(|(case, i)| check_data_set(&PadsConstantValueFed, case, i, options).status())
            .collect()
    };
    // x, pads, value (and axes): as the cases have them, pads is fed, and refused.
    assert_eq!(check(&CheckOptions::default()), [Status::Errored; 3]);
    let forms = CheckOptions {
        profile: Profile::everything()
            .input(InputRole::Pads, InputLimits::initializer())
            .input(InputRole::Axes, InputLimits::initializer()),
        ..CheckOptions::default()
    };
    assert_eq!(check(&forms), [Status::Passed; 3]);
    // Every input made constant takes the value away from the graph's inputs: refused again.
    let all = CheckOptions {
        profile: Profile::everything().constant_inputs_only(),
        ..CheckOptions::default()
    };
    assert_eq!(check(&all), [Status::Errored; 3]);
}
