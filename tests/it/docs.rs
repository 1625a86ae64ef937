//! The docs stay true: every `docs/semantics.md#anchor` the repository cites — in code, docs,
//! and the basis of each generated case — names a section the page has, so a reader following a
//! verdict's basis lands on its rule; and the counts README.md and docs/ state (written by
//! scripts/readme-figures and scripts/gates-matrix between markers) are what the bundled data
//! gives today; and the workers, gates and backends the docs count and name are those in
//! scripts/backends/, gates/ and baselines/; every link of README.md and docs/ lands on a file
//! and heading there; the README's picture shows its matrix, and its quick start stays short.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use pad_conformance::OpVersion;
use pad_conformance::testing::{Patterns, discover};
use walkdir::WalkDir;

/// GitHub's anchor for a heading: the text as shown (a link's text, not its target), lowercase,
/// what is neither a letter, a digit, `_`, `-` nor a space dropped, spaces to hyphens.
fn anchor(heading: &str) -> String {
    let mut shown = String::new();
    let mut rest = heading;
    while let Some(at) = rest.find("](") {
        shown.push_str(&rest[..at]);
        rest = rest[at + 2..].split_once(')').map_or("", |(_, after)| after);
    }
    shown.push_str(rest);
    shown
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The lines of a Markdown page outside its fenced code blocks.
fn prose(page: &str) -> impl Iterator<Item = &str> {
    let mut fenced = false;
    page.lines().filter(move |line| {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            return false;
        }
        !fenced
    })
}

/// The anchors GitHub gives a page's headings; a heading repeated gets `-1`, `-2`, … after the
/// first.
fn heading_anchors(page: &str) -> BTreeSet<String> {
    let mut anchors = BTreeSet::new();
    for line in prose(page) {
        let level = line.chars().take_while(|c| *c == '#').count();
        if !(1..=6).contains(&level) || !line[level..].starts_with(' ') {
            continue;
        }
        let base = anchor(line[level..].trim());
        let mut name = base.clone();
        for n in 1.. {
            if !anchors.contains(&name) {
                break;
            }
            name = format!("{base}-{n}");
        }
        anchors.insert(name);
    }
    anchors
}

/// The targets of a page's Markdown links (`[text](target)`) that point into the repository.
fn repository_links(page: &str) -> Vec<String> {
    let mut links = Vec::new();
    for line in prose(page) {
        for (at, _) in line.match_indices("](") {
            let Some((target, _)) = line[at + 2..].split_once(')') else {
                continue;
            };
            if !target.contains("://") && !target.starts_with("mailto:") {
                links.push(target.to_owned());
            }
        }
    }
    links
}

#[test]
fn every_link_into_the_docs_lands_on_a_file_and_a_heading_it_has() {
    let mut pages = vec![root().join("README.md")];
    pages.extend(
        std::fs::read_dir(root().join("docs"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "md")),
    );
    let mut checked = 0;
    let mut broken = Vec::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        for link in repository_links(&text) {
            let (path, fragment) = link.split_once('#').unwrap_or((&link, ""));
            let target = if path.is_empty() {
                page.clone()
            } else {
                page.parent().unwrap().join(path)
            };
            let place = format!("{}: ({link})", page.strip_prefix(root()).unwrap().display());
            if !target.exists() {
                broken.push(format!("{place}: no such file"));
                continue;
            }
            if fragment.is_empty() || target.extension().is_none_or(|e| e != "md") {
                continue;
            }
            checked += 1;
            if !heading_anchors(&std::fs::read_to_string(&target).unwrap()).contains(fragment) {
                broken.push(format!("{place}: no heading has the anchor #{fragment}"));
            }
        }
    }
    assert!(checked > 100, "{checked} links with an anchor found");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn a_heading_anchor_is_githubs() {
    let page = "# Baselines (`--baseline`, `--write-baseline`)\n## A [worker](x.md) in Python\n\
                ```sh\n# not a heading\n```\n## Notes\n## Notes\n#hashtag\n## snake_case\n";
    let anchors: Vec<String> = heading_anchors(page).into_iter().collect();
    assert_eq!(
        anchors,
        [
            "a-worker-in-python",
            "baselines---baseline---write-baseline",
            "notes",
            "notes-1",
            "snake_case"
        ]
    );
    assert_eq!(
        repository_links("see [a](b.md#c), [d](https://e/f#g) and `x`\n```\n[h](i.md)\n```\n[j](#k)"),
        ["b.md#c", "#k"]
    );
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
    for rule in pad_conformance::Rule::ALL {
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
    assert_eq!(json["format"], 2);
    let rows = &json["rules"];
    assert_eq!(rows.as_array().unwrap().len(), pad_conformance::Rule::ALL.len());
    let repeated = rows
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

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(file: &str) -> String {
    std::fs::read_to_string(root().join(file)).unwrap_or_else(|e| panic!("reading {file}: {e}"))
}

/// The bodies of every `<!-- {marker}:begin -->` … `<!-- {marker}:end -->` block of `text`.
fn blocks<'a>(text: &'a str, marker: &str) -> Vec<&'a str> {
    let begin = format!("<!-- {marker}:begin -->\n");
    let end = format!("<!-- {marker}:end -->");
    text.match_indices(&begin)
        .map(|(i, _)| {
            let body = &text[i + begin.len()..];
            &body[..body.find(&end).unwrap_or_else(|| panic!("{marker}: no end marker"))]
        })
        .collect()
}

/// The one `figures:NAME` block of `file`, which must be there and filled.
fn figures<'a>(text: &'a str, file: &str, name: &str) -> &'a str {
    let found = blocks(text, &format!("figures:{name}"));
    assert_eq!(found.len(), 1, "{file}: one figures:{name} block expected");
    assert!(
        found[0].lines().count() > 1,
        "{file}: figures:{name} is empty: run scripts/readme-figures"
    );
    found[0]
}

/// What the bundled data gives, computed with the library, not with the binary whose output
/// the script wrote down.
struct Counts {
    cases: usize,
    data_sets: usize,
    upstream: usize,
    promoted: usize,
    /// The valid twins of the promoted findings that must be refused, beside them in fuzz/.
    promoted_twins: usize,
    releases: Vec<String>,
    per_release: Vec<(String, usize)>,
    extended: usize,
    refusals: usize,
    triples: usize,
}

fn counts() -> Counts {
    let cases = discover(&[root().join("onnx-testdata")], &Patterns::default()).unwrap();
    let release = |id: &str| id.split('/').next().unwrap().to_owned();
    // Upstream node tests (a directory per onnx release), generated cases, promoted fuzz findings
    // and the twins of those that must be refused.
    let extended: Vec<_> = cases.iter().filter(|c| c.id.starts_with("extended/")).collect();
    let twins: BTreeSet<&str> = cases.iter().filter_map(|c| c.twin.as_deref()).collect();
    let (promoted_twins, promoted): (Vec<_>, Vec<_>) = cases
        .iter()
        .filter(|c| c.id.starts_with("fuzz/"))
        .partition(|c| twins.contains(c.id.as_str()));
    let upstream: Vec<_> = cases
        .iter()
        .filter(|c| !c.id.starts_with("extended/") && !c.id.starts_with("fuzz/"))
        .collect();
    let releases: Vec<String> = upstream
        .iter()
        .map(|c| release(&c.id))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let per_release = releases
        .iter()
        .map(|r| (r.clone(), upstream.iter().filter(|c| release(&c.id) == *r).count()))
        .collect();
    Counts {
        cases: cases.len(),
        data_sets: cases.iter().map(|c| c.data_sets.len()).sum(),
        upstream: upstream.len(),
        promoted: promoted.len(),
        promoted_twins: promoted_twins.len(),
        releases,
        per_release,
        extended: extended.len(),
        refusals: extended
            .iter()
            .filter(|c| c.data_sets.iter().any(|d| d.expected_error.is_some()))
            .count(),
        // As `pad-conformance coverage` counts them: one per mode, one for CenterCropPad.
        triples: OpVersion::all()
            .map(|op| op.data_types().count() * op.modes().len().max(1))
            .sum(),
    }
}

fn assert_contains(block: &str, what: &str, place: &str) {
    assert!(
        block.contains(what),
        "{place} lacks {what:?}, so it is stale: run scripts/readme-figures counts\n{block}"
    );
}

#[test]
fn the_counts_in_the_docs_are_those_of_the_bundled_data() {
    let c = counts();
    assert!(c.data_sets > 1000 && c.releases.len() > 10, "{} data sets", c.data_sets);
    let sentence = [
        format!("**{} cases, {} data sets**", c.cases, c.data_sets),
        format!(
            "{} upstream cases from {} onnx releases, {} promoted fuzz findings with the {} valid twins of those that must be refused",
            c.upstream,
            c.releases.len(),
            c.promoted,
            c.promoted_twins
        ),
        format!("{} generated cases", c.extended),
        format!("{} with expected outputs", c.extended - c.refusals),
        format!("{} inputs that must be refused", c.refusals),
        format!("all {} legal", c.triples),
    ];
    let readme = read("README.md");
    let corpus = read("docs/corpus.md");
    for (text, file, name) in [(&readme, "README.md", "counts"), (&corpus, "docs/corpus.md", "corpus")] {
        let block = figures(text, file, name);
        for phrase in &sentence {
            assert_contains(block, phrase, &format!("{file}'s figures:{name}"));
        }
    }

    let table = figures(&corpus, "docs/corpus.md", "corpus");
    for (release, n) in &c.per_release {
        assert_contains(table, &format!("| `{release}` | {n} |"), "docs/corpus.md's table");
    }
    assert_contains(
        table,
        &format!("| `extended` | {} |", c.extended),
        "docs/corpus.md's table",
    );
    assert_contains(
        table,
        &format!("| `fuzz` | {} |", c.promoted + c.promoted_twins),
        "docs/corpus.md's table",
    );
    assert_contains(
        table,
        &format!(
            "{} cases with expected outputs, {} that must be refused",
            c.extended - c.refusals,
            c.refusals
        ),
        "docs/corpus.md's coverage table",
    );

    let cli = read("docs/cli.md");
    let sample = figures(&cli, "docs/cli.md", "run-sample");
    assert_contains(
        sample,
        &format!("\n{} passed, 0 failed, 0 errored", c.data_sets),
        "docs/cli.md's run sample",
    );
}

#[test]
fn the_known_failures_in_the_docs_are_those_of_the_baselines() {
    let results = read("docs/results.md");
    let block = figures(&results, "docs/results.md", "baselines");
    let mut rows = 0;
    for line in block.lines().filter(|l| l.contains("](../")) {
        let target = line.split("](../").nth(1).unwrap().split(')').next().unwrap();
        let baseline: serde_json::Value = serde_json::from_str(&read(target)).unwrap();
        let listed = baseline["expected"].as_object().unwrap().len();
        assert!(
            line.ends_with(&format!("| {listed} |")),
            "docs/results.md: {target} lists {listed} known failures: run scripts/readme-figures counts\n{line}"
        );
        rows += 1;
    }
    assert_eq!(rows, 5, "{block}");
}

/// gates/README.md's figures of each gate now — its glue's lines, its baseline's entries and
/// reasons — are those of the files (scripts/readme-figures counts writes them).
#[test]
fn the_gates_figures_are_those_of_the_gates() {
    let readme = read("gates/README.md");
    let block = figures(&readme, "gates/README.md", "gates");
    let mut gates = Vec::new();
    for line in block.lines().filter(|l| l.starts_with("| `gates/")) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let dir = cells[0].trim_matches('`');
        let glue: usize = std::fs::read_dir(root().join(format!("{dir}/examples/conformance")))
            .unwrap_or_else(|e| panic!("{dir}/examples/conformance: {e}"))
            .map(|entry| std::fs::read_to_string(entry.unwrap().path()).unwrap())
            .map(|text| {
                text.lines()
                    .filter(|l| !l.trim().is_empty() && !l.trim().starts_with("//"))
                    .count()
            })
            .sum();
        let name = dir.trim_start_matches("gates/");
        let baseline: serde_json::Value =
            serde_json::from_str(&read(&format!("{dir}/{name}.known-failures.json"))).unwrap();
        let expected = baseline["expected"].as_object().unwrap();
        let reasons: std::collections::BTreeSet<&str> = expected
            .values()
            .map(|entry| entry["reason"].as_str().unwrap())
            .collect();
        let stale = "run scripts/readme-figures counts";
        assert_eq!(cells[2], glue.to_string(), "{dir}: glue lines now: {stale}\n{line}");
        assert_eq!(
            cells[6],
            expected.len().to_string(),
            "{dir}: known failures now: {stale}\n{line}"
        );
        assert_eq!(
            cells[7],
            reasons.len().to_string(),
            "{dir}: reasons now: {stale}\n{line}"
        );
        gates.push(name.to_owned());
    }
    assert_eq!(gates, ["rten", "tract", "candle", "ort"], "{block}");
}

/// The first Markdown table of `text`.
fn first_table(text: &str) -> Vec<&str> {
    text.lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .collect()
}

/// The README's and docs/results.md's matrix are docs/gates-matrix.md's (which .ci/run compares
/// with a fresh run of fifteen backends), and every backend's row counts every data set once.
#[test]
fn the_matrix_in_the_docs_is_that_of_docs_gates_matrix() {
    let matrix = read("docs/gates-matrix.md");
    let totals = first_table(&matrix);
    let data_sets = counts().data_sets;
    assert_eq!(
        totals.len(),
        17,
        "a header, a rule and fifteen backends:\n{}",
        totals.join("\n")
    );
    for row in &totals[2..] {
        let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
        // The backend's name and its runtime, then the counts, then conformance and coverage.
        let sum: usize = cells[2..]
            .iter()
            .filter(|cell| !cell.ends_with('%') && **cell != "–")
            .map(|n| n.parse::<usize>().unwrap())
            .sum();
        assert_eq!(
            sum, data_sets,
            "docs/gates-matrix.md counts other data sets than the corpus has: run scripts/gates-matrix --readme\n{row}"
        );
    }
    let defects = matrix
        .split("#### Defects, each ready for a bug report\n\n")
        .nth(1)
        .unwrap()
        .trim();
    for file in ["README.md", "docs/results.md"] {
        let text = read(file);
        let found = blocks(&text, "gates-matrix");
        assert_eq!(found.len(), 1, "{file}: one gates-matrix block expected");
        assert_eq!(
            first_table(found[0]),
            totals,
            "{file}'s matrix is not docs/gates-matrix.md's: run scripts/gates-matrix --readme"
        );
        if file == "docs/results.md" {
            assert!(
                found[0].trim_end().ends_with(defects),
                "{file}'s defects are not docs/gates-matrix.md's: run scripts/gates-matrix --readme"
            );
        }
    }
}

/// What a PNG file says it shows: the JSON of its `pad-conformance:scoreboard` text chunk, which
/// scripts/matrix-picture writes when it takes the README's picture.
fn picture_facts(png: &[u8]) -> Option<serde_json::Value> {
    let mut at = b"\x89PNG\r\n\x1a\n".len();
    while at + 12 <= png.len() {
        let length = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        let data = png.get(at + 8..at + 8 + length)?;
        if &png[at + 4..at + 8] == b"tEXt"
            && let Some(text) = data.strip_prefix(b"pad-conformance:scoreboard\0")
        {
            return serde_json::from_slice(text).ok();
        }
        at += 12 + length;
    }
    None
}

/// docs/matrix.png shows the README's matrix: the same backends, in order, over the same data
/// sets (.ci/run compares it with a fresh rendering of its run's page, size included).
#[test]
fn the_readme_picture_shows_the_backends_and_data_sets_of_the_readme_matrix() {
    let png = std::fs::read(root().join("docs/matrix.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "docs/matrix.png is no PNG");
    let facts =
        picture_facts(&png).expect("docs/matrix.png says nothing of what it shows: run scripts/screenshot-matrix");
    let readme = read("README.md");
    let rows: Vec<Vec<&str>> = first_table(blocks(&readme, "gates-matrix")[0])[2..]
        .iter()
        .map(|row| row.trim_matches('|').split('|').map(str::trim).collect())
        .collect();
    let names: Vec<&str> = rows.iter().map(|row| row[0]).collect();
    // The backend's name and its runtime, then the counts, which sum to the data sets, and the
    // shares (conformance, coverage), which are not counts.
    let data_sets: usize = rows[0][2..]
        .iter()
        .filter(|cell| !cell.ends_with('%') && **cell != "–")
        .map(|n| n.parse::<usize>().unwrap())
        .sum();
    assert_eq!(
        (&facts["backends"], &facts["data_sets"]),
        (&serde_json::json!(names), &serde_json::json!(data_sets)),
        "docs/matrix.png shows another matrix than the README's: run scripts/screenshot-matrix on the page of \
         the run that wrote the README's"
    );
}

#[test]
fn a_pictures_facts_are_read_from_its_text_chunk_only() {
    let chunk = |kind: &[u8], data: &[u8]| {
        let mut bytes = (data.len() as u32).to_be_bytes().to_vec();
        bytes.extend([kind, data, &[0; 4]].concat());
        bytes
    };
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend(chunk(b"IHDR", &[0; 13]));
    png.extend(chunk(b"tEXt", b"Software\0{\"data_sets\": 1}"));
    assert_eq!(picture_facts(&png), None);
    png.extend(chunk(
        b"tEXt",
        b"pad-conformance:scoreboard\0{\"backends\": [\"ref\"], \"data_sets\": 3}",
    ));
    png.extend(chunk(b"IEND", b""));
    assert_eq!(
        picture_facts(&png),
        Some(serde_json::json!({"backends": ["ref"], "data_sets": 3}))
    );
    // A chunk that runs past the end is no text.
    assert_eq!(picture_facts(&png[..png.len() - 20]), None);
}

/// Counts live in the generated blocks only: outside them, no number in README.md or docs/
/// directly counts data sets, cases, triples, findings or signatures, where it could go stale.
#[test]
fn no_count_is_typed_outside_the_generated_blocks() {
    let mut files: Vec<PathBuf> = vec![root().join("README.md")];
    files.extend(
        std::fs::read_dir(root().join("docs"))
            .unwrap()
            .map(|e| e.unwrap().path())
            // Generated whole from real runs: gates-matrix.md (scripts/gates-matrix) and history.md
            // (`history write`, checked in tests/it/history.rs).
            .filter(|p| {
                p.extension().is_some_and(|e| e == "md")
                    && !p.ends_with("gates-matrix.md")
                    && !p.ends_with("history.md")
            }),
    );
    let nouns = ["data", "cases", "cases,", "cases.", "triples", "findings", "signatures"];
    let mut typed = Vec::new();
    for path in &files {
        let mut text = std::fs::read_to_string(path).unwrap();
        for marker in ["figures:", "gates-matrix:"] {
            while let Some(start) = text.find(&format!("<!-- {marker}")) {
                let end = text[start..]
                    .find(":end -->")
                    .map_or(text.len(), |e| start + e + ":end -->".len());
                text.replace_range(start..end, "");
            }
        }
        // The picture's caption is written by scripts/screenshot-matrix, a generated line.
        let text: String = text
            .lines()
            .filter(|line| !line.starts_with("<!-- matrix-screenshot -->"))
            .collect::<Vec<_>>()
            .join("\n");
        let words: Vec<&str> = text.split_whitespace().collect();
        for pair in words.windows(2) {
            let number = pair[0].trim_start_matches(['(', '*']);
            if !number.is_empty()
                && number.chars().all(|ch| ch.is_ascii_digit() || ch == ',')
                && nouns.contains(&pair[1].trim_end_matches([')', '*', ':', ';']))
            {
                typed.push(format!("{}: {} {}", path.display(), pair[0], pair[1]));
            }
        }
    }
    assert!(
        typed.is_empty(),
        "counts typed by hand (put them in a generated block):\n{}",
        typed.join("\n")
    );
}

/// The commands of the "Gate your runtime" guide and of its CI workflow: every
/// `pad-conformance` command line in docs/gating.md's shell blocks and in
/// docs/ci/pad-conformance.yml's `run:` lines.
fn guide_commands() -> Vec<Vec<String>> {
    let guide = read("docs/gating.md");
    let workflow = read("docs/ci/pad-conformance.yml");
    let mut lines: Vec<String> = Vec::new();
    let mut in_shell = false;
    for line in guide.lines() {
        match line.trim() {
            "```sh" => in_shell = true,
            "```" => in_shell = false,
            command if in_shell => lines.push(command.to_owned()),
            _ => {}
        }
    }
    lines.extend(
        workflow
            .lines()
            .filter_map(|l| l.trim().strip_prefix("run: "))
            .flat_map(|l| l.split(" && "))
            .map(str::to_owned),
    );
    // The fan-out's lines as its first part runs them, without the redirection of a report.
    lines.extend(fanout_steps().iter().map(|step| {
        let step = step.replace("${{ matrix.shard }}", "1");
        step.split_once(" > ")
            .map_or(step.clone(), |(command, _)| command.to_owned())
    }));
    lines
        .iter()
        .map(|line| shlex::split(line).unwrap_or_else(|| panic!("not a shell command line: {line}")))
        .collect()
}

#[test]
fn the_guides_command_lines_parse_and_its_recipe_is_where_check_downstream_reads_it() {
    let commands = guide_commands();
    let ours: Vec<&Vec<String>> = commands.iter().filter(|c| c[0] == "pad-conformance").collect();
    // run (with JUnit and HTML in the workflow), matrix and fuzz against the worker.
    assert!(ours.len() >= 5, "{ours:?}");
    for verb in ["matrix", "fuzz"] {
        assert!(
            ours.iter().any(|c| c[1] == verb),
            "no `pad-conformance {verb}` in the guide"
        );
    }
    for command in &ours {
        // clap checks every flag and value before it answers --help.
        let status = std::process::Command::new(env!("CARGO_BIN_EXE_pad-conformance"))
            .args(&command[1..])
            .arg("--help")
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "does not parse: {}", command.join(" "));
    }
    // The worker the commands name is the example the guide's Cargo.toml declares.
    let workers: Vec<&String> = ours
        .iter()
        .filter_map(|c| c.iter().find(|a| a.starts_with("exec:") && a.contains("conformance")))
        .collect();
    assert!(workers.len() >= 5, "{workers:?}");
    for backend in workers {
        assert_eq!(backend, "exec:target/debug/examples/conformance worker");
    }
    // Recording uses the harness's own variable, and the gate the example's name.
    let recording = commands
        .iter()
        .find(|c| c[0].contains('='))
        .expect("the guide records a baseline");
    let variable = format!("{}=known-failures.json", pad_conformance::testing::WRITE_BASELINE_ENV);
    assert_eq!(recording[..4], [variable.as_str(), "cargo", "test", "--example"]);
    assert!(
        commands
            .iter()
            .any(|c| c[..] == ["cargo", "test", "--example", "conformance"])
    );
    // scripts/check-downstream writes the blocks after these markers to the downstream crate.
    let guide = read("docs/gating.md");
    let main = recipe_block(&guide, "examples/conformance/main.rs").expect("the recipe's main.rs");
    assert!(main.starts_with("// examples/conformance/main.rs\n"), "{main:.200}");
    // The dependency names the crate's own version, as on crates.io.
    let manifest = recipe_block(&guide, "Cargo.toml").expect("the recipe's Cargo.toml");
    let version = env!("CARGO_PKG_VERSION").rsplit_once('.').unwrap().0;
    let dependency = format!("pad-conformance = {{ version = \"{version}\", default-features = false }}");
    assert!(
        manifest.lines().any(|l| l == dependency),
        "no `{dependency}` in:\n{manifest}"
    );
    // Until the crate is published, its [patch.crates-io] takes it from the submodule the CI
    // workflows check out and install the command line from.
    assert!(
        manifest.contains("[patch.crates-io]\npad-conformance = { path = \"third_party/pad-conformance\" }\n"),
        "no [patch.crates-io] from third_party/pad-conformance in:\n{manifest}"
    );
    for workflow in ["docs/ci/pad-conformance.yml", "docs/ci/pad-conformance-fanout.yml"] {
        let text = read(workflow);
        assert!(
            text.contains("run: cargo install --locked --path third_party/pad-conformance\n"),
            "{workflow}"
        );
        assert!(!text.contains("OWNER"), "{workflow} names a placeholder");
    }
    let downstream = read("scripts/check-downstream");
    assert!(downstream.contains("recipe_block Cargo.toml\n"));
    assert!(downstream.contains("recipe_block examples/conformance/main.rs >"));
    assert!(downstream.contains("recipe_block examples/conformance/backend.rs >"));
    assert!(downstream.contains("third_party/pad-conformance"));
    assert!(downstream.contains("docs/ci/pad-conformance.yml"));
}

/// docs/ci/pad-conformance-fanout.yml's `run:` lines, but for installing the tool.
fn fanout_steps() -> Vec<String> {
    read("docs/ci/pad-conformance-fanout.yml")
        .lines()
        .filter_map(|l| l.trim().strip_prefix("run: "))
        .filter(|l| !l.starts_with("cargo install "))
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_fan_out_workflow_runs_every_part_and_joins_them_all_without_hiding_an_exit_code() {
    let workflow = read("docs/ci/pad-conformance-fanout.yml");
    let shards: Vec<&str> = workflow
        .lines()
        .find_map(|l| l.trim().strip_prefix("shard: ["))
        .expect("a matrix of shards")
        .trim_end_matches(']')
        .split(", ")
        .collect();
    assert_eq!(shards, ["1", "2", "3"]);
    let n = shards.len();
    let steps = fanout_steps();
    // Each part: the full run and the fuzz campaign, as part K of the matrix's N.
    let part = format!("--shard ${{{{ matrix.shard }}}}/{n} ");
    let parts: Vec<&String> = steps.iter().filter(|s| s.contains(&part)).collect();
    assert_eq!(parts.len(), 2, "{steps:?}");
    assert!(parts[0].starts_with("pad-conformance --backend ") && parts[0].contains("--baseline known-failures.json"));
    assert!(parts[1].starts_with("pad-conformance fuzz "));
    // The join names every part's report, once.
    for (verb, stem) in [("merge", "run"), ("fuzz-merge", "fuzz")] {
        let join = steps
            .iter()
            .find(|s| s.starts_with(&format!("pad-conformance {verb} ")))
            .unwrap_or_else(|| panic!("no {verb}"));
        let reports: Vec<String> = (1..=n)
            .map(|k| format!("target/pad-conformance/{stem}-{k}.json"))
            .collect();
        let named: Vec<&str> = join
            .split(' ')
            .filter(|w| w.starts_with(&format!("target/pad-conformance/{stem}-")))
            .collect();
        assert_eq!(named, reports, "{join}");
    }
    // No part's failure is hidden: neither in a command nor by the job's settings.
    assert!(!workflow.contains("|| true") && !workflow.contains("continue-on-error"));
    assert!(workflow.contains("fail-fast: false") && workflow.contains("needs: part\n    if: always()"));
    let downstream = read("scripts/check-downstream");
    assert!(downstream.contains("docs/ci/pad-conformance-fanout.yml"));
}

/// The code block after `<!-- recipe: {file} ` in a page.
fn recipe_block<'a>(page: &'a str, file: &str) -> Option<&'a str> {
    let (_, after) = page.split_once(&format!("<!-- recipe: {file} "))?;
    let (_, code) = after.split_once("```")?;
    let (_, code) = code.split_once('\n')?;
    Some(code.split_once("\n```\n")?.0)
}

/// The block after `<!-- quick-start: {name} -->` in the README.
fn quick_start_block<'a>(readme: &'a str, name: &str) -> &'a str {
    let (_, after) = readme
        .split_once(&format!("<!-- quick-start: {name} -->\n```"))
        .unwrap_or_else(|| panic!("README.md has no quick-start block {name}"));
    let (_, code) = after.split_once('\n').unwrap();
    code.split_once("\n```\n").unwrap().0
}

/// The README is a front page: one screen of quick start for each kind of runtime — a Rust
/// gate of the guide's layout (which scripts/check-downstream runs as written), a Python
/// worker, a per-case command — whose command lines parse, and no long recipe of the guide's.
#[test]
fn the_readmes_quick_start_is_short_of_the_guides_layout_and_its_commands_parse() {
    let (readme, guide) = (read("README.md"), read("docs/gating.md"));
    assert!(
        readme.lines().count() <= 200,
        "README.md has {} lines: the rest belongs in docs/",
        readme.lines().count()
    );
    assert!(
        !readme.contains("<!-- recipe: "),
        "README.md repeats the guide's recipe"
    );
    assert!(
        !readme.contains("OWNER"),
        "README.md has a placeholder a user would paste"
    );
    // The guide's layout: the same example, built and run by `cargo test`; the dependency a
    // clone beside the crate, the guide's version once published.
    let ours = quick_start_block(&readme, "Cargo.toml");
    let theirs = recipe_block(&guide, "Cargo.toml").unwrap();
    let example = |manifest: &str| manifest.split_once("[[example]]").map(|(_, rest)| rest.to_owned());
    assert_eq!(
        example(ours),
        example(theirs),
        "README.md's [[example]] is not the guide's"
    );
    let version = env!("CARGO_PKG_VERSION").rsplit_once('.').unwrap().0;
    assert!(
        ours.contains("pad-conformance = { path = \"../pad-conformance\", default-features = false }")
            && readme.contains(&format!("`version = \"{version}\"` in place of the path")),
        "{ours}"
    );
    let main = quick_start_block(&readme, "examples/conformance/main.rs");
    assert!(
        main.starts_with("// examples/conformance/main.rs\n") && main.contains(".baseline(\"known-failures.json\")")
    );
    let gate = quick_start_block(&readme, "gate commands");
    let variable = format!("{}=known-failures.json", pad_conformance::testing::WRITE_BASELINE_ENV);
    assert!(
        gate.starts_with(&format!("{variable} cargo test --example conformance ")),
        "{gate}"
    );
    let downstream = read("scripts/check-downstream");
    for name in ["Cargo.toml", "examples/conformance/main.rs", "\"gate commands\""] {
        assert!(
            downstream.contains(&format!("quick_start_block {name}")),
            "check-downstream reads no {name}"
        );
    }
    // Every pad-conformance line of the Python and per-case starts parses (clap checks every
    // flag and value before it answers --help).
    let mut commands = 0;
    for name in ["Python worker", "per-case command"] {
        for line in quick_start_block(&readme, name).lines() {
            if !line.starts_with("pad-conformance ") {
                continue;
            }
            let line = line.split_once("  #").map_or(line, |(command, _)| command);
            let words = shlex::split(line).unwrap_or_else(|| panic!("not a shell command line: {line}"));
            commands += 1;
            let status = std::process::Command::new(env!("CARGO_BIN_EXE_pad-conformance"))
                .args(&words[1..])
                .arg("--help")
                .stdout(std::process::Stdio::null())
                .status()
                .unwrap();
            assert!(status.success(), "does not parse: {line}");
        }
    }
    assert_eq!(commands, 3);
}

/// The workers in scripts/backends/, by file name, sorted.
fn workers() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("scripts/backends"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with("-worker"))
        .collect();
    names.sort();
    names
}

/// The gates under gates/: the directories with a Cargo.toml.
fn gates() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("gates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|path| path.join("Cargo.toml").is_file())
        .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `five` → 5, `5` → 5: how the docs state a count.
fn count_word(word: &str) -> Option<usize> {
    const WORDS: [&str; 13] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    ];
    let word = word.to_lowercase();
    WORDS.iter().position(|w| *w == word).or_else(|| word.parse().ok())
}

/// The words that may stand between a count and its noun: `four complete workers`.
const QUALIFIERS: [&str; 4] = ["complete", "Python", "external", "Rust"];

/// Every count the docs state of `noun` (`five workers`, `8 backends`, `two Python workers`),
/// with where it is.
fn stated_counts(noun: &str) -> Vec<(String, usize)> {
    let mut files = vec![root().join("README.md"), root().join("gates/README.md")];
    files.extend(
        std::fs::read_dir(root().join("docs"))
            .unwrap()
            .map(|e| e.unwrap().path())
            // The hardening issue rewrites robustness.md; its counts are its own.
            .filter(|p| p.extension().is_some_and(|e| e == "md") && !p.ends_with("robustness.md")),
    );
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let words: Vec<&str> = text.split_whitespace().collect();
        for (i, word) in words.iter().enumerate() {
            if word.trim_end_matches(|c: char| !c.is_alphanumeric()) != noun {
                continue;
            }
            // The count right before the noun, or before one of the words that qualify it.
            let mut j = i;
            while j > 0 && QUALIFIERS.contains(&words[j - 1]) {
                j -= 1;
            }
            if let Some(n) = j.checked_sub(1).and_then(|k| count_word(words[k])) {
                found.push((format!("{}: {}", file.display(), words[j - 1..i].join(" ")), n));
            }
        }
    }
    found
}

#[test]
fn the_docs_count_and_name_the_workers_gates_and_backends_there_are() {
    let workers = workers();
    let gates = gates();
    assert!(workers.len() >= 5 && gates.len() >= 3, "{workers:?} {gates:?}");
    // The runtimes' workers (null-worker runs none), the gates' runtimes and ref: the matrix.
    let runtimes = workers.iter().filter(|w| *w != "null-worker").count();
    for (noun, expected) in [
        ("workers", workers.len()),
        ("gates", gates.len()),
        ("runtimes", gates.len()),
        ("backends", 1 + runtimes + gates.len()),
    ] {
        for (place, n) in stated_counts(noun) {
            assert_eq!(n, expected, "{place} {noun}: there are {expected}");
        }
    }
    // The table of workers, each with what baselines/ keeps for it.
    let protocol = read("docs/backend-protocol.md");
    let table = blocks(&protocol, "workers");
    assert_eq!(table.len(), 1, "docs/backend-protocol.md's workers table");
    let rows: Vec<&str> = table[0].lines().filter(|l| l.starts_with("| `")).collect();
    assert_eq!(rows.len(), workers.len(), "{}", table[0]);
    for (row, worker) in rows.iter().zip(&workers) {
        assert!(row.starts_with(&format!("| `{worker}` |")), "{row}: expected {worker}");
        let runtime = worker.trim_end_matches("-worker");
        for (file, column) in [(format!("{runtime}.json"), 3), (format!("{runtime}.profile.toml"), 4)] {
            let cell = row.split('|').nth(column).unwrap().trim();
            let exists = root().join("baselines").join(&file).is_file();
            assert_eq!(cell == format!("`baselines/{file}`"), exists, "{row}: baselines/{file}");
            assert!(exists || cell == "–", "{row}");
        }
    }
    // Where the docs say what scripts/backends/ holds, they name every worker.
    for file in ["docs/gating.md", "docs/development.md"] {
        let text = read(file);
        assert!(text.contains("null-worker"), "{file} does not name null-worker");
        for runtime in ["onnxruntime", "reference evaluator", "OpenVINO", "tinygrad"] {
            assert!(text.contains(runtime), "{file} does not name {runtime}'s worker");
        }
    }
    // Every gate in gates/README.md's table.
    let readme = read("gates/README.md");
    for gate in &gates {
        assert!(
            readme.contains(&format!("| `gates/{gate}` |")),
            "gates/README.md lacks {gate}"
        );
    }
}

#[test]
fn the_protocol_states_how_many_upstream_cases_are_multi_node_graphs_and_they_are_the_expanded_ones() {
    let options = pad_conformance::testing::DecodeOptions::default();
    let mut graphs = Vec::new();
    for release in std::fs::read_dir(root().join("onnx-testdata")).unwrap() {
        let node = release.unwrap().path().join("node");
        if !node.is_dir() {
            continue;
        }
        for case in std::fs::read_dir(&node).unwrap() {
            let case = case.unwrap().path();
            let model = pad_conformance::testing::read_model(&case.join("model.onnx"), &options).unwrap();
            let name = case.file_name().unwrap().to_string_lossy().into_owned();
            assert_eq!(
                model.graph.nodes.len() > 1,
                name.ends_with("_expanded"),
                "{}",
                case.display()
            );
            if model.graph.nodes.len() > 1 {
                graphs.push(name);
            }
        }
    }
    let protocol = read("docs/backend-protocol.md");
    let stated = protocol
        .split_once("<!-- expanded-count -->")
        .and_then(|(_, rest)| rest.split_once("<!-- /expanded-count -->"))
        .map(|(count, _)| count.trim())
        .unwrap();
    assert_eq!(
        stated,
        graphs.len().to_string(),
        "docs/backend-protocol.md's count of multi-node graphs"
    );
}

/// The promoted fuzz findings' figures (scripts/fuzz-corpus-figures) in docs/robustness.md and
/// docs/corpus.md: the cases per runtime are those whose case.json names it (`found_by`),
/// and every promoted case is listed once.
#[test]
fn the_promoted_findings_in_the_docs_are_those_of_the_fuzz_corpus() {
    let mut per_runtime = std::collections::BTreeMap::<String, usize>::new();
    let mut names = BTreeSet::new();
    let fuzz = root().join("onnx-testdata/fuzz");
    for entry in std::fs::read_dir(&fuzz).into_iter().flatten() {
        let dir = entry.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        if !name.starts_with("test_fuzz_") {
            continue;
        }
        let info: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("case.json")).unwrap()).unwrap();
        // A twin is no finding: no runtime found it.
        if info["promotion"].get("twin_of").is_some() {
            continue;
        }
        let runtime = info["promotion"]["found_by"].as_str().unwrap_or("(not recorded)");
        *per_runtime.entry(runtime.to_owned()).or_default() += 1;
        names.insert(name);
    }
    for file in ["docs/robustness.md", "docs/corpus.md"] {
        let text = read(file);
        let block = figures(&text, file, "promoted");
        let rows: std::collections::BTreeMap<String, usize> = first_table(block)
            .into_iter()
            .skip(2)
            .map(|row| {
                let cells: Vec<&str> = row.split('|').map(str::trim).collect();
                (cells[1].to_owned(), cells[2].parse().unwrap())
            })
            .collect();
        assert_eq!(rows, per_runtime, "{file}: run scripts/fuzz-corpus-figures");
        let listed: BTreeSet<String> = block
            .lines()
            .filter_map(|l| l.strip_prefix("| `test_fuzz_"))
            .map(|l| format!("test_fuzz_{}", l.split('`').next().unwrap()))
            .collect();
        assert_eq!(listed, names, "{file}: run scripts/fuzz-corpus-figures");
    }
}

/// The files of src/ (relative, `/`-separated), the crate root and the binary's line left out.
fn source_files() -> Vec<String> {
    let src = root().join("src");
    let mut files: Vec<String> = walkdir::WalkDir::new(&src)
        .into_iter()
        .map(|entry| entry.unwrap())
        .filter(|entry| entry.file_type().is_file())
        .map(|entry| {
            let relative = entry.path().strip_prefix(&src).unwrap().to_string_lossy().into_owned();
            relative.replace(std::path::MAIN_SEPARATOR, "/")
        })
        .collect();
    files.sort();
    files
}

/// Whether docs/architecture.md names `file` (relative to src/): by its path, or by its name on
/// a line (a table row, a tree's line) that names its folder or a folder above it.
fn names(architecture: &str, file: &str) -> bool {
    let (folder, name) = file.rsplit_once('/').unwrap_or(("", file));
    let mut folders: Vec<String> = Vec::new();
    let parts: Vec<&str> = folder.split('/').filter(|p| !p.is_empty()).collect();
    for end in 1..=parts.len() {
        folders.push(format!("{}/", parts[end - 1]));
        folders.push(format!("{}/", parts[..end].join("/")));
    }
    let named = |line: &str, word: &str| {
        line.match_indices(word).any(|(at, _)| {
            let before = line[..at].chars().next_back();
            let after = line[at + word.len()..].chars().next();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '/')
                && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
    };
    architecture.lines().any(|line| {
        named(line, file)
            || named(line, &format!("src/{file}"))
            || (named(line, name) && (folder.is_empty() || folders.iter().any(|f| named(line, f))))
    })
}

#[test]
fn the_architecture_names_every_file_of_src() {
    let architecture = read("docs/architecture.md");
    let files = source_files();
    assert!(files.len() > 100, "{} files found", files.len());
    let unnamed: Vec<&String> = files.iter().filter(|file| !names(&architecture, file)).collect();
    assert!(
        unnamed.is_empty(),
        "docs/architecture.md does not name these files of src/ (by path, or by name on a line naming \
         their folder):\n{}",
        unnamed.iter().map(|f| f.as_str()).collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn a_file_counts_as_named_only_beside_its_folder() {
    let doc = "| `judge/` | the verdict (verdict.rs), profiles (profile/: subject.rs) |\n| `cli/` | mod.rs |";
    assert!(names(doc, "judge/verdict.rs"));
    assert!(names(doc, "judge/profile/subject.rs"));
    assert!(!names(doc, "gate/verdict.rs"), "named on another folder's line");
    assert!(!names(doc, "judge/check.rs"), "not named at all");
    assert!(names(doc, "cli/mod.rs"));
    assert!(!names(doc, "judge/mod.rs"));
    assert!(!names("| `backend/` | reply.rs |", "backend/request.rs"));
    assert!(
        !names("| `backend/` | sub_reply.rs |", "backend/reply.rs"),
        "a longer name is not this one"
    );
}

/// The crate, the wheel and the changelog name one version: what a release cut changes
/// together (docs/releasing.md#cutting-a-release).
#[test]
fn the_crate_the_wheel_and_the_changelog_name_one_version() {
    let version = env!("CARGO_PKG_VERSION");
    let package = read("python/pad_conformance/__init__.py");
    assert!(
        package
            .lines()
            .any(|line| line == format!("__version__ = \"{version}\"")),
        "python/pad_conformance/__init__.py's __version__ is not the crate's {version}"
    );
    let pyproject = read("pyproject.toml");
    assert!(
        pyproject.contains("dynamic = [\"version\"]"),
        "the wheel's version is not Cargo.toml's"
    );
    let changelog = read("CHANGELOG.md");
    let section = format!("\n## {version} — ");
    assert!(
        changelog.contains(&section),
        "CHANGELOG.md has no `## {version} — DATE` section"
    );
    // Unreleased, when present, comes first: what is not in a release is not listed under one.
    let first = changelog
        .lines()
        .find(|line| line.starts_with("## "))
        .unwrap_or_default();
    assert!(
        first == "## Unreleased" || first.starts_with(&section[1..]),
        "first section: {first}"
    );
}
