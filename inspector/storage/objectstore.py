"""A table in an object store (S3, Azure Blob / ADLS Gen2, GCS), through ``obstore``.

``obstore`` is the Python binding of Rust's ``object_store``: listings with a
start-after offset, ranged reads, concurrent gets, and puts that create an object
only if it is absent (``If-None-Match: *`` on S3 and Azure, a generation
precondition on GCS). Writing a commit needs that last guarantee; a store that
cannot give it is refused for writing (see :meth:`ObjectStorage.put_if_absent`).
"""

from __future__ import annotations

import builtins
import errno
import re
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from datetime import timedelta
from enum import StrEnum
from operator import attrgetter
from typing import Any, cast

import obstore
from obstore.exceptions import (
    AlreadyExistsError,
    BaseError,
    NotFoundError,
    NotSupportedError,
    PreconditionError,
    UnknownConfigurationKeyError,
)
from obstore.store import from_url

from inspector.connection import redact_text
from inspector.delta.errors import ConcurrentModification, InvalidInput, RestoreRefused
from inspector.storage.base import ObjectMeta, Storage
from inspector.storage.errors import translate
from inspector.storage.options import store_config

#: Concurrent requests of one :meth:`ObjectStorage.read_many`.
READ_CONCURRENCY = 64
# Fail in seconds, not minutes, when the store is unreachable: a user is waiting.
_RETRY: Any = {
    "max_retries": 2,
    "retry_timeout": timedelta(seconds=20),
    "backoff": {
        "init_backoff": timedelta(milliseconds=100),
        "max_backoff": timedelta(seconds=2),
        "base": 2,
    },
}
_CLIENT_DEFAULTS: dict[str, Any] = {"connect_timeout": timedelta(seconds=5)}
# HTTP statuses that say the store does not support the request (rather than refusing us).
_REJECTED_REQUEST = re.compile(r"status code: ((?:400|405|501) [A-Za-z ]+)")

#: Why a store is refused for writing; the documented message (docs/object-storage.md).
NO_CONDITIONAL_PUT = (
    "{root} cannot be written safely: the store does not honour create-if-absent puts "
    "({why}), so a restore could overwrite a commit another writer made at the same time."
)
_NO_CONDITIONAL_PUT_HINT = (
    "Nothing was written. Restore on a store that supports conditional puts (AWS S3, "
    "Azure Blob/ADLS, GCS, or an S3-compatible store with If-None-Match), or copy the "
    "table to a local folder, restore there and copy the new commit back."
)


class ObjectCommitStep(StrEnum):
    """The steps of an object store's create-if-absent, in order; each is reported once done.

    The commit object itself is one single-part conditional put: the store publishes it
    whole or not at all. Before it, the first write of a process proves the store honours
    create-if-absent with a probe object (a dot-file no Delta reader lists).
    """

    PROBE_CREATED = "probe_created"  # the probe object exists (a crash leaves it behind)
    PROBE_REMOVED = "probe_removed"  # ... and is gone again
    PUT = "put"  # the commit object exists, whole


ObjectStepCallback = Callable[[ObjectCommitStep], None]


def _no_report(step: ObjectCommitStep) -> None:
    pass


class ObjectStorage(Storage):
    """The files of a table under a prefix of an S3, Azure or GCS store.

    Args:
        url: The table root as a URI obstore understands (``s3://``, ``s3a://``,
            ``az://``, ``abfs[s]://``, ``gs://``).
        scheme: ``s3``, ``az`` or ``gs``.
        options: Storage options (delta-rs names), passed on explicitly.

    Raises:
        InvalidInput: If an option is unknown or a value malformed.
    """

    def __init__(self, url: str, *, scheme: str, options: Mapping[str, str] | None = None) -> None:
        self.scheme = scheme
        # Azure's listing has no start-after: obstore filters the whole listing there.
        self.lists_after = scheme != "az"
        self._url = url.rstrip("/")  # also the root as shown to users
        self._options = dict(options or {})
        self._store = _make_store(self._url, scheme, self._options)
        self._siblings: dict[str, ObjectStorage] = {}
        self._lock = threading.Lock()
        self._put_checked: str | None = None  # "ok" or the reason puts are unsafe

    @property
    def root(self) -> str:
        return self._url

    @property
    def options(self) -> dict[str, str]:
        """The storage options this store was opened with (contains secrets: never show)."""
        return dict(self._options)

    def _locate(self, path: str) -> tuple[Any, str]:
        """The obstore store and key of a path (relative, or an absolute URI)."""
        if "://" not in path:
            return self._store, path.strip("/")
        if path.startswith(self._url + "/"):
            return self._store, path[len(self._url) + 1 :]
        scheme, rest = path.split("://", 1)
        bucket, _, key = rest.partition("/")
        root = f"{scheme}://{bucket}"
        with self._lock:
            sibling = self._siblings.get(root)
            if sibling is None:
                sibling = ObjectStorage(root, scheme=self.scheme, options=self._options)
                self._siblings[root] = sibling
        return sibling._store, key

    def _fail(self, exc: BaseException, path: str) -> Exception:
        return translate(exc, self._url, path, self._options)

    @contextmanager
    def _translated(self, path: str) -> Iterator[None]:
        """obstore's failures on ``path`` raised in plain words (:func:`translate`)."""
        try:
            yield
        except (BaseError, FileNotFoundError) as exc:
            raise self._fail(exc, path) from None

    def list(self, prefix: str, *, start_after: str | None = None) -> list[ObjectMeta]:
        if start_after is not None:
            return self.list_with(prefix, start_after=start_after, subfolder="")[0]
        store, key = self._locate(prefix)
        with self._translated(prefix):
            listed = obstore.list_with_delimiter(store, f"{key}/" if key else None)["objects"]
        return sorted((_meta(m) for m in listed), key=lambda m: m.path)

    def list_with(
        self, prefix: str, *, start_after: str, subfolder: str
    ) -> tuple[builtins.list[ObjectMeta], builtins.list[ObjectMeta] | None]:
        store, key = self._locate(prefix)
        folder = key + "/" if key else ""
        with self._translated(prefix):  # recursive: the folder's children are kept apart
            stream = obstore.list(store, folder or None, offset=start_after, chunk_size=1000)
            # Some stores (fake-gcs-server) ignore the offset: filter here too.
            listed = [_meta(m) for chunk in stream for m in chunk if m["path"] > start_after]
        by_path = attrgetter("path")
        direct = sorted((m for m in listed if "/" not in m.path[len(folder) :]), key=by_path)
        below = f"{folder}{subfolder}/"
        if not subfolder or below <= start_after:  # not all of it sorts after start_after
            return direct, None
        inside = [m for m in listed if m.path.startswith(below) and "/" not in m.path[len(below) :]]
        return direct, sorted(inside, key=by_path)

    def list_first(self, prefix: str, count: int) -> tuple[builtins.list[ObjectMeta], str | None]:
        store, key = self._locate(prefix)
        folder = key + "/" if key else ""
        with self._translated(prefix):  # obstore's listing is lazy: a chunk of ``count`` is a page
            page = next(iter(obstore.list(store, folder or None, chunk_size=count)), [])
        last = max(m["path"] for m in page) if len(page) >= count else None
        direct = (_meta(m) for m in page if "/" not in m["path"][len(folder) :])
        return sorted(direct, key=lambda m: m.path), last

    def walk(self, prefix: str = "") -> Iterator[ObjectMeta]:
        store, key = self._locate(prefix)
        with self._translated(prefix):
            for chunk in obstore.list(store, (key + "/") if key else None, chunk_size=1000):
                yield from (_meta(m) for m in chunk)

    def walk_sizes(self, prefix: str = "") -> tuple[builtins.list[str], builtins.list[int]]:
        """:meth:`walk` as Arrow pages from obstore: the two columns, no record per file."""
        import pyarrow as pa  # here: every command on an object store would pay its import

        store, key = self._locate(prefix)
        paths: builtins.list[str] = []
        sizes: builtins.list[int] = []
        with self._translated(prefix):
            pages = obstore.list(
                store, (key + "/") if key else None, chunk_size=1000, return_arrow=True
            )
            for page in pages:
                batch = pa.record_batch(page)
                paths += batch.column("path").to_pylist()
                sizes += batch.column("size").to_pylist()
        return paths, sizes

    def exists(self, prefix: str = "") -> bool:
        store, key = self._locate(prefix)
        with self._translated(prefix):
            for chunk in obstore.list(store, (key + "/") if key else None, chunk_size=1):
                return bool(chunk)
        return False

    def head(self, path: str) -> ObjectMeta | None:
        store, key = self._locate(path)
        try:
            return _meta(obstore.head(store, key))
        except (NotFoundError, FileNotFoundError):
            return None
        except BaseError as exc:
            raise self._fail(exc, path) from None

    def read(self, path: str) -> bytes:
        store, key = self._locate(path)
        with self._translated(path):
            return bytes(obstore.get(store, key).bytes())

    def read_range(self, path: str, start: int, end: int) -> bytes:
        store, key = self._locate(path)
        if end <= start:
            return b""
        try:
            return bytes(obstore.get_range(store, key, start=start, end=end))
        except (NotFoundError, FileNotFoundError) as exc:
            raise self._fail(exc, path) from None
        except BaseError as exc:
            # A range past the end of the object: read what is there, like a local file.
            meta = self.head(path)
            if meta is None or end <= meta.size:
                raise self._fail(exc, path) from None
            return self.read_range(path, start, meta.size) if start < meta.size else b""

    def read_many(self, paths: Sequence[str]) -> builtins.list[bytes | OSError]:
        located = [self._locate(p) for p in paths]
        with self._translated(paths[0] if paths else ""):
            return _get_all(located, list(paths))

    def put_if_absent(
        self, path: str, data: bytes, *, on_step: ObjectStepCallback = _no_report
    ) -> str:
        self._require_conditional_put(on_step)
        store, key = self._locate(path)
        try:
            obstore.put(store, key, data, mode="create", use_multipart=False)
        except (AlreadyExistsError, PreconditionError):
            raise ConcurrentModification(  # the writer's caller says what to do next
                f"{self.uri(path)} already exists (another writer created it first)."
            ) from None
        except NotSupportedError as exc:
            raise self._unsafe(f"create-if-absent is not supported: {exc}") from None
        except BaseError as exc:
            raise self._fail(exc, path) from None
        on_step(ObjectCommitStep.PUT)
        return self.uri(path)

    def _require_conditional_put(self, on_step: ObjectStepCallback = _no_report) -> None:
        """Prove once that the store refuses a second create of one object.

        Some S3-compatible stores and emulators ignore ``If-None-Match`` and overwrite.
        A probe object (a dot-file in ``_delta_log``, which no Delta reader lists) is
        created twice; the second create must fail. The probe is then deleted.
        """
        with self._lock:
            if self._put_checked is None:
                self._put_checked = self._probe_conditional_put(on_step)
        if self._put_checked != "ok":
            raise self._unsafe(self._put_checked)

    def _probe_conditional_put(self, on_step: ObjectStepCallback) -> str:
        key = f"_delta_log/.delta-inspector-put-probe-{uuid.uuid4().hex}"
        try:
            obstore.put(self._store, key, b"1", mode="create", use_multipart=False)
            on_step(ObjectCommitStep.PROBE_CREATED)
            try:
                obstore.put(self._store, key, b"2", mode="create", use_multipart=False)
                return "a second create of the same object succeeded and overwrote the first"
            except (AlreadyExistsError, PreconditionError):
                return "ok"
            finally:
                with suppress(BaseError, FileNotFoundError):  # the probe left behind is harmless
                    obstore.delete(self._store, key)
                on_step(ObjectCommitStep.PROBE_REMOVED)
        except NotSupportedError:
            return "the store rejects create-if-absent puts"
        except BaseError as exc:
            status = _REJECTED_REQUEST.search(str(exc))
            if status is None:
                raise self._fail(exc, key) from None
            # The store refuses the request itself (an emulator without the XML-API
            # put, a gateway without conditional puts): not a credentials problem.
            return f"it answered a create-if-absent put with {status.group(1)}"

    def _unsafe(self, why: str) -> RestoreRefused:
        return RestoreRefused(
            NO_CONDITIONAL_PUT.format(root=self._url, why=redact_text(why, self._options)),
            _NO_CONDITIONAL_PUT_HINT,
        )

    def local_path(self, path: str = "") -> str | None:
        return None

    def uri(self, path: str = "") -> str:
        if "://" in path:
            return path
        key = path.strip("/")
        return f"{self._url}/{key}" if key else self._url


def _make_store(url: str, scheme: str, options: Mapping[str, str]) -> Any:
    config, client = store_config(scheme, options)
    try:
        return cast(Any, from_url)(
            url,
            config=config,
            client_options={**_CLIENT_DEFAULTS, **client},
            retry_config=_RETRY,
        )
    except UnknownConfigurationKeyError as exc:
        raise InvalidInput(
            f"A storage option is not known for {scheme}:// locations ({redact_text(str(exc).splitlines()[0], options)}).",
            "Use delta-rs's option names (docs/object-storage.md), e.g. AWS_REGION or AZURE_STORAGE_ACCOUNT_NAME.",
        ) from None
    except (BaseError, ValueError, TypeError) as exc:
        raise InvalidInput(
            f"'{url}' cannot be opened: {redact_text(str(exc).splitlines()[0], options)}.",
            "Check the location and the storage options (docs/object-storage.md).",
        ) from None


def _meta(raw: Mapping[str, Any]) -> ObjectMeta:
    return ObjectMeta(
        path=raw["path"],
        size=int(raw["size"]),
        last_modified=int(raw["last_modified"].timestamp() * 1000),
        etag=raw.get("e_tag"),
    )


def _get_all(located: Sequence[tuple[Any, str]], paths: Sequence[str]) -> list[bytes | OSError]:
    """Get every object, :data:`READ_CONCURRENCY` at a time, results in order.

    The threads take the next path from a shared queue and make obstore's blocking
    get, which releases the GIL while it waits: as concurrent as asyncio's gets, without
    importing asyncio (more CPU than a short history's requests), and usable inside a
    running event loop. The first error other than a missing object stops the workers and
    is raised.
    """
    results: list[bytes | OSError] = [b""] * len(paths)
    queue = iter(range(len(paths)))
    lock = threading.Lock()
    failed: list[BaseException] = []

    def worker() -> None:
        while not failed:
            with lock:
                i = next(queue, None)
            if i is None:
                return
            (store, key), path = located[i], paths[i]
            try:
                results[i] = bytes(obstore.get(store, key).bytes())
            except (NotFoundError, FileNotFoundError):
                results[i] = FileNotFoundError(errno.ENOENT, "No such object", path)
            except BaseException as exc:  # raised below, in the caller's thread
                failed.append(exc)

    workers = range(min(READ_CONCURRENCY, len(paths)) - 1)
    threads = [threading.Thread(target=worker, daemon=True) for _ in workers]
    for thread in threads:
        thread.start()
    worker()  # this thread is one of the workers
    for thread in threads:
        thread.join()
    if failed:
        raise failed[0]
    return results
