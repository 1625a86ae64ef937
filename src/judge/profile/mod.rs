//! Capability profiles: what a backend claims to support — operator versions, element types,
//! modes, the axes a mode may pad, and for each input after the data (pads, constant_value,
//! axes, shape) whether it takes it as a runtime input, only as an initializer or not at all,
//! of which ranks and within which values. Data sets outside the profile are `unsupported`:
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
//!     .mode_axes([PadMode::Reflect], [-2, -1]);
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
//! "#)?;
//! assert_eq!(Profile::read(file.path())?, profile);
//! assert_ne!(profile.clone().without_dtypes([DataType::String]), profile);
//!
//! let harness = pad_conformance::Harness::new(pad_conformance::RefBackend).profile(profile);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod format_limits;
mod input_role;
mod inputs;
mod subject;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use format_limits::FormatLimits;
pub use input_role::InputRole;
pub use inputs::InputLimits;
use inputs::{InputForm, ModeAxes};
pub(crate) use subject::Subject;

use crate::data::duplicate_keys::DuplicateKey;
use crate::data::side_file::{MAX_PROFILE_BYTES, excerpt, excerpt_lines, read_text_capped};
use crate::data::toml_duplicate_keys::duplicate_at;
use crate::model::Model;
use crate::operators::{OpVersion, PadMode, PadOp};
use crate::tensor::DataType;

/// What a backend supports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Profile {
    /// The operator versions it supports; `None`: all.
    pub(crate) operators: Option<BTreeSet<OpVersion>>,
    /// The element types of the data input it supports; `None`: all.
    pub(crate) dtypes: Option<BTreeSet<DataType>>,
    /// The modes it supports; `None`: all.
    pub(crate) modes: Option<BTreeSet<PadMode>>,
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

/// A combination a backend does not support: every field that is set must match.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Exception {
    /// Operator versions (`Pad-19`, `Pad` for every version, `CenterCropPad-18`,
    /// `com.microsoft.Pad-1`).
    #[serde(default)]
    pub operators: Vec<String>,
    /// Element types by name.
    #[serde(default)]
    pub dtypes: Vec<String>,
    /// Modes by name.
    #[serde(default)]
    pub modes: Vec<String>,
    /// Why: shown in the report of each data set it excludes.
    pub reason: String,
}

/// Why a data set is outside a profile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Unsupported(pub String);

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "outside the backend's profile: {}", self.0)
    }
}

/// A profile file that cannot be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProfileError {
    /// The file cannot be read.
    #[error("reading {}: {source}", crate::text::shown_path(path))]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Not TOML of a profile's shape. The message quotes at most a short excerpt of the
    /// line at fault.
    #[error("reading {}: {}", crate::text::shown_path(path), excerpt_lines(&source.to_string(), 160, 12))]
    Parse {
        /// The file.
        path: PathBuf,
        /// Where and why.
        #[source]
        source: toml::de::Error,
    },
    /// A key defined twice: the toml crate refuses it pointing at the second definition only,
    /// so the refusal names the key and both lines.
    #[error(
        "reading {}: {key} is defined twice (lines {first_line} and {second_line}); keep one",
        crate::text::shown_path(path)
    )]
    DuplicateKey {
        /// The file.
        path: PathBuf,
        /// The key, as a field is named (`except[1].modes`).
        key: String,
        /// Where it is defined first (1-based).
        first_line: usize,
        /// Where it is defined again.
        second_line: usize,
    },
    /// A file that sets nothing: most likely the wrong file, and "everything" is what leaving
    /// `--profile` out already means.
    #[error(
        "{}: the profile sets nothing (no key); leave it out to run every data set",
        crate::text::shown_path(path)
    )]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// A list that is empty: every data set would be unsupported.
    #[error(
        "{}: {field} = [] would leave every data set unsupported; leave the key out to mean all",
        crate::text::shown_path(path)
    )]
    EmptyList {
        /// The file.
        path: PathBuf,
        /// `operators`, `dtypes` or `modes`.
        field: &'static str,
    },
    /// A key whose value excludes every data set it applies to: an `[[except]]` with no
    /// operators, dtypes or modes, an input's `ranks = []`, or its `min` above its `max`.
    #[error(
        "{}: {field} = {value} would leave every data set unsupported",
        crate::text::shown_path(path)
    )]
    ExcludesEverything {
        /// The file.
        path: PathBuf,
        /// The key (`except[0]`, `inputs.pads.ranks`).
        field: String,
        /// Its value as the file states it.
        value: String,
    },
    /// A name that is no operator version, element type or mode.
    #[error("{}: {field}: unknown {what} {value:?}", crate::text::shown_path(path))]
    Unknown {
        /// The file.
        path: PathBuf,
        /// The field (`dtypes`, `except[2].modes`).
        field: String,
        /// `operator`, `element type` or `mode`.
        what: &'static str,
        /// The name.
        value: String,
    },
    /// A profile built in code whose setting leaves every data set unsupported (a gate that
    /// would pass by running nothing): `without_dtypes` of every type, `operators([])`, …
    #[error("the profile handed to the harness sets {field} = {value}, which would leave every data set unsupported")]
    BuiltExcludesEverything {
        /// What was set: `operators`, `dtypes`, `modes`, `inputs.pads.ranks`, `inputs.pads`.
        field: String,
        /// What it was set to.
        value: String,
    },
    /// A value of the right type but not of a profile's shape.
    #[error("{}: {field}: {source}", crate::text::shown_path(path))]
    Field {
        /// The file.
        path: PathBuf,
        /// The field (`inputs.pads`).
        field: String,
        /// Why.
        #[source]
        source: Box<toml::de::Error>,
    },
}

/// The TOML form of a profile.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProfileFile {
    operators: Option<Vec<String>>,
    dtypes: Option<Vec<String>>,
    modes: Option<Vec<String>>,
    inputs_as_constants: Option<bool>,
    #[serde(default)]
    except: Vec<Exception>,
    #[serde(default)]
    inputs: BTreeMap<String, toml::Value>,
    #[serde(default)]
    mode_axes: Vec<ModeAxesFile>,
    max_ir_version: Option<i64>,
    #[serde(default)]
    max_opset: BTreeMap<String, i64>,
}

/// An input's limits in TOML: a form alone (`pads = "initializer"`) or a table.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InputFile {
    #[serde(default)]
    form: InputForm,
    ranks: Option<BTreeSet<usize>>,
    min: Option<i64>,
    max: Option<i64>,
}

/// `[[mode_axes]]` in TOML.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ModeAxesFile {
    modes: Vec<String>,
    axes: Vec<i64>,
}

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

    /// Refuses a profile whose builder calls leave every data set unsupported, as
    /// [`Profile::read`] refuses such a file: none left of the operators, element types or
    /// modes, or an input limited to no rank or to an empty range.
    pub(crate) fn check_built(&self) -> Result<(), ProfileError> {
        let refuse = |field: &str, value: String| {
            Err(ProfileError::BuiltExcludesEverything {
                field: field.to_owned(),
                value,
            })
        };
        for (field, empty) in [
            ("operators", self.operators.as_ref().is_some_and(BTreeSet::is_empty)),
            ("dtypes", self.dtypes.as_ref().is_some_and(BTreeSet::is_empty)),
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

    /// Reads a TOML profile:
    ///
    /// ```toml
    /// operators = ["Pad-11", "Pad-13", "CenterCropPad-18"]   # or "Pad" for every version
    /// dtypes = ["float", "double", "int32"]
    /// modes = ["constant", "reflect", "edge"]
    /// inputs_as_constants = false
    ///
    /// [[except]]
    /// operators = ["Pad-13", "Pad-18"]
    /// dtypes = ["bfloat16"]
    /// reason = "no bfloat16 kernel before Pad-21"
    ///
    /// [inputs]                       # each input after the data: a form, or a table
    /// pads = { form = "initializer", min = 0, max = 2147483647, ranks = [1] }
    /// constant_value = "any"         # "any" (default), "initializer" or "absent"
    /// axes = "absent"
    ///
    /// [[mode_axes]]                  # modes that pad some axes only
    /// modes = ["reflect"]
    /// axes = [-2, -1]
    /// ```
    ///
    /// Every key is optional; a missing list means everything.
    pub fn read(path: &Path) -> Result<Profile, ProfileError> {
        let text = read_text_capped(path, MAX_PROFILE_BYTES).map_err(|source| ProfileError::Read {
            path: path.to_owned(),
            source,
        })?;
        let file: ProfileFile = toml::from_str(&text).map_err(|source| {
            let duplicate = source.span().and_then(|span| duplicate_at(&text, span));
            match duplicate {
                Some(DuplicateKey {
                    key,
                    first_line,
                    second_line,
                }) => ProfileError::DuplicateKey {
                    path: path.to_owned(),
                    key,
                    first_line,
                    second_line,
                },
                None => ProfileError::Parse {
                    path: path.to_owned(),
                    source,
                },
            }
        })?;
        if file.operators.is_none()
            && file.dtypes.is_none()
            && file.modes.is_none()
            && file.inputs_as_constants.is_none()
            && file.except.is_empty()
            && file.inputs.is_empty()
            && file.mode_axes.is_empty()
            && file.max_ir_version.is_none()
            && file.max_opset.is_empty()
        {
            return Err(ProfileError::Empty { path: path.to_owned() });
        }
        for (field, list) in [
            ("operators", &file.operators),
            ("dtypes", &file.dtypes),
            ("modes", &file.modes),
        ] {
            if list.as_ref().is_some_and(Vec::is_empty) {
                return Err(ProfileError::EmptyList {
                    path: path.to_owned(),
                    field,
                });
            }
        }
        let unknown = |field: String, what, value: &str| ProfileError::Unknown {
            path: path.to_owned(),
            field,
            what,
            value: excerpt(value, 80).into_owned(),
        };
        let operators = file
            .operators
            .map(|names| {
                Labels::new()
                    .parse(&names)
                    .map_err(|v| unknown("operators".into(), "operator", &v))
            })
            .transpose()?;
        let dtypes = file
            .dtypes
            .map(|names| parse_dtypes(&names).map_err(|v| unknown("dtypes".into(), "element type", &v)))
            .transpose()?;
        let modes = file
            .modes
            .map(|names| parse_modes(&names).map_err(|v| unknown("modes".into(), "mode", &v)))
            .transpose()?;
        let labels = Labels::new();
        let mut masks = Vec::with_capacity(file.except.len());
        let excludes_everything = |field: String, value: String| ProfileError::ExcludesEverything {
            path: path.to_owned(),
            field,
            value,
        };
        for (i, exception) in file.except.iter().enumerate() {
            if exception.operators.is_empty() && exception.dtypes.is_empty() && exception.modes.is_empty() {
                // Every field unset matches every data set: the reason alone is no exception.
                return Err(excludes_everything(
                    format!("except[{i}]"),
                    "{ no operators, dtypes or modes }".into(),
                ));
            }
            let operators = labels
                .parse(&exception.operators)
                .map_err(|v| unknown(format!("except[{i}].operators"), "operator", &v))?;
            let dtypes = parse_dtypes(&exception.dtypes)
                .map_err(|v| unknown(format!("except[{i}].dtypes"), "element type", &v))?;
            let modes = parse_modes(&exception.modes).map_err(|v| unknown(format!("except[{i}].modes"), "mode", &v))?;
            masks.push(Masks::new(&operators, &dtypes, &modes));
        }
        let mut inputs = BTreeMap::new();
        for (key, value) in file.inputs {
            let field = format!("inputs.{key}");
            let role = InputRole::ALL
                .into_iter()
                .find(|r| r.name() == key)
                .ok_or_else(|| unknown("inputs".into(), "input", &key))?;
            let limits: InputFile = match value {
                toml::Value::String(form) => InputFile {
                    form: toml::Value::String(form.clone())
                        .try_into()
                        .map_err(|_| unknown(field.clone(), "input form", &form))?,
                    ranks: None,
                    min: None,
                    max: None,
                },
                table => table.try_into().map_err(|source| ProfileError::Field {
                    path: path.to_owned(),
                    field: field.clone(),
                    source: Box::new(source),
                })?,
            };
            if limits.ranks.as_ref().is_some_and(BTreeSet::is_empty) {
                return Err(excludes_everything(format!("{field}.ranks"), "[]".into()));
            }
            if let (Some(min), Some(max)) = (limits.min, limits.max)
                && min > max
            {
                return Err(excludes_everything(field, format!("{{ min = {min}, max = {max} }}")));
            }
            inputs.insert(
                role,
                InputLimits {
                    form: limits.form,
                    ranks: limits.ranks,
                    min: limits.min,
                    max: limits.max,
                },
            );
        }
        // A model's IR version and opsets start at 1: a limit below excludes every data set.
        if let Some(version) = file.max_ir_version
            && version < 1
        {
            return Err(excludes_everything("max_ir_version".into(), version.to_string()));
        }
        let mut max_opsets = BTreeMap::new();
        for (domain, version) in file.max_opset {
            if version < 1 {
                return Err(excludes_everything(
                    format!("max_opset.{domain:?}"),
                    version.to_string(),
                ));
            }
            max_opsets.insert(crate::family::normalize_domain(&domain).to_owned(), version);
        }
        let mut mode_axes = Vec::new();
        for (i, limit) in file.mode_axes.into_iter().enumerate() {
            let modes = parse_modes(&limit.modes).map_err(|v| unknown(format!("mode_axes[{i}].modes"), "mode", &v))?;
            mode_axes.push(ModeAxes {
                modes,
                axes: limit.axes,
            });
        }
        Ok(Profile {
            operators,
            dtypes,
            modes,
            exceptions: file.except,
            matchers: Matchers::new(masks),
            inputs_as_constants: file.inputs_as_constants.unwrap_or(false),
            inputs,
            mode_axes,
            format: FormatLimits {
                max_ir_version: file.max_ir_version,
                max_opsets,
            },
            digest: SourceDigest(Some(crate::data::digest::bytes_digest(text.as_bytes()))),
        })
    }

    /// Why `subject` is outside the profile, if it is.
    pub(crate) fn excludes(&self, subject: &Subject) -> Option<Unsupported> {
        // First: a runtime older than the model cannot say anything about the operator in it.
        if let Some(too_new) = self.format.excludes(subject) {
            return Some(too_new);
        }
        if let Some(operators) = &self.operators
            && !operators.contains(&subject.operator)
        {
            return Some(Unsupported(format!("operator {}", label(subject.operator))));
        }
        if let Some(dtypes) = &self.dtypes
            && !dtypes.contains(&subject.dtype)
        {
            return Some(Unsupported(format!("element type {}", subject.dtype)));
        }
        if let (Some(modes), Some(mode)) = (&self.modes, subject.mode)
            && !modes.contains(&mode)
        {
            return Some(Unsupported(format!("mode {mode}")));
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
            .map(|i| Unsupported(self.exceptions[i].reason.clone()))
    }
}

/// An exception as three bit masks, one bit per operator version, element type and mode
/// (their positions in [`OpVersion::all`], [`DataType::ALL`], [`PadMode::ALL`]). An empty
/// list in the file is every bit, [`OTHER`] included: it matches a subject whose version or
/// mode is none of those (CenterCropPad has no mode), which a list never does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Masks {
    operators: u64,
    dtypes: u64,
    modes: u64,
}

/// The bit of a version or mode outside the tables.
const OTHER: u64 = 1 << 63;

impl Masks {
    fn new(operators: &BTreeSet<OpVersion>, dtypes: &BTreeSet<DataType>, modes: &BTreeSet<PadMode>) -> Masks {
        fn mask<T: Ord>(set: &BTreeSet<T>, table: impl Iterator<Item = T>) -> u64 {
            if set.is_empty() {
                return u64::MAX;
            }
            table
                .enumerate()
                .filter(|(_, t)| set.contains(t))
                .fold(0, |m, (i, _)| m | 1 << i)
        }
        Masks {
            operators: mask(operators, OpVersion::all()),
            dtypes: mask(dtypes, DataType::ALL.into_iter()),
            modes: mask(modes, PadMode::ALL.into_iter()),
        }
    }

    /// `subject`'s own bits.
    fn of(subject: &Key) -> Masks {
        fn bit<T: PartialEq>(value: Option<T>, mut table: impl Iterator<Item = T>) -> u64 {
            value.and_then(|v| table.position(|t| t == v)).map_or(OTHER, |i| 1 << i)
        }
        Masks {
            operators: bit(Some(subject.operator), OpVersion::all()),
            dtypes: bit(Some(subject.dtype), DataType::ALL.into_iter()),
            modes: bit(subject.mode, PadMode::ALL.into_iter()),
        }
    }

    fn matches(&self, subject: &Masks) -> bool {
        self.operators & subject.operators != 0 && self.dtypes & subject.dtypes != 0 && self.modes & subject.modes != 0
    }
}

/// The part of a subject exceptions match: its operator version, element type and mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Key {
    operator: OpVersion,
    dtype: DataType,
    mode: Option<PadMode>,
}

impl Key {
    fn of(subject: &Subject) -> Key {
        Key {
            operator: subject.operator,
            dtype: subject.dtype,
            mode: subject.mode,
        }
    }
}

/// The exceptions' masks, and for each subject of the tables the first exception it
/// matches, worked out once when the profile is read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Matchers {
    masks: Vec<Masks>,
    first: HashMap<Key, usize>,
}

impl Matchers {
    /// Each exception is tried only on the subjects no earlier one matched, and one equal
    /// to an earlier one is skipped: at most (exceptions × subjects) mask tests, where the
    /// subjects (about 1,500) are a constant of the operator table, not of the input.
    fn new(masks: Vec<Masks>) -> Matchers {
        let mut left: Vec<(Key, Masks)> = every_subject().map(|s| (s, Masks::of(&s))).collect();
        let mut first = HashMap::new();
        let mut tried = HashSet::new();
        for (i, exception) in masks.iter().enumerate() {
            if left.is_empty() {
                break;
            }
            if !tried.insert(*exception) {
                continue;
            }
            left.retain(|(subject, bits)| {
                let matched = exception.matches(bits);
                if matched {
                    first.insert(*subject, i);
                }
                !matched
            });
        }
        Matchers { masks, first }
    }

    /// The index of the first exception `subject` matches, if any.
    fn first_match(&self, subject: &Key) -> Option<usize> {
        match self.first.get(subject) {
            Some(&i) => Some(i),
            None if self.masks.is_empty() || OpVersion::all().any(|op| op == subject.operator) => None,
            // A version the table lacks (none the reader makes): tried against each exception.
            None => {
                let bits = Masks::of(subject);
                self.masks.iter().position(|m| m.matches(&bits))
            }
        }
    }
}

/// Every subject the tables can name: each operator version, element type and mode (and no
/// mode).
fn every_subject() -> impl Iterator<Item = Key> {
    OpVersion::all().flat_map(|operator| {
        DataType::ALL.into_iter().flat_map(move |dtype| {
            PadMode::ALL
                .into_iter()
                .map(Some)
                .chain([None])
                .map(move |mode| Key { operator, dtype, mode })
        })
    })
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

/// Each operator version's label, made once for all the names of a profile.
struct Labels(Vec<(OpVersion, String)>);

impl Labels {
    fn new() -> Labels {
        Labels(OpVersion::all().map(|op| (op, label(op))).collect())
    }

    /// Operator names: a label of one version, or an operator for all of its versions.
    fn parse(&self, names: &[String]) -> Result<BTreeSet<OpVersion>, String> {
        let mut operators = BTreeSet::new();
        for name in names {
            let mut named = false;
            for (op, label) in &self.0 {
                if label == name || op_name(op.op) == name {
                    operators.insert(*op);
                    named = true;
                }
            }
            if !named {
                return Err(name.clone());
            }
        }
        Ok(operators)
    }
}

/// `Pad`, `CenterCropPad`, `com.microsoft.Pad`: an operator, every version.
fn op_name(op: PadOp) -> &'static str {
    match op {
        PadOp::Pad => "Pad",
        PadOp::CenterCropPad => "CenterCropPad",
        PadOp::MicrosoftPad => "com.microsoft.Pad",
    }
}

fn parse_dtypes(names: &[String]) -> Result<BTreeSet<DataType>, String> {
    names
        .iter()
        .map(|n| DataType::from_name(n).ok_or_else(|| n.clone()))
        .collect()
}

fn parse_modes(names: &[String]) -> Result<BTreeSet<PadMode>, String> {
    names
        .iter()
        .map(|n| PadMode::from_name(n).ok_or_else(|| n.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::profile::subject::GivenInput;

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

    fn subject(op: PadOp, version: i64, dtype: DataType, mode: Option<PadMode>) -> Subject {
        Subject {
            operator: OpVersion { op, version },
            dtype,
            mode,
            inputs: Vec::new(),
            pads: None,
            padded_axes: None,
            ir_version: 8,
            opsets: BTreeMap::from([(String::new(), version)]),
        }
    }

    /// A Pad-19 float subject with `inputs` (role, fed, rank, values), `pads` and the
    /// padded axes of a rank-`rank` data.
    fn given(mode: PadMode, inputs: &[(InputRole, bool, usize, &[i64])], rank: usize, padded: &[usize]) -> Subject {
        let inputs: Vec<GivenInput> = inputs
            .iter()
            .map(|&(role, fed, rank, values)| GivenInput {
                role,
                name: role.name().to_owned(),
                fed,
                rank: Some(rank),
                values: (!values.is_empty()).then(|| values.to_vec()),
            })
            .collect();
        let pads = inputs
            .iter()
            .find(|g| g.role == InputRole::Pads)
            .and_then(|g| g.values.clone());
        Subject {
            padded_axes: Some((rank, padded.to_vec())),
            pads,
            inputs,
            ..subject(PadOp::Pad, 19, DataType::Float, Some(mode))
        }
    }

    fn read(text: &str) -> Result<Profile, ProfileError> {
        let dir = crate::data::scratch_dir().unwrap();
        let path = dir.path().join("p.toml");
        std::fs::write(&path, text).unwrap();
        Profile::read(&path)
    }

    /// toml's own error points at the second definition alone, without the key: the
    /// refusal names the key and both lines, as a JSON file's does.
    #[test]
    fn a_key_defined_twice_is_refused_naming_the_key_and_both_lines() {
        let error = read("operators = [\"Pad-18\"]\ndtypes = [\"float\"]\n\n[[except]]\nmodes = [\"wrap\"]\noperators = [\"Pad-19\"]\nmodes = [\"edge\"]\n")
            .unwrap_err();
        let ProfileError::DuplicateKey {
            path,
            key,
            first_line,
            second_line,
        } = &error
        else {
            panic!("{error}")
        };
        assert_eq!((key.as_str(), *first_line, *second_line), ("except[0].modes", 5, 7));
        assert_eq!(
            error.to_string(),
            format!(
                "reading {}: except[0].modes is defined twice (lines 5 and 7); keep one",
                crate::text::shown_path(path)
            )
        );
        // Other errors are toml's own, with its excerpt.
        let error = read("operators = [\"Pad-18\"]\nmodes = 1\n").unwrap_err();
        assert!(matches!(error, ProfileError::Parse { .. }), "{error}");
    }

    #[test]
    fn input_forms_ranks_and_ranges_read_from_toml_exclude_what_they_do_not_cover() {
        let profile = read(
            r#"
[inputs]
pads = { form = "initializer", min = 0, max = 2147483647, ranks = [1] }
constant_value = "any"
axes = "absent"
"#,
        )
        .unwrap();
        assert_eq!(profile.inputs[&InputRole::Pads].form, InputForm::Initializer);
        assert_eq!(profile.inputs[&InputRole::ConstantValue], InputLimits::any());
        let pads = |values: &'static [i64]| (InputRole::Pads, true, 1, values);
        let edge = PadMode::Edge;
        assert_eq!(profile.excludes(&given(edge, &[pads(&[0, 1, 2, 0])], 2, &[0, 1])), None);
        assert_eq!(
            profile.excludes(&given(edge, &[pads(&[0, -1, 2, 0])], 2, &[0, 1])),
            Some(Unsupported("pads [0, -1, 2, 0] holds -1, below 0".into()))
        );
        assert_eq!(
            profile.excludes(&given(edge, &[pads(&[0, 3_000_000_000])], 1, &[0])),
            Some(Unsupported(
                "pads [0, 3000000000] holds 3000000000, above 2147483647".into()
            ))
        );
        assert_eq!(
            profile.excludes(&given(edge, &[(InputRole::Pads, false, 2, &[0, 1])], 1, &[0])),
            Some(Unsupported("a 2-D pads input (supported ranks: 1)".into()))
        );
        let with_axes = [pads(&[1, 1]), (InputRole::Axes, true, 1, &[0][..])];
        assert_eq!(
            profile.excludes(&given(edge, &with_axes, 2, &[0])),
            Some(Unsupported("the axes input (not supported)".into()))
        );
        // A profile without [inputs] (every file written before it existed) limits none.
        assert_eq!(Profile::everything().excludes(&given(edge, &with_axes, 2, &[0])), None);
    }

    #[test]
    fn a_mode_limited_to_the_last_two_axes_excludes_padding_any_other() {
        let profile = read("[[mode_axes]]\nmodes = [\"reflect\"]\naxes = [-2, -1]\n").unwrap();
        // Read from a file, it also names the file's digest, and still equals the one built.
        assert_eq!(profile, Profile::everything().mode_axes([PadMode::Reflect], [-2, -1]));
        assert_eq!(profile.digest.0.as_ref().map(String::len), Some(64));
        let reflect = PadMode::Reflect;
        assert_eq!(profile.excludes(&given(reflect, &[], 4, &[2, 3])), None);
        assert_eq!(
            profile.excludes(&given(reflect, &[], 4, &[1, 3])),
            Some(Unsupported(
                "mode reflect padding axis 1 of rank-4 data (supported on axes [-2, -1] only)".into()
            ))
        );
        // Other modes, and rank-2 data whose axes 0 and 1 are the last two, are untouched.
        assert_eq!(profile.excludes(&given(PadMode::Edge, &[], 4, &[0])), None);
        assert_eq!(profile.excludes(&given(reflect, &[], 2, &[0, 1])), None);
    }

    #[test]
    fn bad_inputs_and_mode_axes_are_errors_naming_the_field() {
        for (text, expected) in [
            ("[inputs]\npaddings = \"any\"", "inputs: unknown input \"paddings\""),
            (
                "[inputs]\npads = \"constant\"",
                "inputs.pads: unknown input form \"constant\"",
            ),
            (
                "[inputs]\npads = { form = \"any\", minimum = 0 }",
                "inputs.pads: unknown field `minimum`",
            ),
            ("[inputs]\npads = { ranks = [-1] }", "inputs.pads: "),
            (
                "[inputs]\npads = { min = 5, max = 1 }",
                "inputs.pads = { min = 5, max = 1 } would leave every data set unsupported",
            ),
            (
                "[inputs]\naxes = { ranks = [] }",
                "inputs.axes.ranks = [] would leave every data set unsupported",
            ),
            (
                "[[except]]\nmodes = [\"wrap\"]\nreason = \"a\"\n[[except]]\nreason = \"all\"",
                "except[1] = { no operators, dtypes or modes } would leave every data set unsupported",
            ),
            (
                "[[mode_axes]]\nmodes = [\"mirror\"]\naxes = [0]",
                "mode_axes[0].modes: unknown mode \"mirror\"",
            ),
        ] {
            let error = read(text).unwrap_err().to_string();
            assert!(error.contains(expected), "{error}");
        }
    }

    #[test]
    fn the_profiles_in_the_repository_still_read() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        for path in [
            "baselines/onnxruntime.profile.toml",
            "gates/tract/tract.profile.toml",
            "gates/candle/candle.profile.toml",
        ] {
            Profile::read(&root.join(path)).unwrap_or_else(|e| panic!("{e}"));
        }
        // A file of the first format: only the keys it had.
        let old = read("inputs_as_constants = true\nmodes = [\"edge\"]").unwrap();
        assert!(old.inputs_as_constants && old.inputs.is_empty() && old.mode_axes.is_empty());
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

    #[test]
    fn a_model_newer_than_the_backend_reads_is_unsupported_whatever_else_the_profile_says() {
        let profile =
            read("max_ir_version = 9\ndtypes = [\"int8\"]\n[max_opset]\n\"ai.onnx\" = 18\n\"com.microsoft\" = 1\n")
                .unwrap();
        assert_eq!(
            profile,
            Profile::everything()
                .without_dtypes(DataType::ALL.into_iter().filter(|d| *d != DataType::Int8))
                .max_ir_version(9)
                .max_opset("", 18)
                .max_opset("com.microsoft", 1)
        );
        let at = |ir_version, opset| Subject {
            ir_version,
            ..subject(PadOp::Pad, opset, DataType::Int8, Some(PadMode::Edge))
        };
        assert_eq!(profile.excludes(&at(9, 18)), None);
        // The format comes first: an IR-10 model of a float type is too new, not a float.
        assert_eq!(
            profile.excludes(&Subject {
                dtype: DataType::Float,
                ..at(10, 18)
            }),
            Some(Unsupported("IR version 10 (the backend reads up to 9)".into()))
        );
        assert_eq!(
            profile.excludes(&at(9, 19)),
            Some(Unsupported("opset 19 of ai.onnx (the backend reads up to 18)".into()))
        );
        let microsoft = Subject {
            opsets: BTreeMap::from([(String::new(), 11), ("com.microsoft".to_owned(), 2)]),
            ..at(9, 11)
        };
        assert_eq!(
            profile.excludes(&microsoft),
            Some(Unsupported(
                "opset 2 of com.microsoft (the backend reads up to 1)".into()
            ))
        );
        // A domain the profile does not name is not limited.
        assert_eq!(
            Profile::everything()
                .max_opset("com.microsoft", 1)
                .excludes(&at(12, 25)),
            None
        );
    }

    #[test]
    fn a_format_limit_below_one_excludes_everything_and_is_refused() {
        for (text, field, value) in [
            ("max_ir_version = 0", "max_ir_version", "0"),
            ("[max_opset]\n\"ai.onnx\" = -3", "max_opset.\"ai.onnx\"", "-3"),
        ] {
            match read(text) {
                Err(ProfileError::ExcludesEverything { field: f, value: v, .. }) => {
                    assert_eq!((f.as_str(), v.as_str()), (field, value), "{text}")
                }
                other => panic!("{text}: {other:?}"),
            }
        }
        assert!(matches!(
            Profile::everything().max_opset("", 0).check_built(),
            Err(ProfileError::BuiltExcludesEverything { field, .. }) if field == "max_opset.\"\""
        ));
        assert!(read("max_ir_version = 9").is_ok(), "a format limit alone is a profile");
    }

    #[test]
    fn a_toml_profile_excludes_what_it_does_not_list_and_its_exceptions() {
        let dir = crate::data::scratch_dir().unwrap();
        let path = dir.path().join("p.toml");
        std::fs::write(
            &path,
            r#"
operators = ["Pad", "CenterCropPad-18"]
dtypes = ["float", "bfloat16", "int32"]
modes = ["constant", "edge"]

[[except]]
operators = ["Pad-13", "Pad-18"]
dtypes = ["bfloat16"]
reason = "no bfloat16 kernel before Pad-21"
"#,
        )
        .unwrap();
        let profile = Profile::read(&path).unwrap();
        let edge = Some(PadMode::Edge);
        assert_eq!(profile.excludes(&subject(PadOp::Pad, 19, DataType::Float, edge)), None);
        assert_eq!(
            profile.excludes(&subject(PadOp::MicrosoftPad, 1, DataType::Float, edge)),
            Some(Unsupported("operator com.microsoft.Pad-1".into()))
        );
        assert_eq!(
            profile.excludes(&subject(PadOp::Pad, 19, DataType::Int8, edge)),
            Some(Unsupported("element type int8".into()))
        );
        assert_eq!(
            profile.excludes(&subject(PadOp::Pad, 19, DataType::Float, Some(PadMode::Wrap))),
            Some(Unsupported("mode wrap".into()))
        );
        assert_eq!(
            profile
                .excludes(&subject(PadOp::Pad, 13, DataType::Bfloat16, edge))
                .map(|u| u.to_string()),
            Some("outside the backend's profile: no bfloat16 kernel before Pad-21".into())
        );
        assert_eq!(
            profile.excludes(&subject(PadOp::Pad, 21, DataType::Bfloat16, edge)),
            None
        );
        // CenterCropPad has no mode, so the mode list does not exclude it.
        assert_eq!(
            profile.excludes(&subject(PadOp::CenterCropPad, 18, DataType::Int32, None)),
            None
        );
    }

    #[test]
    fn unknown_names_and_keys_are_errors_naming_the_field() {
        let dir = crate::data::scratch_dir().unwrap();
        let path = dir.path().join("p.toml");
        for (text, expected) in [
            ("dtypes = [\"float32\"]", "dtypes: unknown element type \"float32\""),
            ("operators = [\"Pad-12\"]", "operators: unknown operator \"Pad-12\""),
            (
                "[[except]]\nmodes = [\"symmetric\"]\nreason = \"x\"",
                "except[0].modes: unknown mode",
            ),
            ("dtype = [\"float\"]", "unknown field"),
        ] {
            std::fs::write(&path, text).unwrap();
            let error = Profile::read(&path).unwrap_err().to_string();
            assert!(error.contains(expected), "{error}");
        }
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

    /// A profile of 10,000 exceptions met by 40,000 lookups: with a scan of the exceptions per
    /// data set (as once), they would take seconds; each must still find the first exception
    /// that matches, in the file's order. The full size is the ignored test below.
    #[test]
    fn many_exceptions_are_matched_in_order_without_a_scan_per_lookup() {
        exceptions_are_matched_in_order(10_000);
    }

    /// The check above at 100,000 exceptions and 400,000 lookups, which a scan per lookup
    /// would take hours over (a second of `cargo test` time: .ci/run runs it).
    #[test]
    #[ignore = "slow: run by .ci/run"]
    fn a_hundred_thousand_exceptions_are_matched_without_a_scan_per_lookup() {
        exceptions_are_matched_in_order(100_000);
    }

    /// `n` exceptions, mostly repeats, and `n` rounds of four lookups.
    fn exceptions_are_matched_in_order(n: usize) {
        let dir = crate::data::scratch_dir().unwrap();
        let path = dir.path().join("p.toml");
        let mut text = String::new();
        for i in 0..n {
            // Mostly repeats and combinations of one version and element type; the first
            // for Pad-19 int8 edge is number 7, and one for every element type comes late.
            let (op, dtype) = match i % 5 {
                0 => ("Pad-13", "float"),
                1 => ("Pad-18", "int32"),
                2 => ("CenterCropPad-18", "int8"),
                _ => ("Pad-19", "int8"),
            };
            let modes = if i % 5 == 3 { "[\"constant\"]" } else { "[]" };
            text.push_str(&format!(
                "[[except]]\noperators = [\"{op}\"]\ndtypes = [\"{dtype}\"]\nmodes = {modes}\nreason = \"r{i}\"\n"
            ));
            if i == n - 10 {
                let every: Vec<String> = DataType::ALL.iter().map(|d| format!("{:?}", d.name())).collect();
                text.push_str(&format!(
                    "[[except]]\ndtypes = [{}]\nreason = \"everything else\"\n",
                    every.join(", ")
                ));
            }
        }
        std::fs::write(&path, text).unwrap();
        let profile = Profile::read(&path).unwrap();
        assert_eq!(profile.exceptions.len(), n + 1);
        let reason = |op, version, dtype, mode| profile.excludes(&subject(op, version, dtype, mode)).map(|u| u.0);
        for _ in 0..n {
            assert_eq!(
                reason(PadOp::Pad, 19, DataType::Int8, Some(PadMode::Edge)),
                Some("r4".into())
            );
            assert_eq!(
                reason(PadOp::Pad, 19, DataType::Int8, Some(PadMode::Constant)),
                Some("r3".into())
            );
            assert_eq!(
                reason(PadOp::CenterCropPad, 18, DataType::Int8, None),
                Some("r2".into())
            );
            assert_eq!(
                reason(PadOp::Pad, 19, DataType::Float, None),
                Some("everything else".into())
            );
        }
        // A version outside the table still meets the exception without an operator list.
        assert_eq!(
            reason(PadOp::Pad, 22, DataType::Int8, None),
            Some("everything else".into())
        );
    }
}
