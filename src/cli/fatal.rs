//! A failure to run at all, which every command returns and `main` maps to exit code 2.

/// A failure to run at all: exit code 2.
#[derive(Debug)]
pub(crate) struct Fatal(pub String);

impl<E: std::fmt::Display> From<E> for Fatal {
    fn from(e: E) -> Fatal {
        Fatal(e.to_string())
    }
}
