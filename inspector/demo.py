"""The built-in demo table: two weeks of an e-commerce ``orders`` table.

Written with deltalake's writer (a real Delta writer, not hand-made JSON) from a fixed
random seed. Every commit is back-dated to its place in the story, all of a version's
timestamps alike, so the timeline spreads over days and never looks like a copied table.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import uuid
from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from inspector.delta.errors import InvalidInput, NotADeltaTable
from inspector.delta.paths import LOG_DIR, data_file_path
from inspector.delta.properties import LOG_RETENTION, TARGET_FILE_SIZE
from inspector.storage.location import parse_location

if TYPE_CHECKING:
    from deltalake import CommitProperties, DeltaTable

DEMO_SEED = 20240301
#: The first day of the story; each commit is dated relative to it.
DEMO_START = datetime(2024, 3, 1, tzinfo=UTC)
REGIONS = ("EU", "US", "APAC")
PRODUCTS = {
    "kettle": "39.90",
    "desk lamp": "24.50",
    "standing desk": "449.00",
    "office chair": "219.99",
    "coffee mug": "9.95",
    "notebook": "4.20",
}
STATUSES = ("placed", "placed", "paid", "paid", "cancelled")

ORDERS_SCHEMA = pa.schema(
    [
        ("order_id", pa.int64()),
        ("customer_id", pa.int32()),
        ("region", pa.string()),
        ("product", pa.string()),
        ("quantity", pa.int32()),
        ("unit_price", pa.decimal128(10, 2)),
        ("order_date", pa.date32()),
        ("ordered_at", pa.timestamp("us", tz="UTC")),
        ("status", pa.string()),
    ]
)
# Old commits must survive checkpoints: writers delete commit files older than
# the log retention (30 days by default) when they checkpoint, and the story's
# commits are dated in the past.
DEMO_CONFIGURATION = {LOG_RETENTION: "interval 3650 days"}


def write_demo_table(path: str, *, force: bool = False) -> str:
    """Write the demo table at ``path`` and return its absolute path.

    The table is built in a hidden sibling folder and renamed into place, so a
    half-written demo never exists at ``path``. Without ``force`` an existing table is
    returned unchanged, so calling this at start-up is cheap.

    Raises:
        InvalidInput: If ``path`` is a file or a non-empty folder that is not a
            Delta table (never overwritten), or its parent cannot be written.
        NotADeltaTable: If ``path`` is empty or not a local location.
    """
    root = demo_root(path)
    if _is_delta_table(root) and not force:
        return root
    _check_target(root)
    parent = os.path.dirname(root)
    try:
        os.makedirs(parent, exist_ok=True)
        staging = os.path.join(parent, f".{os.path.basename(root)}.writing-{uuid.uuid4().hex[:8]}")
        try:
            DemoWriter(staging).write()
            _move_into_place(staging, root, force=force)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    except OSError as exc:
        raise InvalidInput(
            f"The demo table could not be written to '{root}': {exc.strerror or exc}.",
            "Choose a folder you can write to (set DELTA_INSPECTOR_DEMO_PATH or pass a PATH).",
        ) from None
    return root


def demo_root(path: str) -> str:
    """The absolute local folder ``path`` names (a path or ``file://`` URI, ``~`` expanded).

    Raises:
        NotADeltaTable: If ``path`` is empty, or an object store URI (the demo is written
            to a local folder).
    """
    location = parse_location(path)
    if not location.is_local:
        raise NotADeltaTable(
            f"'{path}' is not a local folder; the demo table is written on this machine.",
            "Pass a local path or a file:// URI.",
        )
    return location.root


def _is_delta_table(root: str) -> bool:
    return os.path.isdir(os.path.join(root, LOG_DIR))


def _check_target(root: str) -> None:
    """Refuse anything at ``root`` that is neither absent, empty, nor a Delta table."""
    if os.path.exists(root) and not os.path.isdir(root):
        raise InvalidInput(
            f"'{root}' is a file, not a folder; the demo table was not written.",
            "Pass a path to a new or empty folder.",
        )
    if os.path.isdir(root) and os.listdir(root) and not _is_delta_table(root):
        raise InvalidInput(
            f"'{root}' is a non-empty folder that is not a Delta table; "
            "the demo will not overwrite it.",
            "Pass a path to a new or empty folder, or to an existing demo table with --force.",
        )


def _move_into_place(staging: str, root: str, *, force: bool) -> None:
    """Rename the finished table onto ``root``, replacing an old table only when forced."""
    if force and _is_delta_table(root):
        retired = f"{staging}.old"
        os.rename(root, retired)
        os.rename(staging, root)
        shutil.rmtree(retired, ignore_errors=True)
        return
    try:
        os.rename(staging, root)  # replaces an empty folder; fails on a non-empty one
    except OSError:
        if not _is_delta_table(root):  # not a concurrent demo writer that finished first
            raise


class DemoWriter:
    """Writes the demo story into an empty folder, one back-dated commit at a time."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.rng = random.Random(DEMO_SEED)
        self.next_order_id = 1
        self.version = -1
        self.created_ms = _ms(DEMO_START)

    def write(self) -> None:
        """Write every commit of the story, and a checkpoint after the OPTIMIZE."""
        self.load(
            0,
            "02:05",
            self.orders(240, day=0),
            "initial load",
            mode="error",
            partition_by=["region"],
            name="orders",
            description="Demo e-commerce orders, loaded nightly (written by Delta Inspector).",
            configuration=DEMO_CONFIGURATION,
        )
        self.load(1, "02:04", self.orders(160, day=1), "nightly load")
        self.load(2, "02:06", self.orders(170, day=2))
        purge = _note("purge cancelled orders")
        self.commit(
            2, "09:30", lambda: self.table().delete("status = 'cancelled'", commit_properties=purge)
        )
        shipped = "status = 'paid' AND order_date < '2024-03-02'"
        self.commit(
            3, "02:05", lambda: self.table().update({"status": "'shipped'"}, predicate=shipped)
        )
        self.commit(4, "02:07", lambda: self.merge_late_changes(day=4))
        new_column = self.orders(150, day=5, channel=True)
        self.load(5, "02:05", new_column, "nightly load; new column: channel", schema_mode="merge")
        positive = {"positive_quantity": "quantity > 0"}
        self.commit(5, "14:20", lambda: self.table().alter.add_constraint(positive))
        apac = self.orders(90, day=5, channel=True, region="APAC")
        redelivered = "APAC feed re-delivered after a pricing bug"
        self.load(6, "11:45", apac, redelivered, mode="overwrite", predicate="region = 'APAC'")
        size = {TARGET_FILE_SIZE: "134217728"}
        self.commit(7, "08:00", lambda: self.table().alter.set_table_properties(size))
        self.commit(8, "03:00", lambda: self.table().optimize.compact())
        self.table().create_checkpoint()
        self.load(9, "02:05", self.orders(180, day=9, channel=True))
        gdpr = _note("GDPR erasure request #2024-117")
        self.commit(
            10, "10:15", lambda: self.table().delete("customer_id = 42", commit_properties=gdpr)
        )
        self.load(11, "02:06", self.orders(200, day=11, channel=True))

    def table(self) -> DeltaTable:
        """The table as it is now (each step acts on the version before it)."""
        from deltalake import DeltaTable

        return DeltaTable(self.root)

    def load(
        self, day: int, at: str, rows: pa.Table, note: str | None = None, **options: Any
    ) -> None:
        """Commit ``rows`` with deltalake's writer: an append unless ``options`` say otherwise."""
        from deltalake import write_deltalake

        options.setdefault("mode", "append")
        if note is not None:
            options["commit_properties"] = _note(note)
        self.commit(day, at, lambda: write_deltalake(self.root, rows, **options))

    def merge_late_changes(self, day: int) -> None:
        """MERGE late status changes of existing orders and a few late orders."""
        changed = self.orders(45, day=day - 1, first_id=self.next_order_id - 200)
        source = pa.concat_tables([changed, self.orders(15, day=day)])
        (
            self.table()
            .merge(source, "t.order_id = s.order_id", source_alias="s", target_alias="t")
            .when_matched_update(updates={"status": "s.status"})
            .when_not_matched_insert_all()
            .execute()
        )

    def commit(self, day: int, at: str, write: Callable[[], Any]) -> None:
        """Run one write, then date the commit it made to ``day`` of the story at ``at``."""
        write()
        self.version += 1
        hours, minutes = map(int, at.split(":"))
        when = DEMO_START + timedelta(
            days=day, hours=hours, minutes=minutes, seconds=self.rng.randint(0, 59)
        )
        _backdate_commit(self.root, self.version, _ms(when), self.created_ms)

    def orders(
        self,
        count: int,
        *,
        day: int,
        channel: bool = False,
        region: str | None = None,
        first_id: int | None = None,
    ) -> pa.Table:
        """``count`` orders placed the day before ``day`` of the story (new ids unless ``first_id``)."""
        start = self.next_order_id if first_id is None else first_id
        if first_id is None:
            self.next_order_id += count
        placed = (DEMO_START + timedelta(days=day - 1)).date()
        rows = [self._order(i, placed, region) for i in range(start, start + count)]
        table = pa.Table.from_pylist(rows, schema=ORDERS_SCHEMA)
        if channel:
            table = table.append_column(
                "channel",
                pa.array(
                    [self.rng.choice(("web", "app", "marketplace")) for _ in rows], pa.string()
                ),
            )
        return table

    def _order(self, order_id: int, placed: date, region: str | None) -> dict[str, Any]:
        rng = self.rng
        product = rng.choice(sorted(PRODUCTS))
        return {
            "order_id": order_id,
            "customer_id": rng.randint(1, 400),
            "region": region or rng.choice(REGIONS),
            "product": product,
            "quantity": rng.randint(1, 4),
            "unit_price": Decimal(PRODUCTS[product]),
            "order_date": placed,
            "ordered_at": datetime.combine(
                placed, time(rng.randint(0, 23), rng.randint(0, 59)), tzinfo=UTC
            ),
            "status": rng.choice(STATUSES),
        }


def _note(text: str) -> CommitProperties:
    from deltalake import CommitProperties

    return CommitProperties(custom_metadata={"userMetadata": text})


def _ms(when: datetime) -> int:
    return int(when.timestamp() * 1000)


def _backdate_commit(root: str, version: int, when_ms: int, created_ms: int) -> None:
    """Date a just-written commit: its commitInfo, add/remove times and file times.

    Only the demo does this, to a commit nobody has read yet; real commit files
    are immutable.
    """
    path = os.path.join(root, LOG_DIR, f"{version:020d}.json")
    with open(path, encoding="utf-8") as fh:
        actions = [json.loads(line) for line in fh if line.strip()]
    for action in actions:
        kind, body = next(iter(action.items()))
        field = {
            "commitInfo": "timestamp",
            "add": "modificationTime",
            "remove": "deletionTimestamp",
            "metaData": "createdTime",
        }.get(kind)
        if field:
            body[field] = created_ms if kind == "metaData" else when_ms
        if kind == "add":
            os.utime(data_file_path(root, body["path"]), (when_ms / 1000, when_ms / 1000))
    with open(path, "w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(a, separators=(",", ":")) + "\n" for a in actions)
    os.utime(path, (when_ms / 1000, when_ms / 1000))
