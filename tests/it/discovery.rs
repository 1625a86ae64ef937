//! Case discovery over the vendored data and over trees made here, and model loading.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pad_conformance::testing::{
    Applicability, AttributeProto, DecodeOptions, DiscoveryError, GraphProto, ModelProto, NodeProto,
    OperatorSetIdProto, Patterns, applicability, discover,
};
use pad_conformance::{AttributeValue, Model};
use prost::Message;

fn vendored() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("onnx-testdata")
}

#[test]
fn every_vendored_release_is_discovered_with_its_pad_version() {
    let cases = discover(&[vendored()], &Patterns::default()).unwrap();
    let mut per_release: BTreeMap<&str, usize> = BTreeMap::new();
    for case in &cases {
        *per_release.entry(case.id.split('/').next().unwrap()).or_default() += 1;
    }
    let expected = [
        ("extended", 1086),
        // 52 promoted findings, and the valid twins of the 26 that must be refused.
        ("fuzz", 52 + 26),
        ("onnx-1.12.0", 8),
        ("onnx-1.13.1", 19),
        ("onnx-1.14.1", 23),
        ("onnx-1.16.2", 23),
        ("onnx-1.18.0", 23),
        ("onnx-1.19.1", 23),
        ("onnx-1.2.1", 8),
        ("onnx-1.22.0", 23),
        ("onnx-1.23.2", 23),
        ("onnx-1.3.0", 8),
        ("onnx-1.4.1", 8),
        ("onnx-1.6.0", 8),
    ];
    assert_eq!(per_release.into_iter().collect::<Vec<_>>(), expected);
    assert!(cases.iter().any(|c| c.id == "onnx-1.22.0/node/test_wrap_pad"));

    // case.json's narrowing is read typed; a case written before the field has none.
    let narrowing = |id: &str| {
        let case = cases.iter().find(|c| c.id == id).unwrap();
        case.info
            .as_ref()
            .and_then(|info| info.narrowing)
            .map(|n| n.to_string())
    };
    assert_eq!(
        narrowing("extended/test_ext_pad11_constant_uint64_narrow_beyond_63_bits").as_deref(),
        Some("beyond-63-bits")
    );
    assert_eq!(narrowing("extended/test_ext_pad11_constant_int64_r0"), None);

    let pad_version = |release: &str| {
        let case = cases
            .iter()
            .find(|c| c.id == format!("{release}/node/test_constant_pad"))
            .unwrap();
        let model = case.load_model(&case.decode_options(1 << 30)).unwrap();
        model.pad_nodes().next().unwrap().0.version
    };
    let versions: Vec<i64> = [
        "onnx-1.2.1",
        "onnx-1.3.0",
        "onnx-1.4.1",
        "onnx-1.6.0",
        "onnx-1.12.0",
        "onnx-1.13.1",
    ]
    .iter()
    .chain(&[
        "onnx-1.14.1",
        "onnx-1.16.2",
        "onnx-1.18.0",
        "onnx-1.19.1",
        "onnx-1.22.0",
        "onnx-1.23.2",
    ])
    .map(|r| pad_version(r))
    .collect();
    // onnx 1.23.2's exported cases, like 1.22.0's files, are written at Pad-25.
    assert_eq!(versions, [2, 2, 2, 11, 13, 18, 19, 21, 23, 24, 25, 25]);
}

fn node(op_type: &str, domain: &str, inputs: &[&str]) -> NodeProto {
    NodeProto {
        op_type: op_type.into(),
        domain: domain.into(),
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: vec!["y".into()],
        ..Default::default()
    }
}

fn model(nodes: Vec<NodeProto>, opsets: &[(&str, i64)]) -> ModelProto {
    ModelProto {
        ir_version: 8,
        opset_import: opsets
            .iter()
            .map(|(domain, version)| OperatorSetIdProto {
                domain: domain.to_string(),
                version: *version,
            })
            .collect(),
        graph: Some(GraphProto {
            node: nodes,
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn write_case(dir: &Path, model: &ModelProto, data_sets: &[usize]) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("model.onnx"), model.encode_to_vec()).unwrap();
    for n in data_sets {
        let set = dir.join(format!("test_data_set_{n}"));
        std::fs::create_dir_all(&set).unwrap();
        for k in 0..=10 {
            std::fs::write(set.join(format!("input_{k}.pb")), b"").unwrap();
        }
    }
}

fn pad_model() -> ModelProto {
    model(vec![node("Pad", "", &["x", "pads"])], &[("", 19)])
}

#[test]
fn discovery_rules_on_a_made_tree() {
    let root = pad_conformance::testing::scratch_dir().unwrap();
    let r = root.path();
    write_case(&r.join("a/test_my_pad"), &pad_model(), &[10, 2, 0]);
    write_case(
        &r.join("b/test_conv_pads"),
        &model(vec![node("Conv", "", &["x", "w"])], &[("", 19)]),
        &[0],
    );
    std::fs::create_dir_all(r.join("test_no_model_pad")).unwrap();
    write_case(&r.join("other_case"), &pad_model(), &[0]);

    let cases = discover(&[r.to_owned()], &Patterns::default()).unwrap();
    let ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["a/test_my_pad", "b/test_conv_pads"]);
    let sets: Vec<usize> = cases[0].data_sets.iter().map(|d| d.index).collect();
    assert_eq!(sets, [0, 2, 10]);
    let inputs: Vec<String> = cases[0].data_sets[0]
        .inputs
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let numeric_order: Vec<String> = (0..=10).map(|k| format!("input_{k}.pb")).collect();
    assert_eq!(inputs, numeric_order);
    assert!(
        cases[0]
            .data_sets
            .iter()
            .all(|d| d.problem.is_none() && d.outputs.is_empty())
    );

    let conv = cases[1].load_model(&cases[1].decode_options(1 << 20)).unwrap();
    match applicability(&conv) {
        Applicability::NotApplicable(reason) => assert!(reason.contains("Conv"), "{reason}"),
        Applicability::Applicable => panic!("a Conv graph is not applicable"),
    }

    // --pattern replaces the defaults.
    let custom = discover(&[r.to_owned()], &Patterns::new(&["other_*"]).unwrap()).unwrap();
    assert_eq!(custom.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), ["other_case"]);

    let empty = pad_conformance::testing::scratch_dir().unwrap();
    assert!(matches!(
        discover(&[empty.path().to_owned()], &Patterns::default()),
        Err(DiscoveryError::NoCases { .. })
    ));
}

#[cfg(unix)]
#[test]
fn links_inside_the_root_are_not_followed_so_each_case_is_found_once_by_its_own_path() {
    let outside = pad_conformance::testing::scratch_dir().unwrap();
    write_case(&outside.path().join("test_far_pad"), &pad_model(), &[0]);
    let root = pad_conformance::testing::scratch_dir().unwrap();
    write_case(&root.path().join("real/test_near_pad"), &pad_model(), &[0]);
    std::os::unix::fs::symlink(outside.path(), root.path().join("escape")).unwrap();
    std::os::unix::fs::symlink(root.path().join("real"), root.path().join("alias")).unwrap();
    std::os::unix::fs::symlink(
        root.path().join("real/test_near_pad"),
        root.path().join("test_alias_pad"),
    )
    .unwrap();
    let cases = discover(&[root.path().to_owned()], &Patterns::default()).unwrap();
    let ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["real/test_near_pad"]);
    // The root itself may be a link.
    let linked = pad_conformance::testing::scratch_dir().unwrap();
    std::os::unix::fs::symlink(root.path(), linked.path().join("data")).unwrap();
    let cases = discover(&[linked.path().join("data")], &Patterns::default()).unwrap();
    assert_eq!(cases.len(), 1);
}

#[cfg(unix)]
#[test]
fn a_bomb_of_links_to_repeated_directories_ends_at_once() {
    // 24 levels, each holding two links to the next and one to its parent: 2^24 paths to
    // the bottom were walked when links were followed.
    let root = pad_conformance::testing::scratch_dir().unwrap();
    let levels: Vec<PathBuf> = (0..=24).map(|i| root.path().join(format!("level{i:02}"))).collect();
    for level in &levels {
        std::fs::create_dir(level).unwrap();
    }
    for pair in levels.windows(2) {
        for name in ["a", "b"] {
            std::os::unix::fs::symlink(&pair[1], pair[0].join(name)).unwrap();
        }
        std::os::unix::fs::symlink("..", pair[1].join("up")).unwrap();
    }
    write_case(&levels[24].join("test_deep_pad"), &pad_model(), &[0]);
    let cases = discover(&[root.path().to_owned()], &Patterns::default()).unwrap();
    let ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["level24/test_deep_pad"]);
}

// Linux's /sys (under Wine, reached as Z:\sys with its links shown as directories, it never
// ends: Windows itself has no such tree).
#[cfg(target_os = "linux")]
#[test]
fn a_system_tree_is_walked_once_and_promptly() {
    // /sys is full of links between its directories; followed, its walk did not end.
    if !Path::new("/sys/class").is_dir() {
        return;
    }
    let error = discover(&[PathBuf::from("/sys")], &Patterns::default()).unwrap_err();
    assert!(matches!(error, DiscoveryError::NoCases { .. }), "{error}");
}

fn load(proto: ModelProto) -> Result<Model, pad_conformance::testing::ReadError> {
    pad_conformance::testing::model_from_proto(Path::new("m/model.onnx"), proto, &DecodeOptions::default())
}

#[test]
fn model_loading_resolves_versions_and_refuses_what_it_cannot_place() {
    let missing_domain = load(model(vec![node("Pad", "com.microsoft", &["x", "p"])], &[("", 19)])).unwrap_err();
    let message = missing_domain.to_string();
    assert!(
        message.contains("m/model.onnx") && message.contains("com.microsoft"),
        "{message}"
    );
    assert!(message.contains("node 0 (Pad)"), "{message}");

    let too_old = load(model(vec![node("CenterCropPad", "", &["x", "s"])], &[("", 13)])).unwrap_err();
    assert!(too_old.to_string().contains("since version 18"), "{too_old}");

    let ms = load(model(
        vec![node("Pad", "com.microsoft", &["x", "p"])],
        &[("", 11), ("com.microsoft", 1)],
    ))
    .unwrap();
    assert_eq!(ms.graph.nodes[0].label(), "com.microsoft.Pad-1");

    let omitted = load(model(
        vec![node("Pad", "ai.onnx", &["x", "p", "", "axes"])],
        &[("ai.onnx", 18)],
    ))
    .unwrap();
    let pad = &omitted.graph.nodes[0];
    assert_eq!(
        (pad.label().as_str(), pad.input(1), pad.input(2), pad.input(3)),
        ("Pad-18", Some("p"), None, Some("axes"))
    );
}

#[test]
fn attribute_types_are_inferred_when_old_files_leave_them_unset() {
    let mut pad = node("Pad", "", &["x"]);
    pad.attribute = vec![
        AttributeProto {
            name: "pads".into(),
            ints: vec![0, 1, 0, 1],
            ..Default::default()
        },
        AttributeProto {
            name: "mode".into(),
            s: "edge".into(),
            ..Default::default()
        },
        AttributeProto {
            name: "value".into(),
            f: Some(1.5),
            ..Default::default()
        },
    ];
    let loaded = load(model(vec![pad], &[("", 2)])).unwrap();
    let node = &loaded.graph.nodes[0];
    assert_eq!(node.attribute("pads"), Some(&AttributeValue::Ints(vec![0, 1, 0, 1])));
    assert_eq!(node.attribute("mode"), Some(&AttributeValue::String(b"edge".to_vec())));
    assert_eq!(node.attribute("value"), Some(&AttributeValue::Float(1.5)));
}

#[test]
fn a_gap_or_a_clash_in_file_numbering_is_that_data_set_s_problem() {
    let root = pad_conformance::testing::scratch_dir().unwrap();
    let case = root.path().join("test_gap_pad");
    write_case(&case, &pad_model(), &[0, 1, 2]);
    std::fs::remove_file(case.join("test_data_set_1/input_3.pb")).unwrap();
    std::fs::write(case.join("test_data_set_2/output_0.pb"), b"").unwrap();
    std::fs::write(case.join("test_data_set_2/output_00.pb"), b"").unwrap();

    let cases = discover(&[root.path().to_owned()], &Patterns::default()).unwrap();
    let problems: Vec<Option<String>> = cases[0]
        .data_sets
        .iter()
        .map(|d| d.problem.as_ref().map(ToString::to_string))
        .collect();
    assert_eq!(problems[0], None);
    let gap = problems[1].as_deref().unwrap();
    assert!(
        gap.ends_with("test_data_set_1: input_3.pb is missing (found input_4.pb)"),
        "{gap}"
    );
    let clash = problems[2].as_deref().unwrap();
    assert!(
        clash.ends_with("output_0.pb and output_00.pb are both number 0"),
        "{clash}"
    );
}

#[cfg(unix)]
#[test]
fn a_link_loop_is_walked_once() {
    let root = pad_conformance::testing::scratch_dir().unwrap();
    write_case(&root.path().join("a/test_one_pad"), &pad_model(), &[0]);
    std::os::unix::fs::symlink(root.path(), root.path().join("a/back")).unwrap();
    let cases = discover(&[root.path().to_owned()], &Patterns::default()).unwrap();
    let ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["a/test_one_pad"]);
}

#[cfg(unix)]
#[test]
fn an_unwalkable_entry_is_an_errored_case_and_the_walk_goes_on() {
    let root = pad_conformance::testing::scratch_dir().unwrap();
    write_case(&root.path().join("test_b_pad"), &pad_model(), &[0]);
    std::os::unix::fs::symlink(root.path().join("nowhere"), root.path().join("test_a_pad")).unwrap();
    // Named like no case: a dangling link there is none of the suite's business.
    std::os::unix::fs::symlink(root.path().join("nowhere"), root.path().join("notes")).unwrap();
    let cases = discover(&[root.path().to_owned()], &Patterns::default()).unwrap();
    let found: Vec<(&str, bool)> = cases.iter().map(|c| (c.id.as_str(), c.problem.is_some())).collect();
    assert_eq!(found, [("test_a_pad", true), ("test_b_pad", false)]);
    let problem = cases[0].problem.as_ref().unwrap().to_string();
    assert!(
        problem.contains("test_a_pad") && problem.contains("No such file"),
        "{problem}"
    );
}

#[test]
fn a_tripped_token_stops_discovery() {
    use pad_conformance::testing::Cancel;
    use pad_conformance::testing::DataRoot;
    use pad_conformance::testing::discover_until;
    let roots = DataRoot::resolve(&[vendored()]).unwrap();
    let cancel = Cancel::new();
    assert!(discover_until(&roots, &Patterns::default(), &cancel).is_ok_and(|cases| !cases.is_empty()));
    cancel.cancel();
    assert!(matches!(
        discover_until(&roots, &Patterns::default(), &cancel),
        Err(DiscoveryError::Cancelled)
    ));
}
