//! A corpus's manifests: the size and sha256 of every file it vouches for. Upstream data is
//! known by them, not by a directory name or a sidecar: a case listed in the root's
//! MANIFEST.tsv is upstream, and its basis is the spec whatever a case.json beside it says;
//! a listed file whose size or checksum differs is an error of its case, never a pass.
//!
//! Two layouts, told apart by their header line:
//! - the corpus root's `MANIFEST.tsv`, `release case file origin bytes sha256`: upstream
//!   files, under `onnx-<release>/<case>/<file>`;
//! - a subdirectory's `MANIFEST.tsv` (`extended/`), `case file bytes sha256`: the project's
//!   generated cases, under `<subdirectory>/<case>/<file>`.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::data::corpus_error::CorpusError;
use crate::data::side_file::{MAX_CORPUS_LIST_BYTES, excerpt, open_regular, read_text_capped};

/// The manifest file's name, at a corpus root and in its subdirectories.
pub(crate) const MANIFEST_FILE: &str = "MANIFEST.tsv";

const UPSTREAM_HEADER: &str = "release\tcase\tfile\torigin\tbytes\tsha256";
/// The header line of a manifest of generated cases (the tool's promotion writes one).
pub(crate) const GENERATED_HEADER: &str = "case\tfile\tbytes\tsha256";

/// The cases a corpus's manifests list, by directory relative to the corpus root
/// (`onnx-1.22.0/node/test_wrap_pad`, `extended/test_ext_pad2_reflect_float_r1`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Manifest {
    cases: HashMap<String, ListedCase>,
    /// The manifests read that nothing the binary carries vouches for.
    unanchored: Vec<PathBuf>,
}

/// Whether a manifest is vouched for by more than itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Anchor {
    /// Its sha256 is the one the binary carries for it.
    Anchored,
    /// Nothing vouches for it: its checksums catch accidents, not a file edited together with
    /// its row.
    Unanchored,
}

/// The sha256 the binary carries for the manifest at `relative` (`MANIFEST.tsv`,
/// `extended/MANIFEST.tsv`) of the corpus at `corpus_dir`: the bundled corpus's, fixed at build
/// time; none for any other corpus.
pub(crate) fn carried_digest(corpus_dir: &Path, relative: &str) -> Option<[u8; 32]> {
    crate::data::bundled::manifest_digest(corpus_dir, relative)
}

/// The manifest at `path`, whose bytes are `text`, against the digest expected of it: the
/// hook the carried digests plug into. A digest that differs is an error: the manifest is not
/// the one the binary vouches for.
pub(crate) fn anchor(path: &Path, text: &str, expected: Option<[u8; 32]>) -> Result<Anchor, CorpusError> {
    let Some(expected) = expected else {
        return Ok(Anchor::Unanchored);
    };
    if <[u8; 32]>::from(Sha256::digest(text.as_bytes())) == expected {
        Ok(Anchor::Anchored)
    } else {
        Err(CorpusError::Manifest {
            path: path.to_owned(),
            line: 1,
            problem: "its sha256 differs from the one this binary carries for it: the manifest is not the corpus's"
                .to_owned(),
        })
    }
}

/// One case as a manifest lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListedCase {
    /// Listed in the root manifest: ONNX's own data, whose basis is the spec.
    pub upstream: bool,
    /// The manifest that lists it.
    pub manifest: PathBuf,
    /// Its files, relative to the case directory.
    pub files: Vec<ListedFile>,
}

/// One listed file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListedFile {
    /// The path relative to the case directory: `test_data_set_0/output_0.pb`.
    pub file: String,
    /// Its size.
    pub bytes: u64,
    /// Its sha256.
    pub sha256: [u8; 32],
}

/// A listed file that is not as listed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Tampered {
    /// Missing or unreadable.
    #[error("{}: listed in {} but cannot be read: {why}", path.display(), manifest.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// The manifest listing it.
        manifest: PathBuf,
        /// Why.
        why: String,
    },
    /// Another size or checksum than listed.
    #[error("{}: its {what} differs from {}'s: the file is not the one the corpus vouches for", path.display(), manifest.display())]
    Differs {
        /// The file.
        path: PathBuf,
        /// The manifest listing it.
        manifest: PathBuf,
        /// `size` or `sha256`.
        what: &'static str,
    },
    /// A file beside listed ones that changes what the case means (a case.json) but is not
    /// listed itself.
    #[error("{}: not listed in {}, which lists this case: a file added to a listed case is refused", path.display(), manifest.display())]
    Unlisted {
        /// The file.
        path: PathBuf,
        /// The manifest listing the case.
        manifest: PathBuf,
    },
}

impl Manifest {
    /// Reads the manifests of the corpus at `dir`: `dir`/MANIFEST.tsv (upstream) and the
    /// MANIFEST.tsv of each subdirectory (generated cases).
    pub fn read(dir: &Path) -> Result<Manifest, CorpusError> {
        let mut manifest = Manifest::default();
        manifest.add(dir, &dir.join(MANIFEST_FILE), "", true)?;
        let entries = std::fs::read_dir(dir).map_err(|source| CorpusError::Read {
            path: dir.to_owned(),
            source,
        })?;
        let mut subdirs: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path())
            .collect();
        subdirs.sort();
        for sub in subdirs {
            let path = sub.join(MANIFEST_FILE);
            // A regular file only: a FIFO named MANIFEST.tsv must not hang discovery.
            if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
                let prefix = format!("{}/", sub.file_name().unwrap_or_default().to_string_lossy());
                manifest.add(dir, &path, &prefix, false)?;
            }
        }
        Ok(manifest)
    }

    fn add(&mut self, dir: &Path, path: &Path, prefix: &str, upstream: bool) -> Result<(), CorpusError> {
        let text = read_text_capped(path, MAX_CORPUS_LIST_BYTES).map_err(|source| CorpusError::Read {
            path: path.to_owned(),
            source,
        })?;
        let expected = carried_digest(dir, &format!("{prefix}{MANIFEST_FILE}"));
        if anchor(path, &text, expected)? == Anchor::Unanchored {
            self.unanchored.push(path.to_owned());
        }
        let problem = |line: usize, problem: String| CorpusError::Manifest {
            path: path.to_owned(),
            line,
            problem,
        };
        let mut lines = text.lines().enumerate();
        let header = lines.next().map(|(_, h)| h).unwrap_or_default();
        let expected = if upstream { UPSTREAM_HEADER } else { GENERATED_HEADER };
        if header != expected {
            return Err(problem(
                1,
                format!("the header is {:?}, not {expected:?}", excerpt(header, 80)),
            ));
        }
        for (index, line) in lines {
            let number = index + 1;
            let fields: Vec<&str> = line.split('\t').collect();
            let (case, file, bytes, sha) = match (upstream, fields.as_slice()) {
                (true, [release, case, file, _origin, bytes, sha]) => {
                    (format!("onnx-{release}/{case}"), *file, *bytes, *sha)
                }
                (false, [case, file, bytes, sha]) => (format!("{prefix}{case}"), *file, *bytes, *sha),
                _ => {
                    return Err(problem(
                        number,
                        format!("{} fields, not {}", fields.len(), expected.split('\t').count()),
                    ));
                }
            };
            if case.split('/').any(|c| c.is_empty() || c == "." || c == "..")
                || file.split('/').any(|c| c.is_empty() || c == "." || c == "..")
            {
                return Err(problem(
                    number,
                    format!(
                        "{:?}/{:?} is not a plain relative path",
                        excerpt(&case, 80),
                        excerpt(file, 80)
                    ),
                ));
            }
            let bytes = bytes
                .parse()
                .map_err(|_| problem(number, format!("size {:?} is not a whole number", excerpt(bytes, 40))))?;
            let sha256 =
                parse_sha256(sha).ok_or_else(|| problem(number, format!("{:?} is not a sha256", excerpt(sha, 80))))?;
            let listed = self.cases.entry(case).or_insert_with(|| ListedCase {
                upstream,
                manifest: path.to_owned(),
                files: Vec::new(),
            });
            if listed.manifest != path || listed.files.iter().any(|f| f.file == file) {
                return Err(problem(number, format!("{} is listed twice", excerpt(file, 80))));
            }
            listed.files.push(ListedFile {
                file: file.to_owned(),
                bytes,
                sha256,
            });
        }
        Ok(())
    }

    /// The manifests read that nothing the binary carries vouches for.
    pub(crate) fn unanchored(&self) -> &[PathBuf] {
        &self.unanchored
    }

    /// Whether the root manifest (upstream data) lists cases under the subdirectory `sub`.
    pub(crate) fn lists_upstream_under(&self, sub: &str) -> bool {
        self.cases
            .iter()
            .any(|(case, listed)| listed.upstream && case.strip_prefix(sub).is_some_and(|rest| rest.starts_with('/')))
    }

    /// The case at `dir` (relative to the corpus root, `/`-separated), if listed.
    pub fn case(&self, dir: &str) -> Option<&ListedCase> {
        self.cases.get(dir)
    }

    /// Whether the manifests list anything at or under `dir` (relative to the corpus root),
    /// or `dir` lies inside a listed case: a data root there belongs to this corpus.
    pub fn covers(&self, dir: &str) -> bool {
        if dir.is_empty() {
            return true;
        }
        self.cases.keys().any(|case| {
            case == dir
                || case.strip_prefix(dir).is_some_and(|rest| rest.starts_with('/'))
                || dir
                    .strip_prefix(case.as_str())
                    .is_some_and(|rest| rest.starts_with('/'))
        })
    }
}

impl ListedCase {
    /// Checks every listed file under `case_dir` against its size and checksum.
    pub fn verify(&self, case_dir: &Path) -> Result<(), Tampered> {
        for listed in &self.files {
            let path = case_dir.join(&listed.file);
            let tampered = |what| Tampered::Differs {
                path: path.clone(),
                manifest: self.manifest.clone(),
                what,
            };
            let (bytes, sha256) = hash_file(&path, listed.bytes).map_err(|e| Tampered::Unreadable {
                path: path.clone(),
                manifest: self.manifest.clone(),
                why: e.to_string(),
            })?;
            if bytes != listed.bytes {
                return Err(tampered("size"));
            }
            if sha256 != listed.sha256 {
                return Err(tampered("sha256"));
            }
        }
        Ok(())
    }

    /// Whether `file` (relative to the case directory) is listed.
    pub fn lists(&self, file: &str) -> bool {
        self.files.iter().any(|f| f.file == file)
    }
}

/// The size and sha256 of a regular file, reading at most one byte past `limit` (so a
/// file grown huge, or a device, costs no more than the listed size).
pub(crate) fn hash_file(path: &Path, limit: u64) -> std::io::Result<(u64, [u8; 32])> {
    let (file, _) = open_regular(path, u64::MAX)?;
    let mut hasher = Sha256::new();
    let mut reader = file.take(limit.saturating_add(1));
    let mut buffer = [0u8; 64 * 1024];
    let mut total = 0u64;
    loop {
        let n = reader.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
        total += n as u64;
    }
    Ok((total, hasher.finalize().into()))
}

fn parse_sha256(text: &str) -> Option<[u8; 32]> {
    if text.len() != 64 || !text.is_ascii() {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, rel: &str, data: &[u8]) {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, data).unwrap();
    }

    fn hex(data: &[u8]) -> String {
        Sha256::digest(data).iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn both_layouts_are_read_and_files_are_verified() {
        let dir = crate::data::scratch_dir().unwrap();
        let root = dir.path();
        write(root, "onnx-1.0/node/test_a_pad/model.onnx", b"model");
        write(root, "extended/test_b_pad/model.onnx", b"other");
        write(
            root,
            MANIFEST_FILE,
            format!(
                "{UPSTREAM_HEADER}\n1.0\tnode/test_a_pad\tmodel.onnx\twheel\t5\t{}\n",
                hex(b"model")
            )
            .as_bytes(),
        );
        write(
            root,
            "extended/MANIFEST.tsv",
            format!("{GENERATED_HEADER}\ntest_b_pad\tmodel.onnx\t5\t{}\n", hex(b"other")).as_bytes(),
        );
        let manifest = Manifest::read(root).unwrap();
        let upstream = manifest.case("onnx-1.0/node/test_a_pad").unwrap();
        assert!(upstream.upstream && upstream.lists("model.onnx"));
        let generated = manifest.case("extended/test_b_pad").unwrap();
        assert!(!generated.upstream);
        assert!(manifest.covers("onnx-1.0") && manifest.covers("extended") && manifest.covers(""));
        assert!(manifest.covers("onnx-1.0/node/test_a_pad/test_data_set_0"));
        assert!(!manifest.covers("onnx-1.") && !manifest.covers("elsewhere"));
        upstream.verify(&root.join("onnx-1.0/node/test_a_pad")).unwrap();
        write(root, "onnx-1.0/node/test_a_pad/model.onnx", b"mode1");
        let error = upstream.verify(&root.join("onnx-1.0/node/test_a_pad")).unwrap_err();
        assert!(matches!(error, Tampered::Differs { what: "sha256", .. }), "{error}");
        write(root, "onnx-1.0/node/test_a_pad/model.onnx", b"model, longer");
        let error = upstream.verify(&root.join("onnx-1.0/node/test_a_pad")).unwrap_err();
        assert!(matches!(error, Tampered::Differs { what: "size", .. }), "{error}");
        std::fs::remove_file(root.join("onnx-1.0/node/test_a_pad/model.onnx")).unwrap();
        let error = upstream.verify(&root.join("onnx-1.0/node/test_a_pad")).unwrap_err();
        assert!(matches!(error, Tampered::Unreadable { .. }), "{error}");
    }

    #[test]
    fn a_manifest_is_anchored_by_the_digest_carried_for_it_or_reported_unanchored() {
        let text = format!("{GENERATED_HEADER}\n");
        let digest: [u8; 32] = Sha256::digest(text.as_bytes()).into();
        let path = Path::new("extended/MANIFEST.tsv");
        assert_eq!(anchor(path, &text, Some(digest)).unwrap(), Anchor::Anchored);
        assert_eq!(anchor(path, &text, None).unwrap(), Anchor::Unanchored);
        let edited = format!("{text}test_a_pad\tmodel.onnx\t1\t{}\n", "0".repeat(64));
        let error = anchor(path, &edited, Some(digest)).unwrap_err().to_string();
        assert!(error.contains("extended/MANIFEST.tsv:1: its sha256 differs"), "{error}");
        // A root with its own manifests is read, and says that nothing vouches for them.
        let dir = crate::data::scratch_dir().unwrap();
        write(dir.path(), MANIFEST_FILE, format!("{UPSTREAM_HEADER}\n").as_bytes());
        write(dir.path(), "extended/MANIFEST.tsv", text.as_bytes());
        let manifest = Manifest::read(dir.path()).unwrap();
        assert_eq!(
            manifest.unanchored(),
            [dir.path().join(MANIFEST_FILE), dir.path().join("extended/MANIFEST.tsv")]
        );
    }

    #[test]
    fn malformed_manifests_name_the_line() {
        let dir = crate::data::scratch_dir().unwrap();
        let bad = [
            ("nothing\n", "1: the header"),
            (&*format!("{UPSTREAM_HEADER}\n1.0\tc\tf\tw\t5\n"), "2: 5 fields, not 6"),
            (
                &*format!("{UPSTREAM_HEADER}\n1.0\tc\tf\tw\tfive\t{}\n", "0".repeat(64)),
                "2: size \"five\"",
            ),
            (
                &*format!("{UPSTREAM_HEADER}\n1.0\tc\tf\tw\t5\txyz\n"),
                "2: \"xyz\" is not a sha256",
            ),
            (
                &*format!("{UPSTREAM_HEADER}\n1.0\t../c\tf\tw\t5\t{}\n", "0".repeat(64)),
                "not a plain relative path",
            ),
            (
                &*format!(
                    "{UPSTREAM_HEADER}\n1.0\tc\tf\tw\t5\t{z}\n1.0\tc\tf\tw\t5\t{z}\n",
                    z = "0".repeat(64)
                ),
                "3: f is listed twice",
            ),
        ];
        for (text, expected) in bad {
            write(dir.path(), MANIFEST_FILE, text.as_bytes());
            let error = Manifest::read(dir.path()).unwrap_err().to_string();
            assert!(error.contains(expected), "{error}");
        }
    }
}
