"""The log's text: strict UTF-8 JSON, the one decoding rule every reader of the log uses.

``json.loads`` accepts encoded surrogates and Arrow's readers do not check UTF-8: damage is
a ``ValueError`` naming it, raised where the file is read, not far from it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:  # pyarrow is imported where an Arrow array is checked: start-up time
    import pyarrow as pa


def loads(data: bytes | str) -> Any:
    """Parse one JSON document of the log; a ValueError if it is not JSON, or not valid
    UTF-8 text (an invalid byte, an encoded or escaped lone surrogate), says which."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:  # a json.JSONDecodeError: callers see truncation
        if "UTF-8" in str(exc) or "surrogate" in str(exc):
            raise ValueError(f"not valid UTF-8 text ({_where(data)})") from None
        raise


def _where(data: bytes | str) -> str:
    """Which byte breaks UTF-8, or that the text escapes a lone surrogate."""
    try:
        data.encode("utf-8") if isinstance(data, str) else data.decode("utf-8")
    except (UnicodeDecodeError, UnicodeEncodeError) as exc:
        return f"byte {exc.start + 1} cannot be decoded"
    return "it escapes a lone UTF-16 surrogate"


def check_utf8(data: pa.Array | pa.ChunkedArray | pa.RecordBatch | pa.Table) -> None:
    """Raise ValueError unless every string read from a log file by Arrow is valid UTF-8."""
    import pyarrow as pa

    try:
        data.validate(full=True)
    except pa.ArrowInvalid as exc:
        raise ValueError(f"it holds text that is not valid UTF-8 ({exc})") from None
