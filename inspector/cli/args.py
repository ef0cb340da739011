"""Arguments shared by several commands: the table, and how to reach Spark."""

from __future__ import annotations

import argparse

from inspector.settings import Settings


def table_arg(parser: argparse.ArgumentParser) -> None:
    """The positional TABLE argument every command that reads a table takes."""
    parser.add_argument("table", help="Table root (the folder holding _delta_log) or file:// URI.")


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
