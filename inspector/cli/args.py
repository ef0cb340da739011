"""Arguments shared by several commands: the table, how to reach its store, and Spark."""

from __future__ import annotations

import argparse
import dataclasses
from typing import TYPE_CHECKING

from inspector.log.deltalog import DeltaLog
from inspector.settings import Settings

if TYPE_CHECKING:
    from inspector.catalog import ResolvedTable


def table_arg(parser: argparse.ArgumentParser) -> None:
    """The positional TABLE argument every command that reads a table takes."""
    parser.add_argument(
        "table",
        help="Table root (the folder holding _delta_log), file:// URI, an object store URI "
        "(s3://, s3a://, abfss://, abfs://, az://, gs://), or a name in a catalog: "
        "uc://CATALOG.SCHEMA.TABLE (Unity Catalog) or glue://DATABASE.TABLE (AWS Glue).",
    )
    storage_arg(parser)


def storage_arg(parser: argparse.ArgumentParser) -> None:
    """Repeatable ``--storage-option KEY=VALUE``: every command that opens a table."""
    parser.add_argument(
        "--storage-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="Object store option with delta-rs's name, e.g. AWS_ENDPOINT_URL=http://... "
        "(repeatable; overrides AWS_*/AZURE_*/GOOGLE_* variables and "
        "DELTA_INSPECTOR_STORAGE_OPTIONS). Secret values are never printed.",
    )


def storage_settings(args: argparse.Namespace, settings: Settings) -> Settings:
    """The settings with ``--storage-option`` pairs added (validated now).

    Raises:
        InvalidInput: If a pair is not ``KEY=VALUE`` (exit 2; the value is not shown).
    """
    from inspector.storage.options import parse_option

    flags = [parse_option(text) for text in getattr(args, "storage_option", None) or []]
    if not flags:
        return settings
    lines = [settings.storage_options, *(f"{k}={v}" for k, v in flags)]
    return dataclasses.replace(settings, storage_options="\n".join(lines))


def resolve(
    args: argparse.Namespace, settings: Settings, *, write: bool = False
) -> tuple[ResolvedTable, Settings]:
    """``args.table`` resolved (a catalog name looked up), and the settings to open it with.

    The settings carry ``--storage-option`` and the catalog's credentials for the table.

    Raises:
        InvalidInput: If a storage option or a catalog name is malformed.
        TableNotInCatalog: If a catalog has no table of that name.
        NotADeltaTable: If a catalog's table is not a Delta table.
        CatalogUnavailable: If a catalog cannot be reached.
        CatalogAccessDenied: If a catalog refuses the token or credentials.
    """
    from inspector.catalog import resolve_table, with_table_options

    settings = storage_settings(args, settings)
    table = resolve_table(args.table, settings, write=write)
    return table, with_table_options(settings, table)


def open_table(args: argparse.Namespace, settings: Settings) -> DeltaLog:
    """Open ``args.table`` (a location or a catalog name) with its storage options.

    Raises:
        InvalidInput: If a storage option is malformed.
        NotADeltaTable: If the location holds no readable Delta log.
        StorageUnavailable: If the store cannot be reached or refuses access.
        TableNotInCatalog: If a catalog has no table of that name.
        CatalogUnavailable: If a catalog cannot be reached or refuses the credentials.
    """
    table, settings = resolve(args, settings)
    return DeltaLog.open(table.location, storage_options=settings.storage_option_pairs())


def spark_args(parser: argparse.ArgumentParser) -> None:
    """``--spark-master`` and repeatable ``--spark-conf``: every command that starts Spark."""
    group = parser.add_argument_group("Spark (only when this command needs rows)")
    group.add_argument(
        "--spark-master",
        default=None,
        help="Spark master URL (overrides DELTA_INSPECTOR_SPARK_MASTER), e.g. "
        "spark://host:7077, yarn, k8s://...",
    )
    group.add_argument(
        "--spark-conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="Extra Spark conf (repeatable; added to DELTA_INSPECTOR_SPARK_CONF).",
    )


def spark_settings(args: argparse.Namespace, settings: Settings) -> Settings:
    """The settings with ``--spark-master`` and ``--spark-conf`` applied (validated now).

    Raises:
        InvalidInput: If a ``--spark-conf`` pair is not ``key=value``.
    """
    from inspector.rows.session import with_spark_overrides

    return with_spark_overrides(settings, master=args.spark_master, conf=args.spark_conf)
