//! An output a backend answered with that holds a value its element type cannot have — a bool
//! byte of 122 that uninitialised memory left — kept as what it is: a wrong answer, judged a
//! mismatch, not a broken protocol.

use std::fmt;

use crate::tensor::{ImpossibleValue, Tensor};

/// An output holding a value its element type cannot have.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct WrongOutput {
    /// The output's index among the graph's outputs.
    pub(crate) index: usize,
    /// The graph's name for it.
    pub(crate) name: String,
    /// How many outputs the backend answered with.
    pub(crate) answered: usize,
    /// The element and what is stored there.
    pub(crate) value: ImpossibleValue,
}

impl WrongOutput {
    /// Whether `expected` (the data set's outputs) differ from the answer in number, or the
    /// output in element type or shape: a wrong shape, not only wrong values.
    pub(crate) fn wrong_shape(&self, expected: &[Tensor]) -> bool {
        expected.len() != self.answered
            || expected
                .get(self.index)
                .is_none_or(|e| e.data_type() != self.value.data_type || e.shape() != self.value.shape)
    }
}

impl fmt::Display for WrongOutput {
    /// `output 0 "y": element [0, 2] is byte 122, which is no bool`, as a mismatch report
    /// names an output.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "output {} {:?}: {}", self.index, self.name, self.value)
    }
}
