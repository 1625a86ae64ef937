//! One known failure of a baseline file, and the entries of one data set: a single entry
//! (formats 1 to 3) or, in format 3, a list of entries for different configurations.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::config::ConfigName;
use crate::judge::check::Status;

/// The longest `tracking` link, in bytes: a bug tracker's URL, not a document.
pub(crate) const MAX_TRACKING_BYTES: usize = 2048;

/// A known failure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Expectation {
    /// `failed` or `errored`; `passed` only for an entry that allows an intermittent crash of
    /// a data set that otherwise passes.
    pub status: Status,
    /// Why: kept across `--write-baseline` runs, so people can edit it.
    pub reason: String,
    /// The configurations it applies to (format 3); absent: every configuration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configs: Option<Vec<ConfigName>>,
    /// Where the failure is tracked: an http(s) link to a bug.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracking: Option<Tracking>,
    /// A crash or timeout of the data set is known too (format 3): it happens at random.
    #[serde(
        default,
        skip_serializing_if = "std::ops::Not::not",
        deserialize_with = "intermittent_crash_flag"
    )]
    pub intermittent_crash: bool,
    /// Keys this version does not know: kept when the file is rewritten; refused in format 3.
    #[serde(flatten)]
    pub unknown: BTreeMap<String, serde_json::Value>,
}

/// `intermittent_crash`, refused naming itself when it is not a JSON boolean: inside an entry
/// read with its unknown keys kept, serde's own error ("expected a boolean") names no field.
fn intermittent_crash_flag<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    let value = serde_json::Value::deserialize(deserializer)?;
    value.as_bool().ok_or_else(|| {
        let shown = crate::data::side_file::excerpt(&value.to_string(), 100).into_owned();
        serde::de::Error::custom(format!("\"intermittent_crash\": {shown} is not true or false"))
    })
}

impl Expectation {
    /// An entry for every configuration, with no link.
    pub(crate) fn new(status: Status, reason: impl Into<String>) -> Expectation {
        Expectation {
            status,
            reason: reason.into(),
            configs: None,
            tracking: None,
            intermittent_crash: false,
            unknown: BTreeMap::new(),
        }
    }

    /// Whether it applies in `config` (none: the unnamed configuration, where only entries
    /// for every configuration apply).
    pub(crate) fn applies_to(&self, config: Option<&ConfigName>) -> bool {
        match (&self.configs, config) {
            (None, _) => true,
            (Some(configs), Some(config)) => configs.contains(config),
            (Some(_), None) => false,
        }
    }

    /// Whether it needs format 3: an older reader would apply it where it does not apply,
    /// or not know the crash it allows.
    pub(crate) fn needs_format_3(&self) -> bool {
        self.configs.is_some() || self.intermittent_crash || self.status == Status::Passed
    }
}

/// An http(s) link to where a known failure is tracked, checked: at most
/// [`MAX_TRACKING_BYTES`], a host, no spaces or control characters.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Tracking(String);

/// A `tracking` value that is not an http(s) link.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "tracking {:?} is not an http(s) link (https://host/..., at most {MAX_TRACKING_BYTES} bytes, no spaces)",
    crate::data::side_file::excerpt(.0, 100)
)]
pub struct TrackingError(pub String);

impl Tracking {
    /// `link`, if it is an http(s) link.
    pub(crate) fn new(link: &str) -> Result<Tracking, TrackingError> {
        let rest = link.strip_prefix("https://").or_else(|| link.strip_prefix("http://"));
        let host = rest.map(|r| r.split(['/', '?', '#']).next().unwrap_or_default());
        let plain = link.chars().all(|c| !c.is_whitespace() && !c.is_control());
        match host {
            Some(host) if !host.is_empty() && plain && link.len() <= MAX_TRACKING_BYTES => {
                Ok(Tracking(link.to_owned()))
            }
            _ => Err(TrackingError(link.to_owned())),
        }
    }
}

impl TryFrom<String> for Tracking {
    type Error = TrackingError;

    fn try_from(link: String) -> Result<Tracking, TrackingError> {
        Tracking::new(&link)
    }
}

impl From<Tracking> for String {
    fn from(link: Tracking) -> String {
        link.0
    }
}

impl fmt::Display for Tracking {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The entries of one data set: written as one object when there is one (as formats 1 and 2
/// have it), as a list otherwise (format 3).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Entries(pub Vec<Expectation>);

impl Serialize for Entries {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0.as_slice() {
            [one] => one.serialize(serializer),
            many => many.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Entries, D::Error> {
        struct OneOrMany;
        impl<'de> serde::de::Visitor<'de> for OneOrMany {
            type Value = Entries;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an entry (an object) or a list of entries")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Entries, A::Error> {
                Expectation::deserialize(MapAccessDeserializer::new(map)).map(|one| Entries(vec![one]))
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Entries, A::Error> {
                Vec::deserialize(SeqAccessDeserializer::new(seq)).map(Entries)
            }
        }
        deserializer.deserialize_any(OneOrMany)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_intermittent_crash_flag_that_is_not_a_boolean_is_refused_naming_the_field() {
        let entry = |flag: &str| {
            serde_json::from_str::<Expectation>(&format!(
                r#"{{"status": "errored", "reason": "r", "intermittent_crash": {flag}}}"#
            ))
        };
        assert!(entry("true").unwrap().intermittent_crash);
        assert!(!entry("false").unwrap().intermittent_crash);
        let error = entry(r#""true""#).unwrap_err().to_string();
        assert!(
            error.starts_with(r#""intermittent_crash": "true" is not true or false"#),
            "{error}"
        );
        assert!(
            entry("1")
                .unwrap_err()
                .to_string()
                .contains(r#""intermittent_crash": 1 is not"#)
        );
    }

    #[test]
    fn tracking_links_are_http_links_of_bounded_length() {
        for good in ["https://github.com/o/r/issues/12", "http://bugs.example/1?x=2#c"] {
            assert_eq!(Tracking::new(good).unwrap().to_string(), good);
        }
        let long = format!("https://x/{}", "a".repeat(MAX_TRACKING_BYTES));
        for bad in [
            "",
            "github.com/o/r/issues/1",
            "https://",
            "https:///path",
            "ftp://x/1",
            "https://x/a b",
            "https://x/\n",
            &long,
        ] {
            assert_eq!(Tracking::new(bad), Err(TrackingError(bad.to_owned())), "{bad:?}");
        }
    }

    #[test]
    fn one_entry_is_an_object_and_several_a_list() {
        let one: Entries = serde_json::from_str(r#"{"status": "failed", "reason": "r"}"#).unwrap();
        assert_eq!(one, Entries(vec![Expectation::new(Status::Failed, "r")]));
        assert_eq!(
            serde_json::to_string(&one).unwrap(),
            r#"{"status":"failed","reason":"r"}"#
        );
        let text = r#"[{"status":"failed","reason":"a","configs":["debug"]},{"status":"errored","reason":"b","configs":["release"],"tracking":"https://x/1"}]"#;
        let many: Entries = serde_json::from_str(text).unwrap();
        assert_eq!(many.0[1].configs.as_deref().unwrap()[0].as_str(), "release");
        assert_eq!(many.0[1].tracking.as_ref().unwrap().to_string(), "https://x/1");
        assert_eq!(serde_json::to_string(&many).unwrap(), text);
        let error =
            serde_json::from_str::<Entries>(r#"{"status":"failed","reason":"a","configs":["a b"]}"#).unwrap_err();
        assert!(
            error.to_string().starts_with("\"a b\" is not a configuration name"),
            "{error}"
        );
    }
}
