//! What a graph declares about its inputs and outputs: element type and shape, as read from
//! `ValueInfoProto`, so an adapter can build a runtime's session (or check its answer's type)
//! without parsing the model itself.

use crate::proto::ValueInfoProto;
use crate::tensor::DataType;

/// A graph input's or output's declared type.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ValueInfo {
    /// The value's name.
    pub name: String,
    /// The declared element type; `None` when the model declares none (no type, not a tensor,
    /// `elem_type` 0) or a code this crate does not know (see `elem_type`).
    pub data_type: Option<DataType>,
    /// `TypeProto.Tensor.elem_type` as written (0 when not declared).
    pub elem_type: i32,
    /// The declared shape, outermost axis first; `None` when even the rank is not declared.
    pub shape: Option<Vec<Dim>>,
}

/// One declared extent.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Dim {
    /// A fixed extent.
    Fixed(usize),
    /// A symbolic extent (`dim_param`), such as `N`.
    Symbolic(String),
    /// Neither: no extent declared, or a negative `dim_value`.
    Unknown,
}

impl ValueInfo {
    /// Reads a `ValueInfoProto`. Nothing here is refused: a missing or unusual declaration
    /// reads as `None`/[`Dim::Unknown`], since the runner needs no declaration to run a case.
    pub(crate) fn from_proto(proto: &ValueInfoProto) -> ValueInfo {
        let tensor = proto.r#type.as_ref().and_then(|t| t.tensor_type.as_ref());
        let elem_type = tensor.map_or(0, |t| t.elem_type);
        let shape = tensor.and_then(|t| t.shape.as_ref()).map(|shape| {
            shape
                .dim
                .iter()
                .map(|d| match (d.dim_value, &d.dim_param) {
                    (Some(v), _) => usize::try_from(v).map_or(Dim::Unknown, Dim::Fixed),
                    (None, Some(name)) if !name.is_empty() => Dim::Symbolic(name.clone()),
                    (None, _) => Dim::Unknown,
                })
                .collect()
        });
        ValueInfo {
            name: proto.name.clone(),
            data_type: DataType::from_code(elem_type),
            elem_type,
            shape,
        }
    }

    /// The shape when every extent is fixed.
    pub fn fixed_shape(&self) -> Option<Vec<usize>> {
        self.shape
            .as_ref()?
            .iter()
            .map(|d| match d {
                Dim::Fixed(n) => Some(*n),
                Dim::Symbolic(_) | Dim::Unknown => None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::{Dimension, TensorShapeProto, TypeProto, TypeProtoTensor};

    fn dim(value: Option<i64>, param: Option<&str>) -> Dimension {
        Dimension {
            dim_value: value,
            dim_param: param.map(str::to_owned),
        }
    }

    #[test]
    fn reads_element_type_and_fixed_symbolic_and_unknown_extents() {
        let proto = ValueInfoProto {
            name: "x".into(),
            r#type: Some(TypeProto {
                tensor_type: Some(TypeProtoTensor {
                    elem_type: 1,
                    shape: Some(TensorShapeProto {
                        dim: vec![
                            dim(Some(2), None),
                            dim(None, Some("N")),
                            dim(None, None),
                            dim(Some(-1), None),
                        ],
                    }),
                }),
            }),
        };
        let info = ValueInfo::from_proto(&proto);
        assert_eq!(info.data_type, Some(DataType::Float));
        assert_eq!(
            info.shape,
            Some(vec![
                Dim::Fixed(2),
                Dim::Symbolic("N".into()),
                Dim::Unknown,
                Dim::Unknown
            ])
        );
        assert_eq!(info.fixed_shape(), None);
    }

    #[test]
    fn an_undeclared_or_unknown_type_reads_as_none() {
        let bare = ValueInfo::from_proto(&ValueInfoProto {
            name: "y".into(),
            r#type: None,
        });
        assert_eq!((bare.data_type, bare.elem_type, bare.shape), (None, 0, None));
        let unknown = ValueInfo::from_proto(&ValueInfoProto {
            name: "z".into(),
            r#type: Some(TypeProto {
                tensor_type: Some(TypeProtoTensor {
                    elem_type: 99,
                    shape: Some(TensorShapeProto {
                        dim: vec![dim(Some(3), None)],
                    }),
                }),
            }),
        });
        assert_eq!((unknown.data_type, unknown.elem_type), (None, 99));
        assert_eq!(unknown.fixed_shape(), Some(vec![3]));
    }
}
