//! What a backend's error is ([`BackendError`]): one type that carries, typed, what the
//! error says about the data set — its [`ErrorKind`], the rules a refusal names, how a
//! failure failed, the backend's code — decided where the error is made, so that the judge
//! reads fields and never asks an error its type.

use std::fmt;

use super::failure::Failure;
use super::wrong_output::WrongOutput;
use crate::operators::Rule;
use crate::tensor::ConversionError;

/// Any error a backend reports; its message ends up in the case's outcome.
///
/// `?` makes one of any error (an `io::Error`, a `String`, a `Box<dyn Error>`, the runtime's
/// own): a refusal of the model or inputs — what a data set that must be refused expects —
/// unless it says otherwise. A [`BackendFailure`](super::BackendFailure) is a failure, never
/// a refusal; a [`BackendUnsupported`](super::BackendUnsupported) says the backend does not
/// support what the data set asks; a [`Refusal`](super::Refusal) names its rule, a
/// [`CodedError`](super::CodedError) the backend's code; a [`ConversionError`] of a tensor
/// conversion is the gate's glue, never the runtime's word on the model
/// (docs/semantics.md#what-counts-as-a-refusal).
///
/// ```
/// use pad_conformance::{BackendError, BackendFailure, ErrorKind};
/// fn open(path: &str) -> Result<Vec<u8>, BackendError> {
///     Ok(std::fs::read(path)?)
/// }
/// let refusal = open("/no/such/model.onnx").unwrap_err();
/// assert_eq!(refusal.kind(), ErrorKind::Refused);
/// let failure: BackendError = BackendFailure("the GPU went away".into()).into();
/// assert_eq!((failure.kind(), failure.to_string()), (ErrorKind::Failed, "the GPU went away".into()));
/// ```
///
/// It is no `std::error::Error` itself (as `anyhow::Error` is none): so that `?` takes any
/// error into it.
#[derive(Debug)]
pub struct BackendError {
    says: Says,
    code: Option<String>,
    message: String,
}

/// What a backend's error says about the data set, with what each kind carries.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Says {
    /// A refusal of the model or inputs, naming these rules (the reference names every rule
    /// the node breaks, the first the one its message states; others one at most).
    Refused {
        /// The rules.
        rules: Vec<Rule>,
    },
    /// The backend does not support what the data set asks.
    Unsupported,
    /// The backend failed, this way.
    Failed(Failure),
    /// The backend answered with outputs, one of which holds a value its element type cannot
    /// have: a wrong answer, not a broken protocol.
    WrongOutput(Box<WrongOutput>),
}

impl BackendError {
    /// An error saying `says`, worded `message`.
    pub(crate) fn new(says: Says, message: impl Into<String>) -> BackendError {
        BackendError {
            says,
            code: None,
            message: message.into(),
        }
    }

    /// `self`, coded `code` by the backend.
    pub(crate) fn coded(mut self, code: Option<String>) -> BackendError {
        self.code = code;
        self
    }

    /// What it says about the data set.
    pub(crate) fn says(&self) -> &Says {
        &self.says
    }

    /// What it says about the data set, and so how the data set is judged: an output of an
    /// impossible value is the backend's failure to answer with a tensor.
    pub fn kind(&self) -> ErrorKind {
        match self.says {
            Says::Refused { .. } => ErrorKind::Refused,
            Says::Unsupported => ErrorKind::Unsupported,
            Says::Failed(_) | Says::WrongOutput(_) => ErrorKind::Failed,
        }
    }

    /// Every rule a refusal names; none for any other error.
    pub(crate) fn rules(&self) -> &[Rule] {
        match &self.says {
            Says::Refused { rules } => rules,
            _ => &[],
        }
    }

    /// The rule a refusal names ([`Refusal`](super::Refusal)), the first when it names
    /// several; `None` when it names none, or is no refusal.
    pub fn rule(&self) -> Option<Rule> {
        self.rules().first().copied()
    }

    /// The backend's own code for the error ([`CodedError`](super::CodedError)), when it
    /// gave one.
    pub fn code(&self) -> Option<&str> {
        self.code.as_deref()
    }
}

impl fmt::Display for BackendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Any other error is a refusal, but a tensor conversion's ([`ConversionError`]).
impl<E: Into<Box<dyn std::error::Error + Send + Sync>>> From<E> for BackendError {
    fn from(error: E) -> BackendError {
        let error = error.into();
        // The one question of an error's type: a gate's `?` on `Tensor::to_vec` arrives here
        // as any error, since without specialisation a std error cannot have a `From` of its
        // own beside this one.
        let says = match error.downcast_ref::<ConversionError>() {
            Some(conversion) if conversion.is_unsupported() => Says::Unsupported,
            Some(_) => Says::Failed(Failure::Reported),
            None => Says::Refused { rules: Vec::new() },
        };
        BackendError::new(says, error.to_string())
    }
}

/// What a backend's error says about the data set, and so how it is judged
/// (docs/semantics.md#what-counts-as-a-refusal). An exec worker gives it as the `kind` of its
/// `error` reply (docs/backend-protocol.md); a Rust backend by the type of the error it
/// returns ([`BackendError::kind`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
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
    /// use pad_conformance::ErrorKind;
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
