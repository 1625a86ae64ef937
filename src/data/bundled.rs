//! The bundled corpus, as build.rs fixed it: the size and sha256 of every file of
//! onnx-testdata/ (and of the second oracle's worker script), and, with the `embedded-corpus`
//! feature, the files themselves. Those digests anchor the bundled manifests (a bundled
//! MANIFEST.tsv that disagrees with them is an error), and the manifests' own checksums cover
//! every case file, so a bundled corpus is vouched for by the binary that runs it.
//!
//! Where files are needed and no source tree is at hand (an installed binary), the embedded
//! files are unpacked once per corpus content into a cache directory, the same path every run
//! (paths reach baseline reasons), and verified against the digests on every use: a tampered
//! or half-written cache is set aside and unpacked again; two processes unpacking at once
//! each write a private directory and the first rename wins. What a run killed mid-unpack
//! left (its private directory) is removed by the next run that finds no unpack in progress.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use sha2::{Digest, Sha256};

/// The environment variable naming the cache directory the embedded corpus is unpacked into,
/// instead of the platform's.
pub(crate) const CACHE_ENV: &str = "PAD_CONFORMANCE_CACHE";

/// The corpus directory inside a bundle (a baseline names a corpus by its directory's name).
pub(crate) const CORPUS_DIR: &str = "onnx-testdata";

/// `path\tbytes\tsha256` per bundled file (the manifests only, without `embedded-corpus`),
/// sorted by path (build.rs).
const INDEX: &str = include_str!(concat!(env!("OUT_DIR"), "/bundled-index.tsv"));

/// A digest of [`INDEX`] (build.rs): the content's part of the bundle's name.
const INDEX_DIGEST: &str = include_str!(concat!(env!("OUT_DIR"), "/bundled-digest.txt"));

/// The bundled files' bytes, concatenated in the index's order, as one raw deflate stream.
#[cfg(feature = "embedded-corpus")]
const ARCHIVE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/bundled-corpus.deflate"));

/// The bundled corpus's version, for the cache directory's name.
const VERSION: &str = include_str!("../../onnx-testdata/VERSION");

/// One bundled file, by its path relative to the package root.
#[derive(Debug)]
pub(crate) struct BundledFile {
    pub(crate) path: &'static str,
    pub(crate) bytes: u64,
    pub(crate) sha256: [u8; 32],
}

/// The bundled files, in the archive's order.
pub(crate) fn files() -> &'static [BundledFile] {
    static FILES: OnceLock<Vec<BundledFile>> = OnceLock::new();
    FILES.get_or_init(|| INDEX.lines().map(parse_line).collect())
}

fn parse_line(line: &'static str) -> BundledFile {
    // Written by build.rs in the same build: a line that does not parse is a bug of the build.
    let mut fields = line.split('\t');
    let (Some(path), Some(bytes), Some(sha256), None) = (fields.next(), fields.next(), fields.next(), fields.next())
    else {
        unreachable!("build.rs writes three fields per line: {line:?}")
    };
    BundledFile {
        path,
        bytes: bytes.parse().expect("build.rs writes sizes as whole numbers"),
        sha256: parse_hex(sha256).expect("build.rs writes sha256 digests in hex"),
    }
}

fn parse_hex(text: &str) -> Option<[u8; 32]> {
    let mut out = [0u8; 32];
    if text.len() != 64 {
        return None;
    }
    for (byte, pair) in out.iter_mut().zip(text.as_bytes().chunks(2)) {
        *byte = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
    }
    Some(out)
}

/// The source tree's corpus, as it was when the crate was built: where a gate built from a
/// path or git dependency finds it.
pub(crate) fn source_corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(CORPUS_DIR)
}

/// The sha256 this build carries for the manifest at `relative` (`MANIFEST.tsv`,
/// `extended/MANIFEST.tsv`) of the corpus at `dir`, when `dir` is the bundled corpus (the source
/// tree's or the unpacked cache's); any other corpus is its own, and gets `None`.
pub(crate) fn manifest_digest(dir: &Path, relative: &str) -> Option<[u8; 32]> {
    let cached = cached_bundle().ok().map(|bundle| bundle.join(CORPUS_DIR));
    manifest_digest_among(dir, relative, [Some(source_corpus()), cached].iter().flatten())
}

/// [`manifest_digest`], with the bundled corpus's places given.
fn manifest_digest_among<'a>(
    dir: &Path,
    relative: &str,
    mut bundled: impl Iterator<Item = &'a PathBuf>,
) -> Option<[u8; 32]> {
    let canonical = |path: &Path| path.canonicalize().ok();
    let dir_canonical = canonical(dir)?;
    if !bundled.any(|b| canonical(b).as_ref() == Some(&dir_canonical)) {
        return None;
    }
    let wanted = format!("{CORPUS_DIR}/{relative}");
    // Only the wanted line is parsed: every process that reads the corpus (each isolated trial
    // of a gate) asks.
    INDEX
        .lines()
        .find(|line| line.split('\t').next() == Some(wanted.as_str()))
        .map(|line| parse_line(line).sha256)
}

/// Whether the file at `path` is the bundled `file`: a regular file of its size and digest.
fn check_file(path: &Path, file: &BundledFile) -> Result<(), String> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| format!("cannot be read ({e})"))?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    if meta.len() != file.bytes {
        return Err(format!("{} bytes, bundled {}", meta.len(), file.bytes));
    }
    let data = std::fs::read(path).map_err(|e| format!("cannot be read ({e})"))?;
    if Sha256::digest(&data)[..] != file.sha256 {
        return Err("sha256 differs from the bundled file's".into());
    }
    Ok(())
}

/// Why the embedded corpus could not be put in the cache.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    /// Neither the environment override nor a platform cache directory is known.
    #[error("no cache directory to unpack the bundled corpus into: set {CACHE_ENV} (or HOME) to a directory")]
    NoCacheDir,
    /// A file or directory of the cache cannot be made, read or written.
    #[error("unpacking the bundled corpus into {}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A file just unpacked is not what the index says (a corrupt build, or a cache changed
    /// under our feet).
    #[error("unpacking the bundled corpus: {}: {problem}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// How it differs.
        problem: String,
    },
}

/// The bundle's directory in the cache (holding `onnx-testdata/`), named by the corpus version
/// and a digest of the whole index, so a build with other content never reuses it.
fn cached_bundle() -> Result<PathBuf, BundleError> {
    Ok(cache_root()?.join(bundle_name()))
}

fn bundle_name() -> String {
    format!("corpus-{}-{}", VERSION.trim(), INDEX_DIGEST)
}

/// `$PAD_CONFORMANCE_CACHE`, else the platform's cache directory, with `pad-conformance/`.
fn cache_root() -> Result<PathBuf, BundleError> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(dir) = var(CACHE_ENV) {
        return absolute(&dir);
    }
    let platform = if cfg!(windows) {
        var("LOCALAPPDATA")
    } else if cfg!(target_os = "macos") {
        var("HOME").map(|home| home.join("Library/Caches"))
    } else {
        var("XDG_CACHE_HOME")
            .filter(|dir| dir.is_absolute())
            .or_else(|| var("HOME").map(|home| home.join(".cache")))
    };
    platform
        .map(|dir| dir.join("pad-conformance"))
        .ok_or(BundleError::NoCacheDir)
}

/// `dir` made absolute: the cases' paths reach reports and baselines, and must not depend on
/// the directory a run starts in.
fn absolute(dir: &Path) -> Result<PathBuf, BundleError> {
    std::path::absolute(dir).map_err(|source| BundleError::Io {
        path: dir.to_owned(),
        source,
    })
}

/// The bundled corpus's directory, unpacked into the cache if it is not there yet, verified.
#[cfg(feature = "embedded-corpus")]
pub(crate) fn unpacked_corpus() -> Result<PathBuf, BundleError> {
    Ok(unpack_into(&cache_root()?)?.join(CORPUS_DIR))
}

/// A bundled file outside the corpus (`relative` to the package root), unpacked and verified
/// with the corpus.
#[cfg(feature = "embedded-corpus")]
pub(crate) fn unpacked_file(relative: &str) -> Result<PathBuf, BundleError> {
    Ok(unpack_into(&cache_root()?)?.join(relative))
}

/// The verified bundle under `cache`: the one there when it is whole and unchanged, else a
/// fresh unpack (a tampered one is set aside first). A concurrent unpack that wins the rename
/// is verified and taken on the next round.
#[cfg(feature = "embedded-corpus")]
fn unpack_into(cache: &Path) -> Result<PathBuf, BundleError> {
    let target = cache.join(bundle_name());
    std::fs::create_dir_all(cache).map_err(io_at(cache))?;
    let _unpacking = UnpackLock::take(cache);
    let mut lost_race = None;
    for _ in 0..3 {
        if std::fs::symlink_metadata(&target).is_ok() {
            if verify(&target).is_ok() {
                return Ok(target);
            }
            set_aside(cache, &target)?;
        }
        let staging = tempfile::Builder::new()
            .prefix(".unpacking-")
            .tempdir_in(cache)
            .map_err(io_at(cache))?;
        write_files(staging.path())?;
        verify(staging.path())?;
        match std::fs::rename(staging.path(), &target) {
            Ok(()) => {
                // The staging directory is the target now: nothing left to remove.
                let _ = staging.keep();
                return Ok(target);
            }
            Err(error) => lost_race = Some(error),
        }
    }
    Err(BundleError::Io {
        path: target,
        source: lost_race.unwrap_or_else(|| std::io::Error::other("the cache kept changing while it was unpacked")),
    })
}

/// The cache's lock file: every unpack holds it shared while it stages, so a process that
/// can hold it alone knows that no `.unpacking-*` or `.set-aside-*` directory beside it is in
/// use — they were left by a run killed mid-unpack — and removes them first.
#[cfg(feature = "embedded-corpus")]
const LOCK_FILE: &str = ".unpacking.lock";

/// A shared hold on the cache's [`LOCK_FILE`], taken after clearing what killed runs left.
/// Where the file system takes no lock, nothing is cleared and nothing is held: an unpack
/// never fails for want of a lock.
#[cfg(feature = "embedded-corpus")]
struct UnpackLock(#[allow(dead_code, reason = "held for its lock, released when dropped")] Option<std::fs::File>);

#[cfg(feature = "embedded-corpus")]
impl UnpackLock {
    fn take(cache: &Path) -> UnpackLock {
        let Ok(file) = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(cache.join(LOCK_FILE))
        else {
            return UnpackLock(None);
        };
        if file.try_lock().is_ok() {
            remove_leftovers(cache);
            let _ = file.unlock();
        }
        // Blocks only while another process clears leftovers, which takes no longer than a
        // directory listing and the removal of what a killed run left.
        UnpackLock(file.lock_shared().is_ok().then_some(file))
    }
}

/// Removes the staging and set-aside directories under `cache` (the caller alone holds the
/// lock, so no process is using them); what cannot be removed is left for a later run.
#[cfg(feature = "embedded-corpus")]
fn remove_leftovers(cache: &Path) {
    let Ok(entries) = std::fs::read_dir(cache) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir && (name.starts_with(".unpacking-") || name.starts_with(".set-aside-")) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(feature = "embedded-corpus")]
fn io_at(path: &Path) -> impl FnOnce(std::io::Error) -> BundleError {
    let path = path.to_owned();
    move |source| BundleError::Io { path, source }
}

/// Moves a bundle that failed verification out of the way (into a scratch directory that is
/// removed with it), unless another process already did.
#[cfg(feature = "embedded-corpus")]
fn set_aside(cache: &Path, target: &Path) -> Result<(), BundleError> {
    let aside = tempfile::Builder::new()
        .prefix(".set-aside-")
        .tempdir_in(cache)
        .map_err(io_at(cache))?;
    match std::fs::rename(target, aside.path().join("bundle")) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => Err(BundleError::Io {
            path: target.to_owned(),
            source: error,
        }),
        _ => Ok(()),
    }
}

/// Writes every bundled file under `dir`, streaming from the embedded archive.
#[cfg(feature = "embedded-corpus")]
fn write_files(dir: &Path) -> Result<(), BundleError> {
    use std::io::Read;
    let mut archive = flate2::read::DeflateDecoder::new(ARCHIVE);
    for file in files() {
        let path = dir.join(file.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io_at(parent))?;
        }
        let mut out = std::fs::File::create(&path).map_err(io_at(&path))?;
        let copied = std::io::copy(&mut (&mut archive).take(file.bytes), &mut out).map_err(io_at(&path))?;
        if copied != file.bytes {
            return Err(BundleError::Corrupt {
                path,
                problem: format!("the embedded archive ends after {copied} of {} bytes", file.bytes),
            });
        }
    }
    Ok(())
}

/// Whether the bundle at `dir` holds exactly the bundled files, each of its size and digest.
#[cfg(feature = "embedded-corpus")]
fn verify(dir: &Path) -> Result<(), BundleError> {
    for file in files() {
        let path = dir.join(file.path);
        check_file(&path, file).map_err(|problem| BundleError::Corrupt { path, problem })?;
    }
    let mut regular = 0;
    for entry in walkdir::WalkDir::new(dir).min_depth(1) {
        let entry = entry.map_err(|e| BundleError::Corrupt {
            path: dir.to_owned(),
            problem: e.to_string(),
        })?;
        if entry.file_type().is_file() {
            regular += 1;
        } else if !entry.file_type().is_dir() {
            return Err(BundleError::Corrupt {
                path: entry.path().to_owned(),
                problem: "neither a file nor a directory".into(),
            });
        }
    }
    if regular != files().len() {
        return Err(BundleError::Corrupt {
            path: dir.to_owned(),
            problem: format!("{regular} files where {} are bundled", files().len()),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "embedded-corpus")]
    #[test]
    fn the_embedded_corpus_unpacks_once_and_a_tampered_cache_is_unpacked_again() {
        let cache = crate::data::scratch_dir().unwrap();
        // Two processes' worth of unpacking at once: both end with the one verified bundle.
        let (a, b) = std::thread::scope(|s| {
            let a = s.spawn(|| unpack_into(cache.path()));
            let b = s.spawn(|| unpack_into(cache.path()));
            (a.join().unwrap().unwrap(), b.join().unwrap().unwrap())
        });
        assert_eq!(a, b);
        assert_eq!(a, cache.path().join(bundle_name()));
        let names: Vec<_> = std::fs::read_dir(cache.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        let mut names: Vec<_> = names.iter().map(|n| n.to_string_lossy().into_owned()).collect();
        names.sort();
        assert_eq!(names, [LOCK_FILE.to_owned(), bundle_name()], "no staging left behind");
        let model = a.join("onnx-testdata/onnx-1.22.0/node/test_wrap_pad/model.onnx");
        let original = std::fs::read(&model).unwrap();
        let worker = a.join("scripts/backends/onnx-reference-worker");
        assert!(std::fs::read_to_string(worker).unwrap().contains("ReferenceEvaluator"));

        // A changed file and a planted case: the next use unpacks it anew.
        std::fs::write(&model, b"tampered").unwrap();
        std::fs::create_dir(a.join("onnx-testdata/extended/test_planted_pad")).unwrap();
        std::fs::write(a.join("onnx-testdata/extended/test_planted_pad/model.onnx"), b"x").unwrap();
        assert!(verify(&a).is_err());
        assert_eq!(unpack_into(cache.path()).unwrap(), a);
        assert_eq!(std::fs::read(&model).unwrap(), original);
        assert!(!a.join("onnx-testdata/extended/test_planted_pad").exists());
        assert!(verify(&a).is_ok());

        // The bundled corpus's manifests have the digests this build carries; another
        // corpus (not the bundled one) is its own.
        let corpus = a.join(CORPUS_DIR);
        let carried = manifest_digest_among(&corpus, "extended/MANIFEST.tsv", [corpus.clone()].iter()).unwrap();
        let text = std::fs::read(corpus.join("extended/MANIFEST.tsv")).unwrap();
        assert_eq!(carried[..], Sha256::digest(&text)[..]);
        assert_eq!(
            manifest_digest_among(&corpus, "no/MANIFEST.tsv", [corpus.clone()].iter()),
            None
        );
        assert_eq!(
            manifest_digest_among(&corpus, "MANIFEST.tsv", [source_corpus()].iter()),
            None
        );
    }

    #[cfg(feature = "embedded-corpus")]
    #[test]
    fn what_a_killed_unpack_left_is_removed_by_the_next_but_not_while_another_unpacks() {
        let cache = crate::data::scratch_dir().unwrap();
        let leftovers = [".unpacking-Ab12Cd", ".set-aside-Ef34Gh"];
        for name in leftovers {
            std::fs::create_dir_all(cache.path().join(name).join("onnx-testdata")).unwrap();
            std::fs::write(cache.path().join(name).join("onnx-testdata/x.pb"), b"half").unwrap();
        }
        // Another unpack in progress holds the lock shared: its staging is not touched.
        let other = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(cache.path().join(LOCK_FILE))
            .unwrap();
        other.lock_shared().unwrap();
        unpack_into(cache.path()).unwrap();
        for name in leftovers {
            assert!(
                cache.path().join(name).is_dir(),
                "{name} removed while another unpack held the lock"
            );
        }
        // Killed runs hold nothing: the next unpack removes what they left.
        drop(other);
        let bundle = unpack_into(cache.path()).unwrap();
        let mut names: Vec<_> = std::fs::read_dir(cache.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, [LOCK_FILE.to_owned(), bundle_name()]);
        assert!(verify(&bundle).is_ok());
    }

    #[test]
    fn the_index_lists_every_bundled_file_with_its_digest() {
        let manifest = files().iter().find(|f| f.path == "onnx-testdata/MANIFEST.tsv").unwrap();
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(manifest.path);
        assert_eq!(check_file(&path, manifest), Ok(()));
        assert!(files().iter().any(|f| f.path == "onnx-testdata/extended/MANIFEST.tsv"));
        #[cfg(feature = "embedded-corpus")]
        assert!(files().iter().any(|f| f.path == "python/pad_conformance/worker.py"));
        assert!(files().windows(2).all(|w| w[0].path < w[1].path));
    }
}
