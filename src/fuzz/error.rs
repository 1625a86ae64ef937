//! Why a run cannot go on.

use super::generate::Shape;

/// A run that cannot go on: options out of range, the scratch directory, or the generator
/// producing a model the reference cannot even load (a bug of this crate, reported rather
/// than hidden).
#[derive(Debug, thiserror::Error)]
pub enum FuzzError {
    /// `shape.max_elements` is 0 or over [`Shape::MAX_ELEMENTS`].
    #[error("max_elements {0} is not from 1 to {max}", max = Shape::MAX_ELEMENTS)]
    MaxElements(usize),
    /// The scratch directory for model files.
    #[error("making a scratch directory: {0}")]
    Scratch(#[source] std::io::Error),
    /// The reference panicked: a bug of this crate, never hidden as a finding.
    #[error("the reference panicked on {case}: {message}")]
    ReferencePanicked {
        /// The case.
        case: String,
        /// The panic's message.
        message: String,
    },
    /// A generated model that does not load.
    #[error("the generator made a model that does not load ({case}): {source}")]
    Generator {
        /// The case.
        case: String,
        /// Why.
        #[source]
        source: Box<crate::model::constant_inputs::RewriteError>,
    },
}
