"""Building Arrow arrays from Python values without importing pandas.

``pa.array``, ``pa.scalar``, Python scalars passed to compute functions and
``Array.to_numpy`` import pandas: half a second of a log command's start-up.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np
import pyarrow as pa

_INT64 = pa.int64()


def _validity(valid: Sequence[bool]) -> tuple[pa.Buffer | None, int]:
    """A validity bitmap (None when nothing is null) and the null count."""
    mask = np.fromiter(valid, dtype=bool, count=len(valid))
    nulls = len(valid) - int(mask.sum())
    if not nulls:
        return None, 0
    return pa.py_buffer(np.packbits(mask, bitorder="little")), nulls


def numbers(values: Sequence[int | None], type: pa.DataType = _INT64) -> pa.Array:
    """An integer array (``int32`` or ``int64``) from Python ints and None."""
    dtype = np.int32 if type == pa.int32() else np.int64
    low, high = (-(2**31), 2**31 - 1) if dtype is np.int32 else (-(2**63), 2**63 - 1)
    # Anything that is not an integer in range (a damaged field) becomes null.
    fit = [v if isinstance(v, int) and low <= v <= high else None for v in values]
    data = np.fromiter((0 if v is None else v for v in fit), dtype=dtype, count=len(fit))
    bitmap, nulls = _validity([v is not None for v in fit])
    return pa.Array.from_buffers(type, len(values), [bitmap, pa.py_buffer(data)], nulls)


def from_numpy(values: np.ndarray, type: pa.DataType = _INT64) -> pa.Array:
    """An integer array from a numpy array, without nulls."""
    dtype = np.int32 if type == pa.int32() else np.int64
    data = np.ascontiguousarray(values, dtype=dtype)
    return pa.Array.from_buffers(type, len(data), [None, pa.py_buffer(data)])


def to_numpy(array: pa.Array) -> np.ndarray:
    """The values of an integer array without nulls, as numpy (zero-copy)."""
    dtype = np.int32 if array.type == pa.int32() else np.int64
    return np.frombuffer(array.buffers()[1], dtype=dtype)[array.offset : array.offset + len(array)]


def span(start: int, count: int) -> pa.Array:
    """``start, start + 1, ...`` (``count`` int64 values)."""
    return from_numpy(np.arange(start, start + count, dtype=np.int64))


def flags(values: Sequence[bool | None]) -> pa.Array:
    """A boolean array from Python bools and None."""
    bits = np.packbits(np.fromiter((bool(v) for v in values), bool, len(values)), bitorder="little")
    bitmap, nulls = _validity([v is not None for v in values])
    return pa.Array.from_buffers(pa.bool_(), len(values), [bitmap, pa.py_buffer(bits)], nulls)


def mask(values: np.ndarray) -> pa.Array:
    """A boolean array from a numpy bool array, without nulls (``pa.array`` of a numpy
    array imports pandas: a third of a second)."""
    bits = np.packbits(np.asarray(values, dtype=bool), bitorder="little")
    return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(bits)])


def texts(values: Sequence[str | None]) -> pa.Array:
    """A string array from Python strings and None."""
    if None not in values:  # the common case: one join, and for ASCII no encode per string
        strings = cast("Sequence[str]", values)
        joined = "".join(strings)
        data = joined.encode("utf-8")
        if len(data) == len(joined) and len(data) < 2**31:  # ASCII: chars are bytes
            offsets = np.zeros(len(strings) + 1, dtype=np.int32)
            np.cumsum(np.fromiter(map(len, strings), np.int32, len(strings)), out=offsets[1:])
            buffers = [None, pa.py_buffer(offsets), pa.py_buffer(data)]
            return pa.Array.from_buffers(pa.string(), len(values), buffers, 0)
    encoded = [b"" if v is None else v.encode("utf-8") for v in values]
    offsets = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    bitmap, nulls = _validity([v is not None for v in values])
    if offsets[-1] >= 2**31:
        raise ValueError("string data too large for one array")
    buffers = [bitmap, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(b"".join(encoded))]
    return pa.Array.from_buffers(pa.string(), len(values), buffers, nulls)


def repeated(text: str, count: int) -> pa.Array:
    """``count`` copies of one string (built from two buffers, no Python list)."""
    data = text.encode("utf-8")
    if len(data) * count >= 2**31:
        raise ValueError("string data too large for one array")
    offsets = np.arange(count + 1, dtype=np.int32) * len(data)
    buffers = [None, pa.py_buffer(offsets), pa.py_buffer(data * count)]
    return pa.Array.from_buffers(pa.string(), count, buffers)


def text_maps(values: Sequence[Sequence[tuple[str, str | None]] | None]) -> pa.Array:
    """A ``map<string, string>`` array from lists of (key, value) pairs and None."""
    offsets = np.zeros(len(values) + 1, dtype=np.int32)
    np.cumsum([0 if v is None else len(v) for v in values], out=offsets[1:])
    keys = texts([k for v in values if v is not None for k, _ in v])
    items = texts([x for v in values if v is not None for _, x in v])
    null = np.fromiter((v is None for v in values), bool, len(values))
    at = from_numpy(offsets, pa.int32())
    return pa.MapArray.from_arrays(at, keys, items, mask=mask(null) if null.any() else None)
