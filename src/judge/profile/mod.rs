//! Capability profiles: what a backend claims to support — operator versions, element types,
//! ranks of the data, modes, the axes a mode may pad, single-node graphs only, empty tensors
//! or not, and for each input after the data (pads, constant_value,
//! axes, shape) whether it takes it as a runtime input, only as an initializer or not at all,
//! of which ranks and within which values, and which element types it keeps in narrower ones
//! (storage.rs). Data sets outside the profile are `unsupported`:
//! counted and listed, never failed, so a baseline lists real failures, not a runtime's whole
//! scope. A profile says what a runtime supports, never how close its answers must be: the
//! tolerance is the comparison's.
//!
//! For exec workers a profile is a TOML file (beside the baseline); for Rust backends, a
//! builder:
//!
//! ```
//! use pad_conformance::{InputLimits, InputRole, Profile};
//! use pad_conformance::PadMode;
//! use pad_conformance::DataType;
//!
//! let profile = Profile::everything()
//!     .without_modes([PadMode::Wrap])
//!     // pads only as an initializer, and never negative; no axes input at all
//!     .input(InputRole::Pads, InputLimits::initializer().within(0, i32::MAX.into()))
//!     .input(InputRole::Axes, InputLimits::absent())
//!     // reflect pads the last two axes only
//!     .mode_axes([PadMode::Reflect], [-2, -1])
//!     // int64 kept as int32: a data set holding an int64 beyond it is unsupported
//!     .storage(DataType::Int64, DataType::Int32);
//!
//! // The same profile as a file (`--profile`, docs/report-format.md#profiles):
//! let file = tempfile::NamedTempFile::new()?;
//! std::fs::write(file.path(), r#"
//!     modes = ["constant", "reflect", "edge"]
//!     [inputs]
//!     pads = { form = "initializer", min = 0, max = 2147483647 }
//!     axes = "absent"
//!     [[mode_axes]]
//!     modes = ["reflect"]
//!     axes = [-2, -1]
//!     [storage]
//!     int64 = "int32"
//! "#)?;
//! assert_eq!(Profile::read(file.path())?, profile);
//! assert_ne!(profile.clone().without_dtypes([DataType::String]), profile);
//!
//! let harness = pad_conformance::Harness::new(pad_conformance::RefBackend).profile(profile);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod error;
mod file;
mod format_limits;
mod input_role;
mod inputs;
mod matcher;
mod storage;
mod subject;
mod unsupported;

use std::collections::{BTreeMap, BTreeSet};

pub use error::ProfileError;
use format_limits::FormatLimits;
pub use input_role::InputRole;
pub use inputs::InputLimits;
use inputs::{InputForm, ModeAxes};
use matcher::{Exception, Key, Matchers};
use storage::{Place, Storage};
pub(crate) use subject::Subject;
use subject::Unread;
pub(crate) use unsupported::{ProfileKey, Unsupported};

use crate::model::{AttributeValue, Model};
use crate::operators::{ModeAttribute, OpVersion, PadMode};
use crate::tensor::{DataType, Tensor};

/// What a backend supports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Profile {
    /// The operator versions it supports; `None`: all.
    pub(crate) operators: Option<BTreeSet<OpVersion>>,
    /// The element types of the data input it supports; `None`: all.
    pub(crate) dtypes: Option<BTreeSet<DataType>>,
    /// The ranks of the data input it supports; `None`: all.
    pub(crate) ranks: Option<BTreeSet<usize>>,
    /// The highest rank of the data input it supports; `None`: any.
    pub(crate) max_rank: Option<usize>,
    /// The modes it supports; `None`: all.
    pub(crate) modes: Option<BTreeSet<PadMode>>,
    /// It runs only graphs of one node, the Pad-family node (`single_node = true`): a case
    /// whose graph has helper nodes (a function body expanded) is unsupported.
    pub(crate) single_node: bool,
    /// It supports no empty tensor (`empty_tensors = false`): a data set handing over, holding
    /// as a constant or expecting back a tensor with a zero-sized dimension is unsupported.
    pub(crate) without_empty_tensors: bool,
    /// Combinations it does not support, each with a reason, as read ([`Profile::exceptions`]).
    exceptions: Vec<Exception>,
    /// The exceptions matched in one step each, and the first of them each subject matches:
    /// lookups stay constant-time however many exceptions a profile lists.
    matchers: Matchers,
    /// It takes pads, constant_value, axes and shape only as constants (initializers), so
    /// every data set is run with its inputs after the data made constants: every input's
    /// form `initializer`, as profiles said before they could say it input by input.
    pub(crate) inputs_as_constants: bool,
    /// What it supports of each input after the data; an input not listed: anything.
    pub(crate) inputs: BTreeMap<InputRole, InputLimits>,
    /// Modes it supports on some axes only.
    pub(crate) mode_axes: Vec<ModeAxes>,
    /// The newest IR version and opsets it reads.
    pub(crate) format: FormatLimits,
    /// The element types it keeps in narrower ones: a data set holding a value they cannot
    /// hold is unsupported (value range).
    pub(crate) storage: Storage,
    /// The sha256 of the file it was read from: how a report names the profile it ran under.
    pub(crate) digest: SourceDigest,
}

/// Where a profile was read from, which is no part of what it means: any two compare equal,
/// so a profile read from a file equals the same profile built.
#[derive(Clone, Debug, Default)]
pub(crate) struct SourceDigest(pub(crate) Option<String>);

impl PartialEq for SourceDigest {
    fn eq(&self, _: &SourceDigest) -> bool {
        true
    }
}

impl Eq for SourceDigest {}

impl Profile {
    /// A backend that supports everything: the default.
    pub fn everything() -> Profile {
        Profile::default()
    }

    /// Supports only these operator versions.
    pub fn operators(mut self, operators: impl IntoIterator<Item = OpVersion>) -> Profile {
        self.operators = Some(operators.into_iter().collect());
        self
    }

    /// Does not support these element types.
    pub fn without_dtypes(mut self, dtypes: impl IntoIterator<Item = DataType>) -> Profile {
        let mut kept: BTreeSet<DataType> = self.dtypes.unwrap_or_else(|| DataType::ALL.into_iter().collect());
        for dtype in dtypes {
            kept.remove(&dtype);
        }
        self.dtypes = Some(kept);
        self
    }

    /// Does not support these modes.
    pub fn without_modes(mut self, modes: impl IntoIterator<Item = PadMode>) -> Profile {
        let mut kept: BTreeSet<PadMode> = self.modes.unwrap_or_else(|| PadMode::ALL.into_iter().collect());
        for mode in modes {
            kept.remove(&mode);
        }
        self.modes = Some(kept);
        self
    }

    /// Supports data inputs of these ranks only (`ranks` in a file).
    pub fn data_ranks(mut self, ranks: impl IntoIterator<Item = usize>) -> Profile {
        self.ranks = Some(ranks.into_iter().collect());
        self
    }

    /// Supports data inputs of rank `rank` at most (`max_rank` in a file).
    pub fn max_rank(mut self, rank: usize) -> Profile {
        self.max_rank = Some(rank);
        self
    }

    /// Runs only models whose graph is the Pad-family node alone (`single_node = true`).
    pub fn single_node_only(mut self) -> Profile {
        self.single_node = true;
        self
    }

    /// Supports no empty tensor (`empty_tensors = false`): a data set whose inputs,
    /// constants or expected outputs include a tensor with a zero-sized dimension is
    /// unsupported.
    pub fn without_empty_tensors(mut self) -> Profile {
        self.without_empty_tensors = true;
        self
    }

    /// Takes pads, constant_value, axes and shape only as constants.
    pub fn constant_inputs_only(mut self) -> Profile {
        self.inputs_as_constants = true;
        self
    }

    /// Supports the input of `role` within `limits` only.
    pub fn input(mut self, role: InputRole, limits: InputLimits) -> Profile {
        self.inputs.insert(role, limits);
        self
    }

    /// Supports `modes` padding `axes` only (negative: from the last; `[-2, -1]`: the last
    /// two).
    pub fn mode_axes(
        mut self,
        modes: impl IntoIterator<Item = PadMode>,
        axes: impl IntoIterator<Item = i64>,
    ) -> Profile {
        self.mode_axes.push(ModeAxes {
            modes: modes.into_iter().collect(),
            axes: axes.into_iter().collect(),
        });
        self
    }

    /// Reads models of IR version `version` at most: a newer one is unsupported (the runtime
    /// is older than the model), decided before running anything.
    pub fn max_ir_version(mut self, version: i64) -> Profile {
        self.format.max_ir_version = Some(version);
        self
    }

    /// Reads opset `version` of `domain` (`"ai.onnx"` or `""`, `"com.microsoft"`) at most: a
    /// model importing a newer one is unsupported, decided before running anything.
    pub fn max_opset(mut self, domain: &str, version: i64) -> Profile {
        self.format
            .max_opsets
            .insert(crate::family::normalize_domain(domain).to_owned(), version);
        self
    }

    /// Keeps element type `wide` as `narrow` (int64 as int32, double as float, float as
    /// float16 or bfloat16; `[storage]` in a file): a data set whose inputs, constants or
    /// expected outputs hold a value of `wide` that `narrow` cannot hold exactly is
    /// unsupported (value range), decided before the backend runs; every other data set runs
    /// as it would without it. Declaring `wide` again replaces its narrowing.
    pub fn storage(mut self, wide: DataType, narrow: DataType) -> Profile {
        self.storage.insert(wide, narrow);
        self
    }

    /// Refuses a profile whose builder calls leave every data set unsupported, as
    /// [`Profile::read`] refuses such a file: none left of the operators, element types or
    /// modes, or an input limited to no rank or to an empty range; and a storage narrowing
    /// that is none the runner judges (int64 as float).
    pub(crate) fn check_built(&self) -> Result<(), ProfileError> {
        if let Some((wide, narrow, why)) = self.storage.first_refused() {
            return Err(ProfileError::BuiltNarrowing { wide, narrow, why });
        }
        let refuse = |field: &str, value: String| {
            Err(ProfileError::BuiltExcludesEverything {
                field: field.to_owned(),
                value,
            })
        };
        for (field, empty) in [
            ("operators", self.operators.as_ref().is_some_and(BTreeSet::is_empty)),
            ("dtypes", self.dtypes.as_ref().is_some_and(BTreeSet::is_empty)),
            ("ranks", self.ranks.as_ref().is_some_and(BTreeSet::is_empty)),
            ("modes", self.modes.as_ref().is_some_and(BTreeSet::is_empty)),
        ] {
            if empty {
                return refuse(field, "[]".to_owned());
            }
        }
        if let Some(version) = self.format.max_ir_version
            && version < 1
        {
            return refuse("max_ir_version", version.to_string());
        }
        if let Some((domain, version)) = self.format.max_opsets.iter().find(|(_, v)| **v < 1) {
            return refuse(&format!("max_opset.{domain:?}"), version.to_string());
        }
        for (role, limits) in &self.inputs {
            if limits.ranks.as_ref().is_some_and(BTreeSet::is_empty) {
                return refuse(&format!("inputs.{role}.ranks"), "[]".to_owned());
            }
            if let (Some(min), Some(max)) = (limits.min, limits.max)
                && min > max
            {
                return refuse(&format!("inputs.{role}"), format!("{{ min = {min}, max = {max} }}"));
            }
        }
        Ok(())
    }

    /// Whether it takes some input only as an initializer, so that data sets are handed over
    /// rewritten (a model file written).
    pub(crate) fn folds_inputs(&self) -> bool {
        self.inputs_as_constants || self.inputs.values().any(|l| l.form == InputForm::Initializer)
    }

    /// The graph inputs of `model` to hand the backend as initializers: every one after the
    /// data under [`inputs_as_constants`](Profile::inputs_as_constants), else those its
    /// Pad-family node takes in a role of form [`InputForm::Initializer`] — or, when the node
    /// computes that input from others (a function body expanded, as in CenterCropPad's
    /// `_expanded` cases), the graph inputs after the data it is computed from.
    pub(crate) fn initializer_inputs(&self, model: &Model) -> Vec<String> {
        if self.inputs_as_constants {
            return model.graph.inputs.iter().skip(1).cloned().collect();
        }
        let Some((node, op)) = model.pad_nodes().next() else {
            return Vec::new();
        };
        let wanted: Vec<&str> = node
            .inputs
            .iter()
            .enumerate()
            .skip(1)
            .filter(|(position, name)| {
                !name.is_empty()
                    && InputRole::at(op, *position)
                        .and_then(|role| self.inputs.get(&role))
                        .is_some_and(|limits| limits.form == InputForm::Initializer)
            })
            .map(|(_, name)| name.as_str())
            .collect();
        let sources = graph_inputs_behind(model, &wanted);
        model
            .graph
            .inputs
            .iter()
            .skip(1)
            .filter(|name| sources.contains(name.as_str()))
            .cloned()
            .collect()
    }

    /// Why `subject` is outside the profile, if it is.
    pub(crate) fn excludes(&self, subject: &Subject) -> Option<Unsupported> {
        // First: a runtime older than the model cannot say anything about the operator in it.
        if let Some(too_new) = self.format.excludes(subject.ir_version, &subject.opsets) {
            return Some(too_new);
        }
        if self.single_node && subject.nodes != 1 {
            return Some(Unsupported::Excluded(
                ProfileKey::SingleNode,
                format!("a graph of {} nodes, not the Pad-family node alone", subject.nodes),
            ));
        }
        if let Some(operators) = &self.operators
            && !operators.contains(&subject.operator)
        {
            return Some(Unsupported::Excluded(
                ProfileKey::Operators,
                format!("operator {}", label(subject.operator)),
            ));
        }
        if let Some(dtypes) = &self.dtypes
            && !dtypes.contains(&subject.dtype)
        {
            return Some(Unsupported::Excluded(
                ProfileKey::Dtypes,
                format!("element type {}", subject.dtype),
            ));
        }
        if let Some(ranks) = &self.ranks
            && !ranks.contains(&subject.rank)
        {
            let listed: Vec<String> = ranks.iter().map(usize::to_string).collect();
            return Some(Unsupported::Excluded(
                ProfileKey::Ranks,
                format!("data of rank {} (supported ranks: {})", subject.rank, listed.join(", ")),
            ));
        }
        if let Some(max) = self.max_rank
            && subject.rank > max
        {
            return Some(Unsupported::Excluded(
                ProfileKey::MaxRank,
                format!("rank {} is above max_rank {max}", subject.rank),
            ));
        }
        if let (Some(modes), Some(mode)) = (&self.modes, &subject.mode) {
            match mode {
                ModeAttribute::Mode(mode) if !modes.contains(mode) => {
                    return Some(Unsupported::Excluded(ProfileKey::Modes, format!("mode {mode}")));
                }
                // A spelling no version defines is none of the modes listed.
                ModeAttribute::Unknown(name) => {
                    return Some(Unsupported::Excluded(
                        ProfileKey::Modes,
                        format!("mode {name:?}, which no operator version defines"),
                    ));
                }
                _ => {}
            }
        }
        if let Some(unsupported) = self
            .inputs
            .iter()
            .find_map(|(role, limits)| limits.excludes(*role, subject))
        {
            return Some(unsupported);
        }
        if let Some(unsupported) = self.mode_axes.iter().find_map(|limit| limit.excludes(subject)) {
            return Some(unsupported);
        }
        self.matchers
            .first_match(&Key::of(subject))
            .map(|i| Unsupported::Excluded(ProfileKey::Except, self.exceptions[i].reason.clone()))
    }
}

impl Profile {
    /// Why data set `inputs` (in graph-input order) of `model`, expecting `expected` (none for
    /// one that must be refused), is outside the profile: what it is first, then its values.
    /// A run and `--list` both decide it here.
    pub(crate) fn excludes_data_set(
        &self,
        model: &Model,
        inputs: &[Tensor],
        expected: &[Tensor],
    ) -> Option<Unsupported> {
        match Subject::of(model, inputs) {
            Ok(subject) => self.excludes(&subject),
            Err(unread) => self.excludes_unread(model, unread),
        }
        .or_else(|| self.excludes_values(model, inputs, expected))
    }

    /// Why a data set whose subject cannot be read (`unread`) is outside the profile: a model
    /// too new, as for any other; else, when the profile says anything about what a data set
    /// is, the first key that does, since none of them can be checked. Letting such a data
    /// set through would hand the backend what the profile may exclude.
    fn excludes_unread(&self, model: &Model, unread: Unread) -> Option<Unsupported> {
        if let Some(too_new) = self.format.excludes(model.ir_version, &model.opset_imports) {
            return Some(too_new);
        }
        let first_input = self.inputs.iter().find(|(_, limits)| **limits != InputLimits::any());
        let key = [
            (ProfileKey::SingleNode, self.single_node),
            (ProfileKey::Operators, self.operators.is_some()),
            (ProfileKey::Dtypes, self.dtypes.is_some()),
            (ProfileKey::Ranks, self.ranks.is_some()),
            (ProfileKey::MaxRank, self.max_rank.is_some()),
            (ProfileKey::Modes, self.modes.is_some()),
        ]
        .into_iter()
        .chain(first_input.map(|(role, _)| (ProfileKey::Input(*role), true)))
        .chain([
            (ProfileKey::ModeAxes, !self.mode_axes.is_empty()),
            (ProfileKey::Except, !self.exceptions.is_empty()),
        ])
        .find_map(|(key, set)| set.then_some(key))?;
        Some(Unsupported::Excluded(
            key,
            format!("{unread}, so {key} cannot be checked"),
        ))
    }

    /// Why the tensors data set `inputs` (in graph-input order) of `model` hands over, or
    /// `expected` back, are outside the profile: the first empty one, without empty tensors;
    /// else the first value, in the inputs, then the model's constants, then the expected
    /// outputs, that its declared narrower type cannot hold. Tensors computed in the graph
    /// are not known before the run and not checked.
    fn excludes_values(&self, model: &Model, inputs: &[Tensor], expected: &[Tensor]) -> Option<Unsupported> {
        let graph = &model.graph;
        let tensors = || {
            let inputs = graph.inputs.iter().zip(inputs).map(|(n, t)| (Place::Input(n), t));
            let initializers = graph.initializers.iter().map(|(n, t)| (Place::Constant(n), t));
            let attributes = graph.nodes.iter().flat_map(|node| {
                let name = node.outputs.first().unwrap_or(&node.name);
                node.attributes.iter().filter_map(move |a| match &a.value {
                    AttributeValue::Tensor(t) => Some((Place::Constant(name), t)),
                    _ => None,
                })
            });
            let outputs = graph.outputs.iter().zip(expected).map(|(n, t)| (Place::Output(n), t));
            inputs.chain(initializers).chain(attributes).chain(outputs)
        };
        if self.without_empty_tensors
            && let Some((place, tensor)) = tensors().find(|(_, t)| t.shape().contains(&0))
        {
            return Some(Unsupported::Excluded(
                ProfileKey::EmptyTensors,
                format!("{place} of shape {:?} is empty", tensor.shape()),
            ));
        }
        self.storage.first_outside(tensors()).map(Unsupported::ValueRange)
    }
}

/// The graph inputs `names` are, or are computed from (through the nodes that output them).
fn graph_inputs_behind<'m>(model: &'m Model, names: &[&'m str]) -> BTreeSet<&'m str> {
    let mut found = BTreeSet::new();
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let mut pending: Vec<&str> = names.to_vec();
    while let Some(name) = pending.pop() {
        if !seen.insert(name) {
            continue;
        }
        if model.graph.inputs.iter().any(|n| n == name) {
            found.insert(name);
            continue;
        }
        for node in model.graph.nodes.iter().filter(|n| n.outputs.iter().any(|o| o == name)) {
            pending.extend(node.inputs.iter().map(String::as_str).filter(|n| !n.is_empty()));
        }
    }
    found
}

/// `Pad-19`, `CenterCropPad-18`, `com.microsoft.Pad-1`.
fn label(operator: OpVersion) -> String {
    crate::model::opset::operator_label(operator.op.domain(), operator.op.op_type(), operator.version)
}

#[cfg(test)]
pub(crate) mod tests {
    use std::path::Path;

    use super::*;
    use crate::operators::PadOp;

    #[test]
    fn a_built_profile_that_leaves_nothing_is_refused_as_a_file_would_be() {
        let refused = |profile: Profile| match profile.check_built() {
            Err(ProfileError::BuiltExcludesEverything { field, value }) => format!("{field} = {value}"),
            other => panic!("{other:?}"),
        };
        assert_eq!(refused(Profile::everything().operators([])), "operators = []");
        assert_eq!(
            refused(Profile::everything().without_dtypes(DataType::ALL)),
            "dtypes = []"
        );
        assert_eq!(refused(Profile::everything().without_modes(PadMode::ALL)), "modes = []");
        assert_eq!(refused(Profile::everything().data_ranks([])), "ranks = []");
        assert_eq!(
            refused(Profile::everything().input(InputRole::Pads, InputLimits::any().ranks([]))),
            "inputs.pads.ranks = []"
        );
        assert_eq!(
            refused(Profile::everything().input(InputRole::Axes, InputLimits::any().within(3, 2))),
            "inputs.axes = { min = 3, max = 2 }"
        );
        // Narrowing that leaves something is fine.
        let narrow = Profile::everything()
            .without_dtypes(DataType::ALL.into_iter().skip(1))
            .without_modes([PadMode::Wrap])
            .input(InputRole::Pads, InputLimits::any().ranks([1]).within(0, 0));
        assert!(narrow.check_built().is_ok());
        assert!(Profile::everything().check_built().is_ok());
    }

    pub(crate) fn subject(op: PadOp, version: i64, dtype: DataType, mode: Option<PadMode>) -> Subject {
        Subject {
            operator: OpVersion { op, version },
            dtype,
            rank: 2,
            mode: mode.map(ModeAttribute::Mode),
            inputs: Vec::new(),
            pads: None,
            padded_axes: None,
            ir_version: 8,
            opsets: BTreeMap::from([(String::new(), version)]),
            nodes: 1,
        }
    }

    #[test]
    fn a_real_case_gives_its_inputs_and_initializer_forms_pick_what_to_fold() {
        use crate::case::{Patterns, discover};
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata/onnx-1.22.0");
        let cases = discover(&[root], &Patterns::new(&["test_constant_pad_axes"]).unwrap()).unwrap();
        let options = cases[0].decode_options(1 << 30);
        let model = cases[0].load_model(&options).unwrap();
        let data = cases[0].load_data_set(&cases[0].data_sets[0], &options).unwrap();
        let subject = Subject::of(&model, &data.inputs).unwrap();
        let roles: Vec<(InputRole, bool)> = subject.inputs.iter().map(|g| (g.role, g.fed)).collect();
        assert_eq!(
            roles,
            [
                (InputRole::Pads, true),
                (InputRole::ConstantValue, true),
                (InputRole::Axes, true)
            ]
        );
        // x of shape [1, 3, 4, 5], axes [1, 3], pads [0, 3, 0, 4]: axis 3 alone is padded.
        assert_eq!(subject.pads.as_deref(), Some(&[0, 3, 0, 4][..]));
        assert_eq!(subject.padded_axes, Some((4, vec![3])));
        let profile = Profile::everything()
            .input(InputRole::Pads, InputLimits::initializer())
            .input(InputRole::Axes, InputLimits::initializer());
        assert_eq!(profile.initializer_inputs(&model), ["pads", "axes"]);
        assert_eq!(
            Profile::everything().constant_inputs_only().initializer_inputs(&model),
            ["pads", "value", "axes"]
        );
        assert!(Profile::everything().initializer_inputs(&model).is_empty());
        // An expanded CenterCropPad computes its Pad's pads from the shape input: that is
        // what must be an initializer for the pads to be constant.
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata/onnx-1.22.0");
        let expanded = discover(
            &[root],
            &Patterns::new(&["test_center_crop_pad_crop_expanded"]).unwrap(),
        )
        .unwrap();
        let expanded = expanded[0].load_model(&options).unwrap();
        assert_eq!(expanded.graph.inputs, ["x", "shape"]);
        assert_eq!(profile.initializer_inputs(&expanded), ["shape"]);
        let no_axes = Profile::everything().input(InputRole::Axes, InputLimits::absent());
        assert_eq!(
            no_axes.excludes(&subject).map(|u| u.to_string()),
            Some("outside the backend's profile: the axes input (not supported)".into())
        );
    }

    /// The model and first data set of bundled case `name`.
    fn bundled(name: &str) -> (Model, Vec<Tensor>) {
        use crate::case::{Patterns, discover};
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata");
        let cases = discover(&[root], &Patterns::new(&[name]).unwrap()).unwrap();
        let options = cases[0].decode_options(1 << 30);
        let model = cases[0].load_model(&options).unwrap();
        let data = cases[0].load_data_set(&cases[0].data_sets[0], &options).unwrap();
        (model, data.inputs)
    }

    /// The fuzz case of an int4 data and a mode no version defines: its subject could not be
    /// read for the mode, and a subject not read passed every profile, so the int4 data
    /// reached a worker that said it takes float alone.
    #[test]
    fn a_mode_no_version_defines_leaves_the_rest_of_the_data_set_checked() {
        let (model, inputs) = bundled("test_fuzz_accepts-forbidden_breaks-unknown-mode_67bd4112_pad");
        let subject = Subject::of(&model, &inputs).unwrap();
        assert_eq!(subject.mode, Some(ModeAttribute::Unknown("symmetric".into())));
        assert_eq!(subject.dtype, DataType::Int4);
        let float = Profile::everything().without_dtypes(DataType::ALL.into_iter().filter(|d| *d != DataType::Float));
        assert_eq!(
            float.excludes_data_set(&model, &inputs, &[]),
            Some(Unsupported::Excluded(ProfileKey::Dtypes, "element type int4".into()))
        );
        // A list of modes names the four at most: a spelling none defines is outside it.
        assert_eq!(
            Profile::everything()
                .without_modes([PadMode::Wrap])
                .excludes_data_set(&model, &inputs, &[]),
            Some(Unsupported::Excluded(
                ProfileKey::Modes,
                "mode \"symmetric\", which no operator version defines".into()
            ))
        );
        // A profile silent on modes lets the backend refuse it; a mode-limited exception
        // does not match it.
        assert_eq!(Profile::everything().excludes_data_set(&model, &inputs, &[]), None);
        let wrap_axes = Profile::everything().mode_axes([PadMode::Wrap], [-1]);
        assert_eq!(wrap_axes.excludes_data_set(&model, &inputs, &[]), None);
    }

    #[test]
    fn a_data_set_whose_subject_cannot_be_read_is_outside_every_profile_that_says_what_one_is() {
        let (mut model, inputs) = bundled("test_constant_pad_axes");
        assert_eq!(Subject::of(&model, &[]).unwrap_err(), Unread::NoDataInput);
        assert_eq!(
            Profile::everything()
                .single_node_only()
                .excludes_data_set(&model, &[], &[])
                .map(|u| u.reason()),
            Some("the data set feeds no data input, so single_node cannot be checked".into())
        );
        model.graph.nodes.clear();
        assert_eq!(Subject::of(&model, &inputs).unwrap_err(), Unread::NoPadNode);
        let float_only = DataType::ALL.into_iter().filter(|d| *d != DataType::Float);
        assert_eq!(
            Profile::everything()
                .without_dtypes(float_only)
                .excludes_data_set(&model, &inputs, &[])
                .map(|u| u.to_string()),
            Some("outside the backend's profile: the graph has no Pad-family node, so dtypes cannot be checked".into())
        );
        let no_axes = Profile::everything().input(InputRole::Axes, InputLimits::absent());
        assert_eq!(
            no_axes.excludes_data_set(&model, &inputs, &[]).map(|u| u.key()),
            Some(ProfileKey::Input(InputRole::Axes))
        );
        // The model's format is read whatever else is not, and comes first as always.
        assert_eq!(
            Profile::everything()
                .max_rank(4)
                .max_ir_version(model.ir_version - 1)
                .excludes_data_set(&model, &inputs, &[])
                .map(|u| u.key()),
            Some(ProfileKey::MaxIrVersion)
        );
        // A profile that says nothing of what a data set is has nothing to check.
        let values_only = Profile::everything()
            .storage(DataType::Double, DataType::Float)
            .without_empty_tensors();
        assert_eq!(values_only.excludes_data_set(&model, &inputs, &[]), None);
    }

    #[test]
    fn without_empty_tensors_an_input_or_expected_output_with_a_zero_sized_dimension_is_unsupported() {
        let (model, mut inputs) = bundled("test_constant_pad_axes");
        let profile = Profile::everything().without_empty_tensors();
        assert_eq!(profile.excludes_data_set(&model, &inputs, &[]), None);
        let empty_output = Tensor::from_vec(&[1, 0, 4, 12], Vec::<f32>::new()).unwrap();
        assert_eq!(
            profile.excludes_data_set(&model, &inputs, &[empty_output]),
            Some(Unsupported::Excluded(
                ProfileKey::EmptyTensors,
                "expected output \"y\" of shape [1, 0, 4, 12] is empty".into()
            ))
        );
        inputs[0] = Tensor::from_vec(&[1, 3, 0, 5], Vec::<f32>::new()).unwrap();
        assert_eq!(
            profile.excludes_data_set(&model, &inputs, &[]).map(|u| u.reason()),
            Some("input \"x\" of shape [1, 3, 0, 5] is empty".into())
        );
        assert_eq!(Profile::everything().excludes_data_set(&model, &inputs, &[]), None);
    }

    #[test]
    fn the_builder_removes_from_everything() {
        let profile = Profile::everything()
            .without_dtypes([DataType::String])
            .without_modes([PadMode::Wrap]);
        let wrap = Some(PadMode::Wrap);
        assert!(
            profile
                .excludes(&subject(PadOp::Pad, 19, DataType::Float, wrap))
                .is_some()
        );
        assert!(
            profile
                .excludes(&subject(PadOp::Pad, 19, DataType::String, None))
                .is_some()
        );
        assert!(
            profile
                .excludes(&subject(PadOp::Pad, 19, DataType::Float, Some(PadMode::Edge)))
                .is_none()
        );
        assert!(!profile.inputs_as_constants);
    }
}
