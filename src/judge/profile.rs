//! Capability profiles: what a backend claims to support — operator versions, element types,
//! modes, and whether it takes pads, constant_value, axes and shape as graph inputs or only
//! as constants. Data sets outside the profile are `unsupported`: counted and listed, never
//! failed, so a baseline lists real failures, not a runtime's whole scope.
//!
//! For exec workers a profile is a TOML file (beside the baseline); for Rust backends, a
//! builder:
//!
//! ```
//! use pad_conformance::judge::profile::Profile;
//! use pad_conformance::operators::PadMode;
//! use pad_conformance::DataType;
//!
//! let profile = Profile::everything()
//!     .without_dtypes([DataType::String, DataType::Complex64])
//!     .without_modes([PadMode::Wrap])
//!     .constant_inputs_only();
//! assert!(profile.inputs_as_constants);
//! ```

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::data::side_file::{MAX_PROFILE_BYTES, excerpt, excerpt_lines, read_text_capped};
use crate::model::{AttributeValue, Model};
use crate::operators::{OpVersion, PadMode, PadOp};
use crate::tensor::DataType;
use crate::tensor::Tensor;

/// What a backend supports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Profile {
    /// The operator versions it supports; `None`: all.
    pub operators: Option<BTreeSet<OpVersion>>,
    /// The element types of the data input it supports; `None`: all.
    pub dtypes: Option<BTreeSet<DataType>>,
    /// The modes it supports; `None`: all.
    pub modes: Option<BTreeSet<PadMode>>,
    /// Combinations it does not support, each with a reason, as read ([`Profile::exceptions`]).
    exceptions: Vec<Exception>,
    /// The exceptions matched in one step each, and the first of them each subject matches:
    /// lookups stay constant-time however many exceptions a profile lists.
    matchers: Matchers,
    /// It takes pads, constant_value, axes and shape only as constants (initializers), so
    /// every data set is run with its inputs after the data made constants.
    pub inputs_as_constants: bool,
}

/// A combination a backend does not support: every field that is set must match.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exception {
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

/// The facts of a data set a profile is matched against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Subject {
    /// The operator version under test.
    pub operator: OpVersion,
    /// The data input's element type.
    pub dtype: DataType,
    /// The mode (none for CenterCropPad).
    pub mode: Option<PadMode>,
}

impl Subject {
    /// What a profile is matched against for `model` on `inputs`: its Pad-family operator
    /// version, the data's element type and the mode; `None` for a model without one.
    pub fn of(model: &Model, inputs: &[Tensor]) -> Option<Subject> {
        let (node, _) = model.pad_nodes().next()?;
        let operator = OpVersion::of(node)?;
        let mode = match (operator.op, node.attribute("mode")) {
            (PadOp::CenterCropPad, _) => None,
            (_, Some(AttributeValue::String(name))) => Some(PadMode::from_name(&String::from_utf8_lossy(name))?),
            (_, _) => Some(PadMode::Constant),
        };
        Some(Subject {
            operator,
            dtype: inputs.first()?.data_type(),
            mode,
        })
    }
}

/// Why a data set is outside a profile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported(pub String);

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "outside the backend's profile: {}", self.0)
    }
}

/// A profile file that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// The file cannot be read.
    #[error("reading {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Not TOML of a profile's shape. The message quotes at most a short excerpt of the
    /// line at fault.
    #[error("reading {}: {}", path.display(), excerpt_lines(&source.to_string(), 160, 12))]
    Parse {
        /// The file.
        path: PathBuf,
        /// Where and why.
        #[source]
        source: toml::de::Error,
    },
    /// A file that sets nothing: most likely the wrong file, and "everything" is what leaving
    /// `--profile` out already means.
    #[error("{}: the profile sets nothing (no key); leave it out to run every data set", path.display())]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// A list that is empty: every data set would be unsupported.
    #[error("{}: {field} = [] would leave every data set unsupported; leave the key out to mean all", path.display())]
    EmptyList {
        /// The file.
        path: PathBuf,
        /// `operators`, `dtypes` or `modes`.
        field: &'static str,
    },
    /// A name that is no operator version, element type or mode.
    #[error("{}: {field}: unknown {what} {value:?}", path.display())]
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
    /// ```
    ///
    /// Every key is optional; a missing list means everything.
    pub fn read(path: &Path) -> Result<Profile, ProfileError> {
        let text = read_text_capped(path, MAX_PROFILE_BYTES).map_err(|source| ProfileError::Read {
            path: path.to_owned(),
            source,
        })?;
        let file: ProfileFile = toml::from_str(&text).map_err(|source| ProfileError::Parse {
            path: path.to_owned(),
            source,
        })?;
        if file.operators.is_none()
            && file.dtypes.is_none()
            && file.modes.is_none()
            && file.inputs_as_constants.is_none()
            && file.except.is_empty()
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
        for (i, exception) in file.except.iter().enumerate() {
            let operators = labels
                .parse(&exception.operators)
                .map_err(|v| unknown(format!("except[{i}].operators"), "operator", &v))?;
            let dtypes = parse_dtypes(&exception.dtypes)
                .map_err(|v| unknown(format!("except[{i}].dtypes"), "element type", &v))?;
            let modes = parse_modes(&exception.modes).map_err(|v| unknown(format!("except[{i}].modes"), "mode", &v))?;
            masks.push(Masks::new(&operators, &dtypes, &modes));
        }
        Ok(Profile {
            operators,
            dtypes,
            modes,
            exceptions: file.except,
            matchers: Matchers::new(masks),
            inputs_as_constants: file.inputs_as_constants.unwrap_or(false),
        })
    }

    /// The combinations it does not support, in the order the profile lists them.
    pub fn exceptions(&self) -> &[Exception] {
        &self.exceptions
    }

    /// Why `subject` is outside the profile, if it is.
    pub fn excludes(&self, subject: &Subject) -> Option<Unsupported> {
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
        self.matchers
            .first_match(subject)
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
    fn of(subject: &Subject) -> Masks {
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

/// The exceptions' masks, and for each subject of the tables the first exception it
/// matches, worked out once when the profile is read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Matchers {
    masks: Vec<Masks>,
    first: HashMap<Subject, usize>,
}

impl Matchers {
    /// Each exception is tried only on the subjects no earlier one matched, and one equal
    /// to an earlier one is skipped: at most (exceptions × subjects) mask tests, where the
    /// subjects (about 1,500) are a constant of the operator table, not of the input.
    fn new(masks: Vec<Masks>) -> Matchers {
        let mut left: Vec<(Subject, Masks)> = every_subject().map(|s| (s, Masks::of(&s))).collect();
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
    fn first_match(&self, subject: &Subject) -> Option<usize> {
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
fn every_subject() -> impl Iterator<Item = Subject> {
    OpVersion::all().flat_map(|operator| {
        DataType::ALL.into_iter().flat_map(move |dtype| {
            PadMode::ALL
                .into_iter()
                .map(Some)
                .chain([None])
                .map(move |mode| Subject { operator, dtype, mode })
        })
    })
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

    fn subject(op: PadOp, version: i64, dtype: DataType, mode: Option<PadMode>) -> Subject {
        Subject {
            operator: OpVersion { op, version },
            dtype,
            mode,
        }
    }

    #[test]
    fn a_toml_profile_excludes_what_it_does_not_list_and_its_exceptions() {
        let dir = tempfile::tempdir().unwrap();
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
        let dir = tempfile::tempdir().unwrap();
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

    /// A profile of 100,000 exceptions, each tried over the whole table of subjects: with a
    /// scan of the exceptions per data set (as once), the lookups below would take hours;
    /// each must still find the first exception that matches, in the file's order.
    #[test]
    fn many_exceptions_are_matched_in_order_without_a_scan_per_lookup() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.toml");
        let mut text = String::new();
        for i in 0..100_000 {
            // Mostly repeats and combinations of one version and element type; the first
            // for Pad-19 int8 edge is number 7, and one without lists comes late.
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
            if i == 99_990 {
                text.push_str("[[except]]\nreason = \"everything else\"\n");
            }
        }
        std::fs::write(&path, text).unwrap();
        let profile = Profile::read(&path).unwrap();
        assert_eq!(profile.exceptions().len(), 100_001);
        let reason = |op, version, dtype, mode| profile.excludes(&subject(op, version, dtype, mode)).map(|u| u.0);
        for _ in 0..100_000 {
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
        // A version outside the table still meets the exception without lists.
        assert_eq!(
            reason(PadOp::Pad, 22, DataType::Int8, None),
            Some("everything else".into())
        );
    }
}
