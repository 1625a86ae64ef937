//! What a backend's error is ([`BackendError`]) and what it says about the data set
//! ([`ErrorKind`]): the vocabulary that the error types of mod.rs and an exec worker's
//! errors (worker_error.rs) share, in a file of its own so that neither uses the other.

/// Any error a backend reports; its message ends up in the case's outcome.
///
/// An error counts as the backend's refusal of the model or inputs — what a data set that
/// must be refused expects — unless it says otherwise: a
/// [`BackendFailure`](super::BackendFailure) is a failure, never a refusal, and a
/// [`BackendUnsupported`](super::BackendUnsupported) says the backend does not support what
/// the data set asks. [`error_kind`](super::error_kind) tells which
/// (docs/semantics.md#what-counts-as-a-refusal).
pub type BackendError = Box<dyn std::error::Error + Send + Sync>;

/// What a backend's error says about the data set, and so how it is judged
/// (docs/semantics.md#what-counts-as-a-refusal). An exec worker gives it as the `kind` of its
/// `error` reply (docs/backend-protocol.md); a Rust backend by the type of its error
/// ([`error_kind`](super::error_kind)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The backend refuses the model or its inputs: the right answer for a data set that must
    /// be refused. Any error that says nothing else.
    Refused,
    /// The backend does not support what the data set asks (an element type, a mode): the
    /// data set is unsupported, neither passed nor failed.
    Unsupported,
    /// The backend failed — an internal error, a lost device, a crashed helper — which is
    /// never a refusal: the data set is errored.
    Failed,
}

impl ErrorKind {
    /// The name the protocol's `kind` field uses: `refused`, `unsupported` or `failed`.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Refused => "refused",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Failed => "failed",
        }
    }

    /// The kind a protocol `kind` value names; `None` for any other string.
    ///
    /// ```
    /// use pad_conformance::testing::ErrorKind;
    /// assert_eq!(ErrorKind::from_name("unsupported"), Some(ErrorKind::Unsupported));
    /// assert_eq!(ErrorKind::from_name("Failed"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<ErrorKind> {
        [ErrorKind::Refused, ErrorKind::Unsupported, ErrorKind::Failed]
            .into_iter()
            .find(|kind| kind.name() == name)
    }
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
