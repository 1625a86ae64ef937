//! What a backend's author writes, as the runner knows it from how the backend runs — a Rust
//! `Backend`, a function the Python package serves, any other worker, a per-case command — so
//! that a message advising that author names what they write: `BackendUnsupported`,
//! `pad_conformance.worker.Unsupported`, an error reply of kind unsupported, exit 69. A worker
//! says which helper serves it in its hello's optional `language` (docs/backend-protocol.md);
//! nothing is read from a message.

use serde_json::Value;

/// How the author of a backend speaks to the runner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Language {
    /// A Rust [`Backend`](super::Backend): in the process, or served by `pad_conformance::Worker`
    /// (a hello's `"language": "rust"`).
    Rust,
    /// A function served by the Python package's `pad_conformance.worker` (`"python"`).
    Python,
    /// Any other worker: the protocol's own terms (a hello without `language`, or naming a
    /// helper this runner does not know).
    Worker,
    /// A command run once per data set, which answers by its exit code.
    PerCaseCommand,
}

impl Language {
    /// The hello's `language`: absent (a worker of its own, or older than the field) or a
    /// string this runner does not know is [`Language::Worker`]; anything but a string is an
    /// error saying what.
    pub(crate) fn from_hello(language: Option<&Value>) -> Result<Language, String> {
        match language {
            None | Some(Value::Null) => Ok(Language::Worker),
            Some(Value::String(name)) => Ok(match name.as_str() {
                "rust" => Language::Rust,
                "python" => Language::Python,
                _ => Language::Worker,
            }),
            Some(other) => Err(format!("the hello's language {other} is not a string")),
        }
    }

    /// What the backend's author writes to say a data set asks what the backend lacks, so
    /// that it is unsupported rather than refused.
    pub(crate) fn says_unsupported(self) -> &'static str {
        match self {
            Language::Rust => "return `BackendUnsupported`",
            Language::Python => "raise `pad_conformance.worker.Unsupported`",
            Language::Worker => "reply an error of kind \"unsupported\"",
            Language::PerCaseCommand => "exit 69",
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_hello_names_the_helper_that_serves_it_and_anything_else_speaks_the_protocol() {
        assert_eq!(Language::from_hello(None), Ok(Language::Worker));
        assert_eq!(Language::from_hello(Some(&Value::Null)), Ok(Language::Worker));
        assert_eq!(Language::from_hello(Some(&json!("python"))), Ok(Language::Python));
        assert_eq!(Language::from_hello(Some(&json!("rust"))), Ok(Language::Rust));
        // A helper of a later release: its author still speaks the protocol.
        assert_eq!(Language::from_hello(Some(&json!("zig"))), Ok(Language::Worker));
        assert_eq!(
            Language::from_hello(Some(&json!(["python"]))),
            Err("the hello's language [\"python\"] is not a string".to_owned())
        );
    }

    #[test]
    fn each_language_says_unsupported_in_its_own_words() {
        let said: Vec<_> = [
            Language::Rust,
            Language::Python,
            Language::Worker,
            Language::PerCaseCommand,
        ]
        .map(Language::says_unsupported)
        .into();
        assert_eq!(
            said,
            [
                "return `BackendUnsupported`",
                "raise `pad_conformance.worker.Unsupported`",
                "reply an error of kind \"unsupported\"",
                "exit 69"
            ]
        );
    }
}
