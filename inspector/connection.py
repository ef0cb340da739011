"""Connection settings as typed mappings, and the one redaction of their secrets.

Storage options and Spark conf are parsed once, at the edge, by :func:`parse_pairs`, and
combined by :meth:`Pairs.merged`; below the edge nothing splits a string. Imports only
:mod:`inspector.delta`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import ClassVar, TypeVar

from inspector.delta.errors import InvalidInput

# The words that make an option name secret: written once, used for option keys and for
# ``NAME=value`` pairs inside text.
_SECRET_WORDS = "SECRET|PASSWORD|TOKEN|KEY|SAS|SIG|CONNECTION_STRING|CREDENTIAL"
_SECRET = re.compile(_SECRET_WORDS, re.I)
_URL_QUERY = re.compile(r"(https?://[^\s?\"'<>]+)\?[^\s\"'<>]*")
# ``NAME=value`` where NAME says secret (AccountKey=, sig=, X-Amz-Signature=,
# AWS_SECRET_ACCESS_KEY=, ...): the value up to a separator is masked.
_SECRET_ASSIGNMENT = re.compile(
    rf"(\b[\w-]*(?:{_SECRET_WORDS})[\w-]*\s*=\s*)"
    r"(?!\*\*\*|value\b)([^\s;&,'\"<>]+)",
    re.I,
)
REDACTED = "***"

P = TypeVar("P", bound="Pairs")


def is_secret(key: str) -> bool:
    """True for an option whose value must never be shown (keys, tokens, secrets)."""
    return bool(_SECRET.search(key))


def redact_text(text: str, options: Mapping[str, str] | None = None) -> str:
    """Text safe to show: the one redaction for the CLI, the app and the audit log.

    Masks the values of secret ``options`` (wherever they appear), URL query strings
    (SAS tokens, presigned ``X-Amz-Signature``), and any ``NAME=value`` whose name says
    secret (``AccountKey=``, ``sig=``, ``AWS_SECRET_ACCESS_KEY=``).
    """
    out = text
    for key, value in sorted((options or {}).items(), key=lambda kv: -len(kv[1])):
        if is_secret(key) and len(value) >= 4:
            out = out.replace(value, REDACTED)
    out = _URL_QUERY.sub(r"\1?" + REDACTED, out)
    return _SECRET_ASSIGNMENT.sub(lambda m: m.group(1) + REDACTED, out)


class Pairs(Mapping[str, str]):
    """A frozen mapping of ``KEY=VALUE`` settings; subclasses say how pairs are separated
    in one text and how errors name them."""

    __slots__ = ("_items",)
    separator: ClassVar[str] = "\n"
    noun: ClassVar[str] = "pair"
    form: ClassVar[str] = "KEY=VALUE"
    example: ClassVar[str] = "KEY=VALUE"

    _items: dict[str, str]

    def __init__(self, items: Mapping[str, str] | Iterable[tuple[str, str]] = ()) -> None:
        object.__setattr__(self, "_items", dict(items))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen")

    def __getitem__(self, key: str) -> str:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash((type(self), frozenset(self._items.items())))

    def __repr__(self) -> str:
        shown = {k: (REDACTED if is_secret(k) else v) for k, v in self._items.items()}
        return f"{type(self).__name__}({shown!r})"

    def __reduce__(self) -> tuple[type[Pairs], tuple[dict[str, str]]]:
        # pickle and copy rebuild through __init__ (attribute assignment is refused)
        return (type(self), (dict(self._items),))

    def merged(self: P, *later: Mapping[str, str]) -> P:
        """The one merge rule: each later mapping overrides this one, key by key."""
        return type(self)({k: v for mapping in (self._items, *later) for k, v in mapping.items()})


class StorageOptions(Pairs):
    """Object store options with delta-rs's names; one per line in a text. Secret values
    never appear in a repr."""

    __slots__ = ()
    noun = "storage option"
    example = "AWS_REGION=eu-west-1"


class SparkConf(Pairs):
    """Extra Spark conf; pairs separated by ``;`` in a text."""

    __slots__ = ()
    separator = ";"
    noun = "Spark conf entry"
    form = "key=value"
    example = "spark.some.key=value"


def parse_pairs(kind: type[P], source: str | Iterable[str], *, origin: str = "") -> P:
    """The one parser of connection settings: a text of pairs (separated by
    ``kind.separator``), or one pair per item (a repeatable CLI flag).

    Keys and values are stripped; blank entries are skipped; a later pair overrides an
    earlier one. ``origin`` names where the pairs came from, for an error.

    Raises:
        InvalidInput: If an entry is not ``KEY=VALUE`` (a secret is not shown).
    """
    entries = source.split(kind.separator) if isinstance(source, str) else source
    items: dict[str, str] = {}
    for entry in entries:
        if not entry.strip():
            continue
        key, sep, value = entry.partition("=")
        if not sep or not key.strip():
            shown = "a secret" if is_secret(entry) else f"'{redact_text(entry.strip())}'"
            where = f" in {origin}" if origin else ""
            separated = (
                "" if kind.separator == "\n" else f"; separate entries with '{kind.separator}'"
            )
            raise InvalidInput(
                f"The {kind.noun} {shown}{where} is not {kind.form}.",
                f"Write it like {kind.example}{separated}.",
            )
        items[key.strip()] = value.strip()
    return kind(items)


def secrets_in(texts: Iterable[str]) -> StorageOptions:
    """Every ``KEY=VALUE`` in some texts, never raising: for masking before parsing.

    An entry without ``=`` may be a secret typed whole; it is kept as a secret value.
    """
    items: dict[str, str] = {}
    for text in texts:
        for entry in text.splitlines():
            key, sep, value = entry.partition("=")
            if sep:
                items[key.strip()] = value.strip()
            elif entry.strip():
                items["SECRET"] = entry.strip()
    return StorageOptions(items)
