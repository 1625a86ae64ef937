//! An element whose stored value its element type cannot have — a bool byte of 122, an int4
//! byte of 9 — in a file otherwise well formed. Reading a backend's outputs tells it apart
//! from a malformed file: the file says what the backend answered, and the answer is wrong.

use std::fmt;

use super::DataType;

/// How the impossible element was stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stored {
    /// As a byte of its own: a raw file's element, one per byte.
    Byte(u8),
    /// As a value of a TensorProto field (`raw_data`, `int32_data`).
    Field {
        /// The field.
        field: &'static str,
        /// The value there.
        value: i128,
    },
}

/// An element of a tensor file whose stored value its element type cannot have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImpossibleValue {
    /// The element type the file declares.
    pub data_type: DataType,
    /// The shape it declares.
    pub shape: Vec<usize>,
    /// The element's index, row-major.
    pub index: usize,
    /// What is stored there.
    pub stored: Stored,
}

impl ImpossibleValue {
    /// The element's index in each dimension, `[0, 2]`.
    pub fn position(&self) -> Vec<usize> {
        let mut rest = self.index;
        let mut position = vec![0; self.shape.len()];
        for (axis, &extent) in self.shape.iter().enumerate().rev() {
            if extent > 0 {
                position[axis] = rest % extent;
                rest /= extent;
            }
        }
        position
    }
}

impl fmt::Display for ImpossibleValue {
    /// `element [0, 2] is byte 122, which is no bool`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "element {:?} is ", self.position())?;
        match self.stored {
            Stored::Byte(byte) => write!(f, "byte {byte}")?,
            Stored::Field { field, value } => write!(f, "{value} in {field}")?,
        }
        write!(f, ", which is no {}", self.data_type)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_impossible_value_names_its_element_by_position_and_what_was_stored() {
        let value = ImpossibleValue {
            data_type: DataType::Bool,
            shape: vec![2, 3],
            index: 5,
            stored: Stored::Byte(122),
        };
        assert_eq!(value.to_string(), "element [1, 2] is byte 122, which is no bool");
        let scalar = ImpossibleValue {
            data_type: DataType::Bool,
            shape: vec![],
            index: 0,
            stored: Stored::Field {
                field: "int32_data",
                value: 2,
            },
        };
        assert_eq!(scalar.to_string(), "element [] is 2 in int32_data, which is no bool");
    }
}
