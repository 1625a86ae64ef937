//! File names as text, nothing lost: two names that differ only in what is not Unicode keep
//! different texts (a lossy conversion would make both `\u{fffd}`).

use std::ffi::OsStr;

/// `name` as text: on Unix, bytes that are not UTF-8 written `\xNN`; on Windows, unpaired
/// surrogates written `\u{dNNN}`.
pub(crate) fn lossless_name(name: &OsStr) -> String {
    if let Some(text) = name.to_str() {
        return text.to_owned();
    }
    not_unicode(name)
}

/// A relative `path` as manifests and reports spell it, its components joined by `/` on every
/// system (Windows separates them with a backslash); `None` when a component is not Unicode.
pub(crate) fn slash_separated(path: &std::path::Path) -> Option<String> {
    let parts: Option<Vec<&str>> = path.components().map(|c| c.as_os_str().to_str()).collect();
    Some(parts?.join("/"))
}

#[cfg(unix)]
fn not_unicode(name: &OsStr) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut text = String::new();
    for chunk in name.as_bytes().utf8_chunks() {
        text.push_str(chunk.valid());
        for byte in chunk.invalid() {
            text.push_str(&format!("\\x{byte:02x}"));
        }
    }
    text
}

#[cfg(windows)]
fn not_unicode(name: &OsStr) -> String {
    use std::os::windows::ffi::OsStrExt;
    char::decode_utf16(name.encode_wide())
        .map(|unit| match unit {
            Ok(c) => c.to_string(),
            Err(e) => format!("\\u{{{:x}}}", e.unpaired_surrogate()),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{lossless_name, slash_separated};

    #[test]
    fn unicode_names_are_kept_as_they_are() {
        assert_eq!(lossless_name("test_pad_é".as_ref()), "test_pad_é");
    }

    #[test]
    fn relative_paths_are_slash_separated_on_every_system() {
        let path = std::path::Path::new("test_data_set_0").join("input_0.pb");
        assert_eq!(slash_separated(&path).as_deref(), Some("test_data_set_0/input_0.pb"));
    }

    #[cfg(unix)]
    #[test]
    fn bytes_that_are_not_utf8_are_written_as_escapes() {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::OsStr::from_bytes(b"a\xffb\xfe");
        assert_eq!(lossless_name(name), "a\\xffb\\xfe");
    }

    #[cfg(windows)]
    #[test]
    fn unpaired_surrogates_are_written_as_escapes() {
        use std::os::windows::ffi::OsStringExt;
        let name = std::ffi::OsString::from_wide(&[u16::from(b'a'), 0xd800, u16::from(b'b')]);
        assert_eq!(lossless_name(&name), "a\\u{d800}b");
    }
}
