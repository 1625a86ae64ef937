//! A must-refuse case's valid twin (its case.json's `twin`): the directory name of a case
//! beside it, the same operator with the one property the refused case breaks repaired. A
//! refusal is worth something only when the backend runs the twin; the twin is resolved once,
//! at discovery, among the cases found, and a sidecar naming no such twin makes its case
//! errored, naming the file and the field — one broken case never stops the others.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use super::error::{TwinError, TwinProblem};
use super::info::{CASE_INFO_FILE, CaseInfo};
use super::{ListingProblem, TestCase};
use crate::data::json_file::read_json;
use crate::data::side_file::MAX_CASE_INFO_BYTES;

/// Resolves every twin a case.json of `cases` names: the twin's id goes to the case's `twin`,
/// or the case becomes errored with a [`TwinError`] (a case already errored is left so). A twin
/// outside the discovery (another `--pattern`, beyond the root) is read from its directory.
pub(crate) fn resolve_twins(cases: &mut [TestCase]) {
    let index: std::collections::HashMap<PathBuf, usize> =
        cases.iter().enumerate().map(|(i, c)| (c.dir.clone(), i)).collect();
    for i in 0..cases.len() {
        let case = &cases[i];
        let Some(name) = case.info.as_ref().and_then(|info| info.twin.clone()) else {
            continue;
        };
        if case.problem.is_some() {
            continue;
        }
        let resolved = twin_of(case, &name, |dir| index.get(dir).map(|&t| &cases[t]));
        let case = &mut cases[i];
        match resolved {
            Ok(id) => case.twin = Some(id),
            Err(problem) => {
                case.problem = Some(ListingProblem::Twin(Arc::new(TwinError {
                    path: case.dir.join(CASE_INFO_FILE),
                    twin: name,
                    problem,
                })));
            }
        }
    }
}

/// The id of `case`'s twin `name`, checked; `found` gives the discovered case of a directory.
fn twin_of<'a>(
    case: &TestCase,
    name: &str,
    found: impl Fn(&Path) -> Option<&'a TestCase>,
) -> Result<String, TwinProblem> {
    let mut components = Path::new(name).components();
    let (Some(Component::Normal(_)), None) = (components.next(), components.next()) else {
        return Err(TwinProblem::NotAName);
    };
    let refused: Vec<usize> = case
        .data_sets
        .iter()
        .filter(|d| d.expected_error.is_some())
        .map(|d| d.index)
        .collect();
    if refused.is_empty() {
        return Err(TwinProblem::NotRefused);
    }
    let dir = case.dir.parent().unwrap_or(Path::new("")).join(name);
    let own = case.info.as_deref().expect("a twin is named by a case.json");
    match found(&dir) {
        Some(twin) => {
            // A twin that cannot be listed is errored in the run on its own: its refused
            // case's refusal goes unverified there, and says why.
            if twin.problem.is_some() {
                return Ok(twin.id.clone());
            }
            if let Some(file) = twin.data_sets.iter().find_map(|d| d.expected_error.clone()) {
                return Err(TwinProblem::MustRefuse { file });
            }
            same_operator(own, twin.info.as_deref().ok_or(TwinProblem::Undescribed)?)?;
            if let Some(&number) = refused.iter().find(|&&n| !twin.data_sets.iter().any(|d| d.index == n)) {
                return Err(TwinProblem::MissingDataSet { number });
            }
            Ok(twin.id.clone())
        }
        None => {
            if !dir.join("model.onnx").is_file() {
                return Err(TwinProblem::Missing { dir });
            }
            let path = dir.join(CASE_INFO_FILE);
            if !path.is_file() {
                return Err(TwinProblem::Undescribed);
            }
            let info =
                read_json::<CaseInfo>(&path, MAX_CASE_INFO_BYTES).map_err(|e| TwinProblem::Unreadable(Arc::new(e)))?;
            if info.expect == "error" {
                return Err(TwinProblem::MustRefuse { file: path });
            }
            same_operator(own, &info)?;
            // Named as a discovery of the case's root would name it: beside the case's id.
            Ok(match case.id.rsplit_once('/') {
                Some((parent, _)) => format!("{parent}/{name}"),
                None => name.to_owned(),
            })
        }
    }
}

fn same_operator(own: &CaseInfo, twin: &CaseInfo) -> Result<(), TwinProblem> {
    let label = |info: &CaseInfo| crate::model::opset::operator_label(&info.domain, &info.op, info.version);
    let (claimed, actual) = (label(own), label(twin));
    if claimed == actual {
        Ok(())
    } else {
        Err(TwinProblem::OtherOperator { claimed, actual })
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use crate::case::{Patterns, discover};

    /// A case directory `name` under `root`: one data set (two with `data_sets` 2) that must be
    /// refused or not, and a case.json of `version` naming `twin` when given.
    fn case(root: &Path, name: &str, version: i64, refused: bool, twin: Option<&str>, data_sets: usize) {
        let dir = root.join(name);
        for n in 0..data_sets {
            let data = dir.join(format!("test_data_set_{n}"));
            fs::create_dir_all(&data).unwrap();
            fs::write(data.join("input_0.pb"), b"").unwrap();
            match refused {
                true => fs::write(data.join("expected_error.txt"), "refused\n").unwrap(),
                false => fs::write(data.join("output_0.pb"), b"").unwrap(),
            }
        }
        fs::write(dir.join("model.onnx"), b"").unwrap();
        let (expect, rules) = if refused {
            ("error", r#", "rules": ["axis-out-of-range"]"#)
        } else {
            ("output", "")
        };
        let twin = twin.map_or_else(String::new, |t| format!(r#", "twin": {t:?}"#));
        let info = format!(
            r#"{{"op": "Pad", "domain": "", "version": {version}, "mode": "constant", "dtype": "float",
                "expect": "{expect}", "basis": {{"kind": "spec", "section": "docs/semantics.md#axes"}}{rules}{twin}}}"#
        );
        fs::write(dir.join(CASE_INFO_FILE), info).unwrap();
    }

    fn find<'a>(cases: &'a [TestCase], id: &str) -> &'a TestCase {
        cases
            .iter()
            .find(|c| c.id == id)
            .unwrap_or_else(|| panic!("no case {id}"))
    }

    /// The problem of case `id`, as its errored line says it.
    fn problem(cases: &[TestCase], id: &str) -> String {
        match &find(cases, id).problem {
            Some(ListingProblem::Twin(error)) => error.to_string(),
            other => panic!("{id}: {other:?}"),
        }
    }

    #[test]
    fn a_twin_beside_the_case_is_resolved_by_its_id_inside_the_discovery_or_outside_it() {
        let dir = crate::data::scratch_dir().unwrap();
        let root = dir.path().join("extended");
        case(&root, "test_r_pad", 18, true, Some("test_r_pad_twin"), 1);
        case(&root, "test_r_pad_twin", 18, false, None, 1);
        let cases = discover(std::slice::from_ref(&dir.path().to_owned()), &Patterns::default()).unwrap();
        let refused = find(&cases, "extended/test_r_pad");
        assert!(refused.problem.is_none(), "{:?}", refused.problem);
        assert_eq!(refused.twin.as_deref(), Some("extended/test_r_pad_twin"));
        assert_eq!(refused.twin_of(0).as_deref(), Some("extended/test_r_pad_twin/0"));
        assert_eq!(find(&cases, "extended/test_r_pad_twin").twin, None);
        // A pattern that leaves the twin out: read from its directory, named as it would be.
        let cases = discover(std::slice::from_ref(&root), &Patterns::new(&["test_r_pad"]).unwrap()).unwrap();
        assert_eq!(cases.len(), 1);
        assert_eq!(cases[0].twin.as_deref(), Some("test_r_pad_twin"));
        // … and its problems are found there too.
        case(&root, "test_r_pad_twin", 13, false, None, 1);
        let cases = discover(std::slice::from_ref(&root), &Patterns::new(&["test_r_pad"]).unwrap()).unwrap();
        assert!(problem(&cases, "test_r_pad").ends_with("is Pad-13, not Pad-18: a twin is the same operator"));
    }

    /// Each twin that is not one errors its case, naming the case.json, the field and what is
    /// wrong; every other case of the discovery is found as before.
    #[test]
    fn a_twin_that_is_missing_refused_another_operator_or_no_name_errors_its_case_alone() {
        let dir = crate::data::scratch_dir().unwrap();
        let root = dir.path();
        case(root, "test_missing_pad", 18, true, Some("test_gone_pad"), 1);
        case(root, "test_refused_pad", 18, true, Some("test_refused_pad_twin"), 1);
        case(root, "test_refused_pad_twin", 18, true, None, 1);
        case(root, "test_other_pad", 18, true, Some("test_other_pad_twin"), 1);
        case(root, "test_other_pad_twin", 19, false, None, 1);
        case(root, "test_path_pad", 18, true, Some("../test_other_pad_twin"), 1);
        case(root, "test_valid_pad", 18, false, Some("test_other_pad_twin"), 1);
        case(root, "test_two_pad", 18, true, Some("test_two_pad_twin"), 2);
        case(root, "test_two_pad_twin", 18, false, None, 1);
        let cases = discover(&[root.to_owned()], &Patterns::default()).unwrap();
        assert_eq!(cases.len(), 9);
        let json = |name: &str| crate::text::shown_path(&root.join(name).join(CASE_INFO_FILE)).to_string();
        assert_eq!(
            problem(&cases, "test_missing_pad"),
            format!(
                "{}: its twin \"test_gone_pad\" does not exist: {} holds no model.onnx",
                json("test_missing_pad"),
                crate::text::shown_path(&root.join("test_gone_pad"))
            )
        );
        assert_eq!(
            problem(&cases, "test_refused_pad"),
            format!(
                "{}: its twin \"test_refused_pad_twin\" must be refused too ({}): a twin is a valid case",
                json("test_refused_pad"),
                crate::text::shown_path(
                    &root
                        .join("test_refused_pad_twin")
                        .join("test_data_set_0")
                        .join("expected_error.txt")
                )
            )
        );
        assert_eq!(
            problem(&cases, "test_other_pad"),
            format!(
                "{}: its twin \"test_other_pad_twin\" is Pad-19, not Pad-18: a twin is the same operator",
                json("test_other_pad")
            )
        );
        assert!(problem(&cases, "test_path_pad").ends_with("is not the name of a case directory beside it"));
        assert!(problem(&cases, "test_valid_pad").ends_with("only those have twins"));
        assert!(problem(&cases, "test_two_pad").contains("has no test_data_set_1"));
        // The twins themselves, and nothing else, are found as they are.
        for id in ["test_refused_pad_twin", "test_other_pad_twin", "test_two_pad_twin"] {
            assert!(find(&cases, id).problem.is_none(), "{id}");
        }
    }
}
