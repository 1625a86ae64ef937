"""Tensors between numpy arrays and the files the runner exchanges: raw files (row-major,
little-endian, no header; docs/backend-protocol.md) and, for a runner that offers no raw
tensors, serialized TensorProto files (read and written with onnx, imported only then).

Arrays use ml_dtypes for the types numpy lacks (bfloat16, float8, float4, int4/uint4,
int2/uint2; one byte per element, as the raw layout stores them) and object arrays of
bytes for strings.
"""

import math
import os
import struct

import ml_dtypes
import numpy as np

# ONNX's element type names (lower case) -> numpy dtypes; "string" is an object array of bytes.
DTYPES = {
    "float32": np.dtype(np.float32),
    "float64": np.dtype(np.float64),
    "float16": np.dtype(np.float16),
    "bfloat16": np.dtype(ml_dtypes.bfloat16),
    "int8": np.dtype(np.int8),
    "int16": np.dtype(np.int16),
    "int32": np.dtype(np.int32),
    "int64": np.dtype(np.int64),
    "uint8": np.dtype(np.uint8),
    "uint16": np.dtype(np.uint16),
    "uint32": np.dtype(np.uint32),
    "uint64": np.dtype(np.uint64),
    "bool": np.dtype(np.bool_),
    "complex64": np.dtype(np.complex64),
    "complex128": np.dtype(np.complex128),
    "float8e4m3fn": np.dtype(ml_dtypes.float8_e4m3fn),
    "float8e4m3fnuz": np.dtype(ml_dtypes.float8_e4m3fnuz),
    "float8e5m2": np.dtype(ml_dtypes.float8_e5m2),
    "float8e5m2fnuz": np.dtype(ml_dtypes.float8_e5m2fnuz),
    "float8e8m0": np.dtype(ml_dtypes.float8_e8m0fnu),
    "int4": np.dtype(ml_dtypes.int4),
    "uint4": np.dtype(ml_dtypes.uint4),
    "int2": np.dtype(ml_dtypes.int2),
    "uint2": np.dtype(ml_dtypes.uint2),
    "float4e2m1": np.dtype(ml_dtypes.float4_e2m1fn),
    "string": np.dtype(object),
}

# ONNX's TensorProto.DataType numbers -> the names above (the model's declared types).
ELEM_TYPES = {
    1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64",
    8: "string", 9: "bool", 10: "float16", 11: "float64", 12: "uint32", 13: "uint64",
    14: "complex64", 15: "complex128", 16: "bfloat16", 17: "float8e4m3fn", 18: "float8e4m3fnuz",
    19: "float8e5m2", 20: "float8e5m2fnuz", 21: "uint4", 22: "int4", 23: "float4e2m1",
    24: "float8e8m0", 25: "uint2", 26: "int2",
}


# The signed types narrower than a byte, stored one per byte as an int8.
SIGNED_SUB_BYTE = ("int4", "int2")


def numpy_dtype(name, what="tensor"):
    """The numpy dtype of an element type name; ValueError naming it when unknown."""
    if not isinstance(name, str) or name not in DTYPES:
        raise ValueError(f"{what}: unknown element type {name!r}")
    return DTYPES[name]


def _shape(shape, what):
    if not isinstance(shape, list) or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0
                                              for d in shape):
        raise ValueError(f"{what}: shape {shape!r} is not a list of non-negative integers")
    return tuple(shape)


def read_raw(path, dtype, shape):
    """The raw file `path` as an array of element type `dtype` (a name) and `shape`. Its size
    is checked against dtype x shape before anything is read."""
    what = f"raw tensor {path}"
    target = numpy_dtype(dtype, what)
    shape = _shape(shape, what)
    count = math.prod(shape)
    size = os.stat(path).st_size
    if dtype == "string":
        return _read_strings(path, count, size).reshape(shape)
    expected = count * target.itemsize
    if size != expected:
        raise ValueError(f"{what}: {size} bytes, but {dtype} {list(shape)} takes {expected}")
    with open(path, "rb") as file:
        data = file.read(expected)
    if target.kind in "biufc" and target.itemsize > 1:
        return np.frombuffer(data, dtype=target.newbyteorder("<")).astype(target).reshape(shape)
    return np.frombuffer(data, dtype=target).copy().reshape(shape)


def _read_strings(path, count, size):
    what = f"raw tensor {path}"
    # Each element takes at least its 4-byte length: a count the file cannot hold is refused
    # before anything is allocated for it.
    if 4 * count > size:
        raise ValueError(f"{what}: {size} bytes cannot hold {count} strings")
    with open(path, "rb") as file:
        data = file.read()
    items, offset = [], 0
    for _ in range(count):
        if offset + 4 > len(data):
            raise ValueError(f"{what}: ends inside the length of string {len(items)}")
        (length,) = struct.unpack_from("<I", data, offset)
        offset += 4
        if offset + length > len(data):
            raise ValueError(f"{what}: string {len(items)} of {length} bytes runs past the end")
        items.append(data[offset:offset + length])
        offset += length
    if offset != len(data):
        raise ValueError(f"{what}: {len(data) - offset} bytes after the last string")
    array = np.empty(count, dtype=object)
    array[:] = items
    return array


def write_raw(array, dtype, path):
    """Writes `array`, already of element type `dtype`, as a raw file; returns the reply's
    output descriptor {"path", "dtype", "shape"}."""
    if dtype == "string":
        data = b"".join(struct.pack("<I", len(item)) + item for item in array.ravel().tolist())
    elif dtype in SIGNED_SUB_BYTE:
        # ml_dtypes keeps only the low bits in each byte (int4 -8 as 0x08); the raw layout
        # holds a signed sub-byte element as its value in an int8 (0xf8).
        data = np.ascontiguousarray(array, dtype=numpy_dtype(dtype)).astype(np.int8).tobytes()
    else:
        target = numpy_dtype(dtype)
        if target.kind in "biufc" and target.itemsize > 1:
            target = target.newbyteorder("<")
        data = np.ascontiguousarray(array, dtype=target).tobytes()
    with open(path, "wb") as file:
        file.write(data)
    return {"path": path, "dtype": dtype, "shape": list(array.shape)}


def as_declared(array, dtype, what="output"):
    """`array` as element type `dtype` (a name). A backend may return another dtype than the
    graph declares (str objects or numbers for string, a wider float for float8): the values
    are converted when that loses nothing, else ValueError says why."""
    array = np.asarray(array)
    if dtype == "string":
        items = array.ravel().tolist()
        others = sorted({type(v).__name__ for v in items if not isinstance(v, (str, bytes))})
        if others:
            # Written as their text so that the comparison shows the values (e.g. 0 -> "0").
            _log(f"{what}: declared string, but holds {', '.join(others)} values; written as their text")
        encoded = np.empty(len(items), dtype=object)
        encoded[:] = [v if isinstance(v, bytes) else str(v).encode("utf-8") for v in items]
        return encoded.reshape(array.shape)
    target = numpy_dtype(dtype, what)
    if array.dtype == target:
        return array
    try:
        converted = array.astype(target)
        exact = np.array_equal(converted.astype(array.dtype), array, equal_nan=array.dtype.kind in "fc")
    except (TypeError, ValueError) as error:
        raise ValueError(f"{what}: the backend returned {array.dtype}, which cannot be written as "
                         f"{dtype}: {error}") from error
    if not exact:
        raise ValueError(f"{what}: the backend returned {array.dtype} values that {dtype} cannot represent exactly")
    return converted


def _log(message):
    import sys

    print(message, file=sys.stderr, flush=True)


def read_tensorproto(path):
    """A serialized TensorProto file as an array (with onnx, imported here); strings as
    bytes, as a raw file gives them (onnx decodes them as str)."""
    import onnx
    from onnx import numpy_helper

    tensor = onnx.load_tensor(path)
    if tensor.data_type == 8:  # string
        array = np.empty(len(tensor.string_data), dtype=object)
        array[:] = list(tensor.string_data)
        return array.reshape(tuple(tensor.dims))
    return numpy_helper.to_array(tensor)


def write_tensorproto(array, dtype, path):
    """Writes `array`, already of element type `dtype`, as a serialized TensorProto; returns
    the path (the reply's form for a TensorProto output)."""
    import onnx
    from onnx import numpy_helper

    tensor = numpy_helper.from_array(np.asarray(array))
    written = ELEM_TYPES.get(tensor.data_type)
    if written != dtype:
        raise ValueError(f"{path}: numpy_helper wrote {written or tensor.data_type}, not {dtype}")
    onnx.save_tensor(tensor, path)
    return path
