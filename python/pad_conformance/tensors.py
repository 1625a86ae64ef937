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
    """Writes `array` of element type `dtype` (as `as_written` gives them) as a raw file;
    returns the reply's output descriptor {"path", "dtype", "shape"}."""
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


def element_type(dtype):
    """The element type name (a key of DTYPES) of a numpy dtype, in either byte order; None when
    it is none of ONNX's (float128, datetime64, a structured dtype, …). str, bytes and object
    arrays are "string" (an object array's items are checked by `as_written`)."""
    dtype = np.dtype(dtype)
    if dtype.kind in "USO":
        return "string"
    if dtype.byteorder not in "=|":
        dtype = dtype.newbyteorder("=")
    for name, known in DTYPES.items():
        if name != "string" and dtype == known:
            return name
    return None


def as_written(value, what="output"):
    """(array, element type name) for an answer `value`, in the element type it came in: the
    runner judges that type against the expected one, so nothing here casts to the type the
    graph declares. `value` must carry a dtype (a numpy array or scalar, or an object that
    numpy converts keeping it); str and bytes become a string tensor of UTF-8 bytes. ValueError
    says what cannot be written: no dtype, a dtype that is no ONNX element type, an object array
    holding other things than str or bytes."""
    if not hasattr(value, "dtype") or not hasattr(value, "shape"):
        raise ValueError(f"{what} is a {type(value).__name__}, not an array (an array's dtype is the element type "
                         "the answer is judged in)")
    try:
        array = np.asarray(value)
    except Exception as error:  # an array-like whose conversion breaks is the package's to report
        raise ValueError(f"{what}: numpy cannot read the {type(value).__name__} returned: {error}") from error
    name = element_type(array.dtype)
    if name is None:
        raise ValueError(f"{what}: dtype {array.dtype} is no ONNX element type")
    if name != "string":
        return array, name
    items = array.ravel().tolist()
    others = sorted({type(v).__name__ for v in items if not isinstance(v, (str, bytes))})
    if others:
        raise ValueError(f"{what}: an {array.dtype} array holding {', '.join(others)} values; a string tensor "
                         "holds str or bytes")
    encoded = np.empty(len(items), dtype=object)
    encoded[:] = [v if isinstance(v, bytes) else v.encode("utf-8") for v in items]
    return encoded.reshape(array.shape), name


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
    """Writes `array` of element type `dtype` (as `as_written` gives them) as a serialized
    TensorProto; returns the path (the reply's form for a TensorProto output)."""
    import onnx
    from onnx import numpy_helper

    tensor = numpy_helper.from_array(np.asarray(array))
    written = ELEM_TYPES.get(tensor.data_type)
    if written != dtype:
        raise ValueError(f"{path}: numpy_helper wrote {written or tensor.data_type}, not {dtype}")
    onnx.save_tensor(tensor, path)
    return path
