//! The TOML file of a profile (`--profile`, docs/report-format.md#profiles): the file's shape,
//! mirrored by serde types, and [`Profile::read`], which checks every key and names the one at
//! fault.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use super::error::ProfileError;
use super::format_limits::FormatLimits;
use super::input_role::InputRole;
use super::inputs::{InputForm, InputLimits, ModeAxes};
use super::matcher::{Exception, Masks, Matchers};
use super::storage::{Storage, refusal};
use super::{Profile, SourceDigest, label};
use crate::data::duplicate_keys::DuplicateKey;
use crate::data::parse_error::ParseError;
use crate::data::side_file::{MAX_PROFILE_BYTES, excerpt, read_text_capped};
use crate::data::toml_duplicate_keys::duplicate_at;
use crate::operators::{OpVersion, PadMode, PadOp};
use crate::tensor::DataType;

/// The TOML form of a profile.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProfileFile {
    operators: Option<Vec<String>>,
    dtypes: Option<Vec<String>>,
    ranks: Option<BTreeSet<usize>>,
    max_rank: Option<i64>,
    modes: Option<Vec<String>>,
    single_node: Option<bool>,
    empty_tensors: Option<bool>,
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
    /// Element type to the narrower one it is kept in, each key with its place for errors.
    #[serde(default)]
    storage: BTreeMap<Spanned<String>, String>,
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
    /// Reads a TOML profile:
    ///
    /// ```toml
    /// operators = ["Pad-11", "Pad-13", "CenterCropPad-18"]   # or "Pad" for every version
    /// dtypes = ["float", "double", "int32"]
    /// max_rank = 4                   # the data input's rank; or ranks = [1, 2, 3, 4]
    /// modes = ["constant", "reflect", "edge"]
    /// single_node = true             # graphs of the Pad-family node alone
    /// empty_tensors = false          # no tensor with a zero-sized dimension
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
    ///
    /// [storage]                      # element types kept in narrower ones
    /// int64 = "int32"
    /// double = "float"
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
                    source: ParseError::toml(source),
                },
            }
        })?;
        if file.operators.is_none()
            && file.dtypes.is_none()
            && file.ranks.is_none()
            && file.max_rank.is_none()
            && file.modes.is_none()
            && file.single_node.is_none()
            && file.empty_tensors.is_none()
            && file.inputs_as_constants.is_none()
            && file.except.is_empty()
            && file.inputs.is_empty()
            && file.mode_axes.is_empty()
            && file.max_ir_version.is_none()
            && file.max_opset.is_empty()
            && file.storage.is_empty()
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
        if file.ranks.as_ref().is_some_and(BTreeSet::is_empty) {
            return Err(ProfileError::EmptyList {
                path: path.to_owned(),
                field: "ranks",
            });
        }
        // A rank is never negative: a limit below zero excludes every data set.
        let max_rank = file
            .max_rank
            .map(|rank| {
                usize::try_from(rank).map_err(|_| ProfileError::ExcludesEverything {
                    path: path.to_owned(),
                    field: "max_rank".into(),
                    value: rank.to_string(),
                })
            })
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
                    source: ParseError::toml(source),
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
        let mut storage = Storage::default();
        for (key, value) in file.storage {
            let line = 1 + text[..key.span().start].matches('\n').count();
            let narrowing = match (DataType::from_name(key.get_ref()), DataType::from_name(&value)) {
                (Some(wide), Some(narrow)) => refusal(wide, narrow).map_or(Ok((wide, narrow)), Err),
                (None, _) => Err(format!("unknown element type {:?}", key.get_ref())),
                (_, None) => Err(format!("unknown element type {value:?}")),
            };
            match narrowing {
                Ok((wide, narrow)) => storage.insert(wide, narrow),
                Err(why) => {
                    return Err(ProfileError::Narrowing {
                        path: path.to_owned(),
                        line,
                        key: excerpt(key.get_ref(), 80).into_owned(),
                        value: excerpt(&value, 80).into_owned(),
                        why,
                    });
                }
            }
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
            ranks: file.ranks,
            max_rank,
            modes,
            single_node: file.single_node.unwrap_or(false),
            without_empty_tensors: file.empty_tensors == Some(false),
            exceptions: file.except,
            matchers: Matchers::new(masks),
            inputs_as_constants: file.inputs_as_constants.unwrap_or(false),
            inputs,
            mode_axes,
            format: FormatLimits {
                max_ir_version: file.max_ir_version,
                max_opsets,
            },
            storage,
            digest: SourceDigest(Some(crate::data::digest::bytes_digest(text.as_bytes()))),
        })
    }
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
    use crate::judge::profile::subject::{GivenInput, Subject};
    use crate::judge::profile::tests::subject;
    use crate::judge::profile::unsupported::{ProfileKey, Unsupported};

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
            Some(Unsupported::Excluded(
                ProfileKey::Input(InputRole::Pads),
                "pads [0, -1, 2, 0] holds -1, below 0".into()
            ))
        );
        assert_eq!(
            profile.excludes(&given(edge, &[pads(&[0, 3_000_000_000])], 1, &[0])),
            Some(Unsupported::Excluded(
                ProfileKey::Input(InputRole::Pads),
                "pads [0, 3000000000] holds 3000000000, above 2147483647".into()
            ))
        );
        assert_eq!(
            profile.excludes(&given(edge, &[(InputRole::Pads, false, 2, &[0, 1])], 1, &[0])),
            Some(Unsupported::Excluded(
                ProfileKey::Input(InputRole::Pads),
                "a 2-D pads input (supported ranks: 1)".into()
            ))
        );
        let with_axes = [pads(&[1, 1]), (InputRole::Axes, true, 1, &[0][..])];
        assert_eq!(
            profile.excludes(&given(edge, &with_axes, 2, &[0])),
            Some(Unsupported::Excluded(
                ProfileKey::Input(InputRole::Axes),
                "the axes input (not supported)".into()
            ))
        );
        // A profile without [inputs] (every file written before it existed) limits none.
        assert_eq!(Profile::everything().excludes(&given(edge, &with_axes, 2, &[0])), None);
    }

    #[test]
    fn rank_limits_and_single_node_read_from_toml_equal_the_built_ones_and_name_their_value() {
        let profile = read("ranks = [1, 2, 3, 4]\nmax_rank = 3\nsingle_node = true\nempty_tensors = false\n").unwrap();
        assert_eq!(
            profile,
            Profile::everything()
                .data_ranks([1, 2, 3, 4])
                .max_rank(3)
                .single_node_only()
                .without_empty_tensors()
        );
        // Set to what leaving them out means, they limit nothing.
        assert_eq!(
            read("empty_tensors = true\nsingle_node = false").unwrap(),
            Profile::everything()
        );
        let at = |rank, nodes| Subject {
            rank,
            nodes,
            ..subject(PadOp::Pad, 19, DataType::Float, Some(PadMode::Edge))
        };
        assert_eq!(profile.excludes(&at(3, 1)), None);
        assert_eq!(
            profile.excludes(&at(4, 1)),
            Some(Unsupported::Excluded(
                ProfileKey::MaxRank,
                "rank 4 is above max_rank 3".into()
            ))
        );
        assert_eq!(
            profile.excludes(&at(0, 1)),
            Some(Unsupported::Excluded(
                ProfileKey::Ranks,
                "data of rank 0 (supported ranks: 1, 2, 3, 4)".into()
            ))
        );
        assert_eq!(
            profile.excludes(&at(2, 13)),
            Some(Unsupported::Excluded(
                ProfileKey::SingleNode,
                "a graph of 13 nodes, not the Pad-family node alone".into()
            ))
        );
    }

    #[test]
    fn bad_rank_limits_and_switches_are_errors_naming_the_file_the_field_and_the_value() {
        for (text, expected) in [
            (
                "ranks = []",
                "p.toml: ranks = [] would leave every data set unsupported",
            ),
            (
                "max_rank = -1",
                "p.toml: max_rank = -1 would leave every data set unsupported",
            ),
            ("ranks = [2, -1]", "ranks = [2, -1]"),
            ("max_rank = \"4\"", "max_rank = \"4\""),
            ("single_node = \"yes\"", "single_node = \"yes\""),
            ("empty_tensors = 0", "empty_tensors = 0"),
            ("max_ranks = 4", "unknown field `max_ranks`"),
        ] {
            let error = read(text).unwrap_err().to_string();
            assert!(error.contains(expected) && error.contains("p.toml"), "{text}: {error}");
        }
        assert!(read("max_rank = 0").is_ok(), "scalars only is a profile");
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
            Some(Unsupported::Excluded(
                ProfileKey::ModeAxes,
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
            "gates/rten/rten.profile.toml",
            "baselines/mnn.profile.toml",
            "baselines/tvm.profile.toml",
            "baselines/onnxruntime-web.profile.toml",
        ] {
            Profile::read(&root.join(path)).unwrap_or_else(|e| panic!("{e}"));
        }
        // A file of the first format: only the keys it had.
        let old = read("inputs_as_constants = true\nmodes = [\"edge\"]").unwrap();
        assert!(old.inputs_as_constants && old.inputs.is_empty() && old.mode_axes.is_empty());
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
            Some(Unsupported::Excluded(
                ProfileKey::MaxIrVersion,
                "IR version 10 (the backend reads up to 9)".into()
            ))
        );
        assert_eq!(
            profile.excludes(&at(9, 19)),
            Some(Unsupported::Excluded(
                ProfileKey::MaxOpset,
                "opset 19 of ai.onnx (the backend reads up to 18)".into()
            ))
        );
        let microsoft = Subject {
            opsets: BTreeMap::from([(String::new(), 11), ("com.microsoft".to_owned(), 2)]),
            ..at(9, 11)
        };
        assert_eq!(
            profile.excludes(&microsoft),
            Some(Unsupported::Excluded(
                ProfileKey::MaxOpset,
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
    fn storage_narrowings_read_from_toml_equal_the_built_ones() {
        let profile = read("[storage]\nint64 = \"int32\"\ndouble = \"float\"\nfloat = \"bfloat16\"\n").unwrap();
        assert_eq!(
            profile,
            Profile::everything()
                .storage(DataType::Int64, DataType::Int32)
                .storage(DataType::Double, DataType::Float)
                .storage(DataType::Float, DataType::Bfloat16)
        );
        assert_ne!(profile, Profile::everything().storage(DataType::Int64, DataType::Int32));
    }

    #[test]
    fn a_storage_line_that_is_no_narrowing_is_refused_naming_the_line_and_value() {
        let refused = |text: &str| match read(text) {
            Err(error @ ProfileError::Narrowing { .. }) => {
                let ProfileError::Narrowing { line, key, value, .. } = &error else {
                    unreachable!()
                };
                let message = error.to_string();
                let shown = message.split_once(": ").map(|(_, rest)| rest.to_owned());
                (*line, key.clone(), value.clone(), shown.unwrap_or_default())
            }
            other => panic!("{text}: {other:?}"),
        };
        let profile = "modes = [\"edge\"]\n\n[storage]\nint64 = \"int32\"\n";
        assert_eq!(
            refused(&format!("{profile}int128 = \"int64\"\n")),
            (
                5,
                "int128".into(),
                "int64".into(),
                "storage.int128 = \"int64\": unknown element type \"int128\"".into()
            )
        );
        assert_eq!(
            refused(&format!("{profile}int32 = \"int16\"\n")).3,
            "storage.int32 = \"int16\": no narrowing of int32: only int64, uint64, double and float narrow"
        );
        assert_eq!(
            refused(&format!("{profile}double = \"int32\"\n")),
            (
                5,
                "double".into(),
                "int32".into(),
                "storage.double = \"int32\": double narrows to float, float16 or bfloat16 only".into()
            )
        );
        assert_eq!(
            refused("[storage]\nuint64 = \"uint64\"").3,
            "storage.uint64 = \"uint64\": uint64 narrows to uint32 only"
        );
        assert_eq!(
            refused("[storage]\nfloat = \"f16\"").3,
            "storage.float = \"f16\": unknown element type \"f16\""
        );
        // The line is the file's: its path comes first, then the line.
        let error = read("\n[storage]\n\nint64 = \"float\"").unwrap_err().to_string();
        assert!(
            error.ends_with("p.toml:4: storage.int64 = \"float\": int64 narrows to int32 only"),
            "{error}"
        );
        // A value that is no string is toml's own error; a key twice names both lines.
        assert!(matches!(read("[storage]\nint64 = 32"), Err(ProfileError::Parse { .. })));
        match read("[storage]\nint64 = \"int32\"\ndouble = \"float\"\nint64 = \"int32\"\n") {
            Err(ProfileError::DuplicateKey {
                key,
                first_line,
                second_line,
                ..
            }) => assert_eq!((key.as_str(), first_line, second_line), ("storage.int64", 2, 4)),
            other => panic!("{other:?}"),
        }
        // A built narrowing is checked as a file's is.
        let built = Profile::everything().storage(DataType::Int64, DataType::Float);
        assert_eq!(
            built.check_built().unwrap_err().to_string(),
            "the profile handed to the harness keeps int64 as float: int64 narrows to int32 only"
        );
        assert!(
            Profile::everything()
                .storage(DataType::Double, DataType::Float)
                .check_built()
                .is_ok()
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
            Some(Unsupported::Excluded(
                ProfileKey::Operators,
                "operator com.microsoft.Pad-1".into()
            ))
        );
        assert_eq!(
            profile.excludes(&subject(PadOp::Pad, 19, DataType::Int8, edge)),
            Some(Unsupported::Excluded(ProfileKey::Dtypes, "element type int8".into()))
        );
        assert_eq!(
            profile.excludes(&subject(PadOp::Pad, 19, DataType::Float, Some(PadMode::Wrap))),
            Some(Unsupported::Excluded(ProfileKey::Modes, "mode wrap".into()))
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
}
