"""Writing one commit file to ``_delta_log``: created only if absent, never partial.

The Delta protocol's "atomic file creation" and "mutual exclusion" come from the table's
storage (:meth:`inspector.storage.Storage.put_if_absent`); a store that cannot guarantee
them is refused for writing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from inspector.delta.errors import ConcurrentModification
from inspector.delta.paths import LOG_DIR
from inspector.storage import LocalStorage, Storage
from inspector.storage.local import CommitStep
from inspector.storage.objectstore import ObjectCommitStep, ObjectStorage

#: Called after each step of a commit's write (local or object store).
AnyStepCallback = Callable[[CommitStep | ObjectCommitStep], None]


def write_commit(
    target: Storage | str,
    version: int,
    actions: Iterable[Mapping[str, Any]],
    *,
    on_step: AnyStepCallback | None = None,
) -> str:
    """Create the commit file of ``version`` (in the table's storage, or a local
    ``_delta_log`` folder) atomically, only if it does not exist; its location.

    Raises:
        ConcurrentModification: If the version already exists; nothing was written.
        RestoreRefused: If the store cannot guarantee create-if-absent; nothing was written.
    """
    name = f"{version:020d}.json"
    storage = LocalStorage(target) if isinstance(target, str) else target
    path = name if isinstance(target, str) else f"{LOG_DIR}/{name}"
    lines = [json.dumps(a, separators=(",", ":"), ensure_ascii=False) for a in actions]
    data = ("\n".join(lines) + "\n").encode("utf-8")
    try:
        if on_step is not None and isinstance(storage, LocalStorage | ObjectStorage):
            return storage.put_if_absent(path, data, on_step=on_step)
        return storage.put_if_absent(path, data)
    except ConcurrentModification:
        raise ConcurrentModification(
            f"Another writer created version {version} first; the restore wrote nothing.",
            "Make a new plan from the table's new latest version and try again.",
        ) from None
