//! A text that is not TOML or JSON of the shape expected (a profile, a worker's request), as
//! the gate's API names it: the parsers' own error types stay behind it, so that the API
//! promises no version of toml or serde_json.

use std::fmt;

/// A text that is not TOML or JSON of the shape expected: its message says where and why.
/// Opaque, as `serde_json::Error` is: a gate shows it.
#[derive(Debug)]
pub struct ParseError(Box<Parser>);

/// The parser that refused the text, with its error.
#[derive(Debug)]
enum Parser {
    Toml(toml::de::Error),
    Json(serde_json::Error),
}

// Constructors, not `From` impls: a `From` of a parser's error would name it in the API.
impl ParseError {
    /// The toml crate's refusal.
    pub(crate) fn toml(error: toml::de::Error) -> ParseError {
        ParseError(Box::new(Parser::Toml(error)))
    }

    /// serde_json's refusal.
    pub(crate) fn json(error: serde_json::Error) -> ParseError {
        ParseError(Box::new(Parser::Json(error)))
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.0 {
            Parser::Toml(e) => e.fmt(f),
            Parser::Json(e) => e.fmt(f),
        }
    }
}

/// The parsers' errors have no source of their own: the message is the whole of it.
impl std::error::Error for ParseError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parse_error_says_what_its_parser_says_and_names_no_parser_type() {
        let toml = toml::from_str::<toml::Value>("a = ").unwrap_err();
        let said = toml.to_string();
        let error = ParseError::toml(toml);
        assert_eq!(error.to_string(), said);
        assert!(said.contains("line 1"), "{said}");
        let json = serde_json::from_str::<serde_json::Value>("{\"a\": }").unwrap_err();
        let said = json.to_string();
        assert_eq!(ParseError::json(json).to_string(), said);
        assert!(said.contains("line 1 column 7"), "{said}");
        assert!(std::error::Error::source(&error).is_none());
    }
}
