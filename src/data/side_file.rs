//! The small files read whole beside the data — profiles, case.json, VERSION, CHANGELOG.md,
//! manifests, baselines, earlier reports — read as a trusted tool reads a file it did not
//! write: the file type checked before opening (a FIFO would block the open, a device never
//! ends), the open non-blocking (a file swapped for a FIFO in between still cannot block),
//! and the size checked against a cap for its kind before anything is read.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use crate::platform::open_for_reading;

/// The largest profile read: a profile is a few lines of TOML, but a generated one may list
/// a hundred thousand exceptions (about 8 MiB), which its matching handles in linear time.
pub(crate) const MAX_PROFILE_BYTES: u64 = 16 << 20;
/// The largest case.json read: a sidecar of a few fields.
pub(crate) const MAX_CASE_INFO_BYTES: u64 = 1 << 20;
/// The largest VERSION read: one number.
pub(crate) const MAX_VERSION_BYTES: u64 = 4 << 10;
/// The largest CHANGELOG.md or MANIFEST.tsv read: one line per data set of a large corpus.
pub(crate) const MAX_CORPUS_LIST_BYTES: u64 = 64 << 20;
/// The largest baseline read: one entry per failing data set of a large corpus.
pub(crate) const MAX_BASELINE_BYTES: u64 = 64 << 20;
/// The largest JSON report read (by `diff`): one record per data set, messages included.
pub(crate) const MAX_REPORT_BYTES: u64 = 512 << 20;

/// Why a file was not read, as the source of the caller's `io::Error`.
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    /// A FIFO, socket, device or directory where a file was expected.
    #[error("not a regular file but a {kind}")]
    NotAFile {
        /// `FIFO`, `socket`, `device`, `directory`.
        kind: &'static str,
    },
    /// Larger than its kind may be.
    #[error("{bytes} bytes, over the {limit} bytes this file may hold")]
    TooLarge {
        /// Its size (or, for a file that grew while read, what was read).
        bytes: u64,
        /// The cap.
        limit: u64,
    },
    /// Not UTF-8.
    #[error("not UTF-8 text")]
    NotText,
}

impl From<Refused> for io::Error {
    fn from(refused: Refused) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, refused)
    }
}

/// What a file type names when it is not a regular file: `symbolic link` (seen only when
/// links are not followed), `directory`, `FIFO`, `socket`, `device`, `special file`.
pub(crate) fn special_kind(file_type: std::fs::FileType) -> Option<&'static str> {
    Some(if file_type.is_file() {
        return None;
    } else if file_type.is_symlink() {
        "symbolic link"
    } else if file_type.is_dir() {
        "directory"
    } else if let Some(kind) = crate::platform::special_kind(&file_type) {
        kind
    } else {
        "special file"
    })
}

/// What `metadata` describes, when it is not a regular file.
fn not_a_file(metadata: &std::fs::Metadata) -> Option<Refused> {
    special_kind(metadata.file_type()).map(|kind| Refused::NotAFile { kind })
}

/// Opens `path` (links followed) when it is a regular file of at most `limit` bytes, and
/// returns it with its size; anything else is refused before a byte is read.
pub(crate) fn open_regular(path: &Path, limit: u64) -> io::Result<(File, u64)> {
    if let Some(refused) = not_a_file(&std::fs::metadata(path)?) {
        return Err(refused.into());
    }
    let file = open_for_reading(path)?;
    // Checked again on what was opened: the path may have changed in between.
    let metadata = file.metadata()?;
    if let Some(refused) = not_a_file(&metadata) {
        return Err(refused.into());
    }
    if metadata.len() > limit {
        return Err(Refused::TooLarge {
            bytes: metadata.len(),
            limit,
        }
        .into());
    }
    Ok((file, metadata.len()))
}

/// The bytes of the regular file `path`, refused over `limit` bytes before reading (and
/// cut off at the limit should it grow while read).
pub(crate) fn read_capped(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let (file, len) = open_regular(path, limit)?;
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(Refused::TooLarge {
            bytes: bytes.len() as u64,
            limit,
        }
        .into());
    }
    Ok(bytes)
}

/// [`read_capped`] as UTF-8 text.
pub(crate) fn read_text_capped(path: &Path, limit: u64) -> io::Result<String> {
    String::from_utf8(read_capped(path, limit)?).map_err(|_| Refused::NotText.into())
}

/// At most `max_chars` characters of `text`, cut with `…`: how an error quotes what it read
/// (a parse error must not echo a line of a gigabyte).
pub(crate) fn excerpt(text: &str, max_chars: usize) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(max_chars) {
        None => text.into(),
        Some((cut, _)) => format!("{}…", &text[..cut]).into(),
    }
}

/// A parser's error message with each line cut by [`excerpt`] and at most `max_lines` lines:
/// the position and the reason stay, a quoted line of a gigabyte does not.
pub(crate) fn excerpt_lines(text: &str, max_chars: usize, max_lines: usize) -> String {
    let mut lines: Vec<std::borrow::Cow<'_, str>> = text
        .lines()
        .take(max_lines)
        .map(|line| excerpt(line, max_chars))
        .collect();
    if text.lines().nth(max_lines).is_some() {
        lines.push("…".into());
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn only_regular_files_within_the_cap_are_read() {
        let dir = crate::data::scratch_dir().unwrap();
        let file = dir.path().join("VERSION");
        std::fs::write(&file, "12\n").unwrap();
        assert_eq!(read_text_capped(&file, 3).unwrap(), "12\n");
        let error = read_text_capped(&file, 2).unwrap_err();
        assert_eq!(error.to_string(), "3 bytes, over the 2 bytes this file may hold");
        let fifo = dir.path().join("case.json");
        nix_mkfifo(&fifo);
        // Would block forever if opened for reading without a writer.
        assert_eq!(
            read_text_capped(&fifo, 1 << 20).unwrap_err().to_string(),
            "not a regular file but a FIFO"
        );
        assert_eq!(
            read_text_capped(dir.path(), 1 << 20).unwrap_err().to_string(),
            "not a regular file but a directory"
        );
        assert_eq!(
            read_text_capped(Path::new("/dev/zero"), 1 << 20)
                .unwrap_err()
                .to_string(),
            "not a regular file but a device"
        );
        std::fs::write(&file, b"\xff\xfe").unwrap();
        assert_eq!(read_text_capped(&file, 10).unwrap_err().to_string(), "not UTF-8 text");
    }

    #[test]
    fn an_excerpt_is_cut_on_a_character() {
        assert_eq!(excerpt("abc", 3), "abc");
        assert_eq!(excerpt("éééé", 2), "éé…");
        assert_eq!(excerpt(&"x".repeat(10_000), 5), "xxxxx…");
        let parse_error = format!("at line 1, column 3\n1 | {}\nexpected `=`", "y".repeat(1 << 20));
        assert_eq!(
            excerpt_lines(&parse_error, 12, 5),
            "at line 1, c…\n1 | yyyyyyyy…\nexpected `=`"
        );
        assert_eq!(excerpt_lines("a\nb\nc", 5, 2), "a\nb\n…");
    }

    #[cfg(unix)]
    fn nix_mkfifo(path: &Path) {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o644) }, 0);
    }
}
