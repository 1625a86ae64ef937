"""The declared element types of a model's graph outputs, read from the protobuf wire format
of the model file itself, so that the raw path needs no onnx (nor protobuf) installed.

ModelProto.graph (7) -> GraphProto.output (12) -> ValueInfoProto.type (2) ->
TypeProto.tensor_type (1) -> TypeProto.Tensor.elem_type (1).
"""

from .tensors import ELEM_TYPES

_GRAPH, _OUTPUT, _TYPE, _TENSOR_TYPE, _ELEM_TYPE = 7, 12, 2, 1, 1


def output_types(model_path):
    """The element type name of each graph output of the model file, in order; None for an
    output whose type is not a known tensor element type."""
    with open(model_path, "rb") as file:
        data = memoryview(file.read())
    try:
        graph = _last(data, _GRAPH) or memoryview(b"")
        types = []
        for output in _fields(graph, _OUTPUT):
            type_proto = _last(output, _TYPE)
            tensor_type = _last(type_proto, _TENSOR_TYPE) if type_proto is not None else None
            elem_type = _last(tensor_type, _ELEM_TYPE) if tensor_type is not None else None
            types.append(ELEM_TYPES.get(elem_type))
        return types
    except ValueError as error:
        raise ValueError(f"{model_path}: not a readable ONNX model: {error}") from None


def _fields(data, number):
    """The values of field `number` in a message: memoryviews (length-delimited) or ints."""
    return [value for field, value in _parse(data) if field == number]


def _last(data, number):
    values = _fields(data, number)
    return values[-1] if values else None


def _parse(data):
    offset = 0
    while offset < len(data):
        key, offset = _varint(data, offset)
        field, wire = key >> 3, key & 7
        if wire == 0:
            value, offset = _varint(data, offset)
        elif wire == 1:
            value, offset = None, offset + 8
        elif wire == 5:
            value, offset = None, offset + 4
        elif wire == 2:
            length, offset = _varint(data, offset)
            value, offset = data[offset:offset + length], offset + length
        else:
            raise ValueError(f"wire type {wire} of field {field}")
        if offset > len(data):
            raise ValueError(f"field {field} runs past the end of its message")
        yield field, value


def _varint(data, offset):
    result = shift = 0
    while True:
        if offset >= len(data) or shift > 63:
            raise ValueError("a truncated varint")
        byte = data[offset]
        offset += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return result, offset
