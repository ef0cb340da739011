"""The CLI's one renderer: a command's result as text or JSON, and errors as the contract says.

The error contract: one line ``error: MESSAGE`` on stderr; with ``--json`` also
``{"error": {"type", "message", "exitCode"}}`` on stdout (a refused restore adds what it
had planned: ``plan``, ``guards``, ``committedVersion``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inspector.connection import redact_text
from inspector.delta.errors import ExitCode, RefusedPlan
from inspector.present.values import json_text


@dataclass(frozen=True, kw_only=True)
class Result:
    """What a command hands to the renderer, each part made only when asked for: its JSON
    value (None: nothing printed), its text lines, its exit code, its warnings about the
    table (``! ...`` lines on stderr in text mode) and its closing notes (stderr after the
    output, in both modes: what the output could not say, such as a filter that found
    nothing, and why)."""

    json: Callable[[], Any] = lambda: None
    lines: Callable[[], Iterable[str]] = tuple
    closing: Callable[[], Iterable[str]] = tuple
    exit_code: ExitCode = ExitCode.OK
    warnings: Sequence[str] = ()


def render(result: object, *, as_json: bool) -> int:
    """Print a command's result (its JSON instead of its text with ``as_json``; nothing
    when that is None) and return its exit code."""
    if not isinstance(result, Result):
        raise TypeError(f"a command returned {type(result).__name__}, not a Result")
    if as_json:
        payload = result.json()
        if payload is not None:
            emit_json(payload)
    else:
        for warning in result.warnings:
            print(f"! {warning}", file=sys.stderr)
        for line in result.lines():
            print(line)
    for note in result.closing():
        print(note, file=sys.stderr)
    return int(result.exit_code)


def render_error(
    *,
    kind: str,
    message: str,
    code: int,
    as_json: bool,
    context: dict[str, Any] | None = None,
    secrets: Mapping[str, str] | None = None,
) -> int:
    """The one place the CLI prints an error; returns the exit code.

    The message is redacted (:func:`inspector.connection.redact_text`): no secret
    storage option, SAS token or URL signature is ever printed. ``context`` is what the
    command knew before failing (a refused restore: its plan).
    """
    message = redact_text(message, secrets)
    print(f"error: {message}", file=sys.stderr)
    if as_json:
        error = {"type": kind, "message": message, "exitCode": code}
        emit_json({**(context or {}), "error": error})
    return code


def plan_context(plan: RefusedPlan) -> dict[str, Any]:
    """A restore plan as ``restore --json`` shows it before (or instead of) a commit."""
    return {"plan": plan.to_json(), "guards": plan.guards_json(), "committedVersion": None}


def emit_json(obj: Any) -> None:
    """Print JSON to stdout; an iterator as a JSON array an element at a time, as the
    same text (a long history is never held whole as records or as text)."""
    if isinstance(obj, Iterator):
        _emit_array(obj)
        return
    _write(obj.text if isinstance(obj, Rendered) else json_text(obj))
    sys.stdout.write("\n")


@dataclass(frozen=True)
class Rendered:
    """JSON text as this renderer wrote it for its place (a value: :func:`json_text`; elements
    of an array: :func:`element_text`, joined by ``,\n  ``), kept by the log index (a whole
    history: :meth:`~inspector.table.history_store.HistoryStore.keep_rendered`; ``detail``:
    :mod:`inspector.log.index.answers`) and written again as it is, so that an unchanged
    answer prints with no work. This renderer's own output, kept: not a second renderer.
    Kept text comes as UTF-8 bytes, written to stdout's bytes as they are.
    """

    text: str | bytes | memoryview


def element_text(item: Any) -> str:
    """One element of a JSON array as :func:`emit_json` writes it (indented for its place)."""
    return json_text(item).replace("\n", "\n  ")


def elements_text(items: Sequence[Any]) -> str:
    """Elements of a JSON array as :func:`emit_json` writes them (:func:`element_text`'s,
    joined by ``,\n  ``), encoded in one call (a page of a history: one per entry cost
    twice as much); each alone when one needs the standard encoder."""
    try:
        return json_text(list(items), strict=True)[4:-2]  # inside the array's "[\n  " and "\n]"
    except TypeError:
        return ",\n  ".join(map(element_text, items))


def _write(text: str | bytes | memoryview) -> None:
    """Write to stdout: text as text; UTF-8 bytes to its bytes when it writes UTF-8 (a
    long kept text is not decoded to be encoded again), else decoded."""
    if isinstance(text, str):
        sys.stdout.write(text)
        return
    out = sys.stdout
    raw = getattr(out, "buffer", None)
    if raw is None or (out.encoding or "").lower().replace("-", "") != "utf8":
        out.write(str(text, "utf-8"))
        return
    out.flush()  # what was written as text comes first
    raw.write(text)


def _emit_array(items: Iterator[Any]) -> None:
    """A JSON array, as ``json_text`` would indent it, written element by element (text
    gathered into writes of about :data:`_CHUNK` characters: stdout may be unbuffered).

    When reading the elements fails part-way (a store that stops answering), the array
    printed so far is closed before the error propagates, so stdout stays JSON documents:
    the elements read, then the error object :func:`render_error` prints.
    """
    first = next(items, _END)
    if first is _END:
        sys.stdout.write("[]\n")
        return
    out = _Gathered()
    out.put("[\n  ")
    out.element(first)
    try:
        for item in items:
            out.put(",\n  ")
            out.element(item)
    finally:
        out.put("\n]\n")
        out.flush()


class _Gathered:
    """Text to stdout in writes of about :data:`_CHUNK` characters; kept bytes as they are."""

    def __init__(self) -> None:
        self._texts: list[str] = []
        self._size = 0

    def put(self, text: str) -> None:
        self._texts.append(text)
        self._size += len(text)
        if self._size >= _CHUNK:
            self.flush()

    def element(self, item: Any) -> None:
        text = item.text if isinstance(item, Rendered) else element_text(item)
        if isinstance(text, str):
            self.put(text)
        else:
            self.flush()  # what was gathered comes first
            _write(text)

    def flush(self) -> None:
        if self._texts:
            sys.stdout.write("".join(self._texts))
            self._texts, self._size = [], 0


_CHUNK = 1 << 16
_END = object()
