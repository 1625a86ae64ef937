//! The name of a configuration a gate runs in (`linux-x64-cpu`, `release`): what a run
//! declares with `--config` and a baseline entry lists in `configs`. Matched exactly, so the
//! name is checked where it enters: a short word of letters, digits, `.`, `_` and `-`.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The longest configuration name, in characters.
pub(crate) const MAX_CONFIG_NAME: usize = 64;

/// A configuration's name, checked.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ConfigName(String);

/// A configuration name that is not one: `what` it was, quoted in part.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{:?} is not a configuration name: 1 to {MAX_CONFIG_NAME} letters, digits, '.', '_' or '-', starting with a letter or digit",
    crate::data::side_file::excerpt(.0, 80)
)]
pub struct ConfigNameError(pub String);

impl ConfigName {
    /// `name`, if it is a configuration name.
    pub(crate) fn new(name: &str) -> Result<ConfigName, ConfigNameError> {
        let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
        let starts_well = name.chars().next().is_some_and(|c| c.is_ascii_alphanumeric());
        if starts_well && name.len() <= MAX_CONFIG_NAME && name.chars().all(allowed) {
            Ok(ConfigName(name.to_owned()))
        } else {
            Err(ConfigNameError(name.to_owned()))
        }
    }

    /// The name as written.
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for ConfigName {
    type Error = ConfigNameError;

    fn try_from(name: String) -> Result<ConfigName, ConfigNameError> {
        ConfigName::new(&name)
    }
}

impl From<ConfigName> for String {
    fn from(name: ConfigName) -> String {
        name.0
    }
}

impl fmt::Display for ConfigName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_short_words_of_a_plain_charset() {
        for good in ["linux-x64-cpu", "release", "a", "gpu_0.2", &"x".repeat(MAX_CONFIG_NAME)] {
            assert_eq!(ConfigName::new(good).unwrap().as_str(), good);
        }
        for bad in [
            "",
            "-debug",
            "linux x64",
            "debug,release",
            "é",
            "a/b",
            &"x".repeat(MAX_CONFIG_NAME + 1),
        ] {
            assert_eq!(ConfigName::new(bad), Err(ConfigNameError(bad.to_owned())), "{bad:?}");
        }
        assert!(
            ConfigNameError("a b".into())
                .to_string()
                .starts_with("\"a b\" is not a configuration name: 1 to 64 letters")
        );
    }
}
