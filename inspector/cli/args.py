"""Arguments shared by several commands: the table, how to reach its store, and Spark.

A command opens ``args.table`` with :func:`inspector.table.open_table`, with the settings
:func:`connection_settings` merged its flags into.
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import TYPE_CHECKING

from inspector.connection import SparkConf, StorageOptions, parse_pairs
from inspector.settings import Settings

if TYPE_CHECKING:
    from inspector.log.deltalog import DeltaLog


def table_arg(parser: argparse.ArgumentParser) -> None:
    """The positional TABLE argument every command that reads a table takes."""
    parser.add_argument(
        "table",
        help="Table root (the folder holding _delta_log), file:// URI, an object store URI "
        "(s3://, s3a://, abfss://, abfs://, az://, gs://), or a name in a catalog: "
        "uc://CATALOG.SCHEMA.TABLE (Unity Catalog) or glue://DATABASE.TABLE (AWS Glue).",
    )
    storage_arg(parser)


def table_version(args: argparse.Namespace, settings: Settings) -> tuple[DeltaLog, int]:
    """The table's log and the version ``--version`` names (the latest when not given)."""
    from inspector.table import open_table  # imported by the commands that open a table
    from inspector.table.versions import parse_version

    log = open_table(args.table, settings).log
    return log, log.latest_version if args.version is None else parse_version(args.version, log)


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


def connection_settings(args: argparse.Namespace, settings: Settings) -> Settings:
    """The settings with this command's connection flags merged in: the one place they are parsed.

    Flags override the environment's settings; commands without a flag keep the setting.

    Raises:
        InvalidInput: If a pair is not ``KEY=VALUE`` (exit 2; a secret is not shown).
    """
    flags = parse_pairs(StorageOptions, getattr(args, "storage_option", None) or ())
    conf = parse_pairs(SparkConf, getattr(args, "spark_conf", None) or ())
    return dataclasses.replace(
        settings,
        storage_options=settings.storage_options.merged(flags),
        spark_conf=settings.spark_conf.merged(conf),
        spark_master=getattr(args, "spark_master", None) or settings.spark_master,
        log_index=settings.log_index and not getattr(args, "no_cache", False),
    )


def where_arg(parser: argparse.ArgumentParser, *, required: bool = False) -> None:
    """``--where``, a filter in the one grammar: SQL, parsed by Spark SQL."""
    parser.add_argument(
        "--where",
        required=required,
        help="A SQL WHERE expression over the rows' columns, parsed by Spark SQL, "
        'e.g. "id = 42" or "region = \'eu\' AND amount > 100".',
    )


def spark_args(parser: argparse.ArgumentParser) -> None:
    """``--spark-master`` and repeatable ``--spark-conf``: every command that starts Spark."""
    group = parser.add_argument_group("Spark (only when this command needs rows)")
    group.add_argument(
        "--spark-master",
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
