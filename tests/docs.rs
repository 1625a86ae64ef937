//! Every `docs/semantics.md#anchor` the repository cites — in code, docs, and the basis of
//! each generated case — names a section the page has, so a reader following a verdict's
//! basis lands on its rule.

use std::collections::BTreeSet;
use std::path::Path;

use walkdir::WalkDir;

/// GitHub's anchor for a heading: lowercase, punctuation dropped, spaces to hyphens.
fn anchor(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

#[test]
fn every_cited_section_of_the_semantics_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("docs/semantics.md")).unwrap();
    let sections: BTreeSet<String> = page
        .lines()
        .filter_map(|l| l.strip_prefix('#'))
        .map(|l| anchor(l.trim_start_matches('#').trim()))
        .collect();
    assert!(
        sections.contains("empty-axes") && sections.contains("commicrosoft-pad"),
        "{sections:?}"
    );
    let mut cited = 0;
    let mut missing = Vec::new();
    let places = ["src", "docs", "scripts", "onnx-testdata/extended", "README.md"];
    for entry in places
        .iter()
        .flat_map(|p| WalkDir::new(root.join(p)))
        .map(Result::unwrap)
    {
        if !entry.file_type().is_file() || entry.path().extension().is_some_and(|e| e == "pb" || e == "onnx") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(entry.path()) else {
            continue;
        };
        for (i, _) in text.match_indices("semantics.md#") {
            let rest = &text[i + "semantics.md#".len()..];
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '-').collect();
            // `#<anchor>` in prose and the test fixtures' placeholder are not citations.
            if name.is_empty() || entry.path().ends_with("src/cli/scoreboard/tests.rs") {
                continue;
            }
            cited += 1;
            if !sections.contains(&name) {
                missing.push(format!("{}: #{name}", entry.path().display()));
            }
        }
    }
    assert!(cited > 800, "every extended case cites its basis: {cited}");
    assert!(
        missing.is_empty(),
        "cited sections docs/semantics.md lacks:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_semantics_lists_every_refusal_rule_as_the_code_has_it() {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/semantics.md")).unwrap();
    let begin = "<!-- rules:begin -->\n";
    let start = text.find(begin).expect("the rules block") + begin.len();
    let block = &text[start..text.find("<!-- rules:end -->").expect("its end")];
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pad-conformance"))
        .args(["rules", "--format", "markdown"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let table = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        block, table,
        "docs/semantics.md#refusal-rules is stale: paste `pad-conformance rules`"
    );
    // One row per rule, each linking to a section the page has (the test above checks those).
    for rule in pad_conformance::operators::Rule::ALL {
        assert!(
            block.contains(&format!("| `{}` | {} |", rule.id(), rule.basis().0)),
            "{rule}"
        );
    }
    let json: serde_json::Value = serde_json::from_slice(
        &std::process::Command::new(env!("CARGO_BIN_EXE_pad-conformance"))
            .args(["rules", "--format", "json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert_eq!(
        json.as_array().unwrap().len(),
        pad_conformance::operators::Rule::ALL.len()
    );
    let repeated = json
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["id"] == "axis-repeated")
        .unwrap();
    assert_eq!(
        (repeated["basis"].as_str(), repeated["section"].as_str()),
        (Some("undefined"), Some("axes"))
    );
}
