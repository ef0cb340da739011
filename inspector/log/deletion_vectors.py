"""Deletion vectors: which rows of a data file are deleted, decoded from Delta's format.

A deletion vector (DV) is a ``RoaringBitmapArray`` of deleted row indexes. Its
serialization is a 4-byte little-endian magic number (1681511377) followed by the
"portable" 64-bit Roaring format (a 64-bit bucket count, then per bucket a 32-bit
key and a portable 32-bit Roaring bitmap), which ``pyroaring.BitMap64`` reads.
Inline DVs (storage type ``i``) hold it Z85-encoded in the log; on-disk DVs
(``u`` and ``p``) live in a file that starts with a version byte and holds, at the
descriptor's ``offset``, a 4-byte big-endian size, the data and a 4-byte CRC-32.
"""

from __future__ import annotations

import struct
import zlib

from pyroaring import BitMap64

from inspector.delta.actions import DeletionVector, z85_decode
from inspector.delta.errors import MissingDataFile
from inspector.delta.paths import data_file_path
from inspector.storage import LocalStorage, Storage

MAGIC_NUMBER = 1681511377


def deleted_rows(dv: DeletionVector, table_root: str, storage: Storage | None = None) -> BitMap64:
    """The row indexes a deletion vector marks as deleted (as many as ``dv.cardinality``).

    ``storage`` is the table's, a local folder at ``table_root`` when None.

    Raises:
        MissingDataFile: If the DV file is absent or its contents do not match the log
            (bad magic number, CRC or cardinality): reading on would return wrong rows.
    """
    where = "inline" if dv.storage_type == "i" else dv_file_path(dv, table_root)
    if dv.storage_type == "i":
        data = _inline_bytes(dv)
    else:
        data = _stored_bytes(dv, where, storage or LocalStorage(table_root))
    bitmap = _deserialize(data, where)
    if len(bitmap) != dv.cardinality:
        raise _damaged(
            where, f"it marks {len(bitmap)} rows deleted but the log says {dv.cardinality}"
        )
    return bitmap


def dv_file_path(dv: DeletionVector, table_root: str) -> str:
    """Where an on-disk deletion vector's file is (``u`` or ``p`` storage): a path or URI."""
    return data_file_path(table_root, dv.relative_or_absolute_path() or "")


def _inline_bytes(dv: DeletionVector) -> bytes:
    # Z85 needs whole 4-byte groups, so the writer padded the data; sizeInBytes is the real length.
    try:
        return z85_decode(dv.path_or_inline_dv)[: dv.size_in_bytes]
    except (ValueError, KeyError, OverflowError):
        raise _damaged("inline", "its Z85 text is malformed") from None


def _stored_bytes(dv: DeletionVector, path: str, storage: Storage) -> bytes:
    offset = dv.offset or 1  # the file's first byte is its format version
    try:
        # One ranged read of what the log announces: size header, data, CRC-32.
        block = storage.read_range(path, offset, offset + 4 + max(dv.size_in_bytes, 0) + 4)
    except FileNotFoundError:
        raise MissingDataFile(
            f"The deletion vector file {path} is missing, so deleted rows cannot be told apart.",
            "The version's files were vacuumed or not copied; pick a later version or "
            "restore the file from a backup.",
        ) from None
    header = block[:4]
    size = struct.unpack(">i", header)[0] if len(header) == 4 else -1
    data, crc = block[4 : 4 + max(size, 0)], block[4 + max(size, 0) : 8 + max(size, 0)]
    if size != dv.size_in_bytes or len(data) != size or len(crc) != 4:
        raise _damaged(
            path,
            f"the log says {dv.size_in_bytes} bytes at offset {offset}, "
            f"the file holds {max(len(data), 0)}",
        )
    if zlib.crc32(data) != struct.unpack(">I", crc)[0]:
        raise _damaged(path, "its CRC-32 checksum does not match")
    return data


def _deserialize(data: bytes, where: str) -> BitMap64:
    if len(data) < 12 or struct.unpack("<i", data[:4])[0] != MAGIC_NUMBER:
        raise _damaged(where, "it does not start with the RoaringBitmapArray magic number")
    try:
        return BitMap64.deserialize(data[4:])
    except (ValueError, MemoryError) as exc:
        raise _damaged(where, f"its bitmap cannot be decoded ({exc})") from None


def _damaged(where: str, why: str) -> MissingDataFile:
    place = (
        "An inline deletion vector" if where == "inline" else f"The deletion vector file {where}"
    )
    return MissingDataFile(
        f"{place} is damaged: {why}.",
        "Rows cannot be read correctly; restore the file from a backup or pick another version.",
    )
