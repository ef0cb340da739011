"""Delta schemas (the JSON in ``metaData.schemaString``) as typed records."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from inspector.delta.jsonvalue import camel_json

# Column metadata keys (a field's ``metadata`` in the schema), as the protocol names them.
PHYSICAL_NAME_KEY = "delta.columnMapping.physicalName"
COLUMN_ID_KEY = "delta.columnMapping.id"
IDENTITY_START = "delta.identity.start"
IDENTITY_STEP = "delta.identity.step"
IDENTITY_HIGH_WATER_MARK = "delta.identity.highWaterMark"


@dataclass(frozen=True, kw_only=True)
class PrimitiveType:
    """A primitive type such as ``long``, ``string`` or ``decimal(10,2)``."""

    name: str

    def simple_string(self) -> str:
        """Spark's simpleString of the type."""
        return self.name


@dataclass(frozen=True, kw_only=True)
class ArrayType:
    """An array of ``element_type`` (``containsNull`` is not kept: nothing here reads it)."""

    element_type: DataType

    def simple_string(self) -> str:
        return f"array<{self.element_type.simple_string()}>"


@dataclass(frozen=True, kw_only=True)
class MapType:
    """A map from ``key_type`` to ``value_type`` (``valueContainsNull`` is not kept)."""

    key_type: DataType
    value_type: DataType

    def simple_string(self) -> str:
        return f"map<{self.key_type.simple_string()},{self.value_type.simple_string()}>"


@dataclass(frozen=True, kw_only=True)
class StructField:
    """A named field of a struct, with its column-mapping metadata."""

    name: str
    type: DataType
    nullable: bool = True
    metadata: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @property
    def physical_name(self) -> str:
        """The name in Parquet files: the column-mapping physical name, else ``name``."""
        return str(self.metadata.get(PHYSICAL_NAME_KEY) or self.name)

    @property
    def column_id(self) -> int | None:
        """The column-mapping id, when the table uses column mapping."""
        value = self.metadata.get(COLUMN_ID_KEY)
        return int(value) if value is not None else None


@dataclass(frozen=True, kw_only=True)
class StructType:
    """An ordered list of fields; the top-level schema of a table is one."""

    fields: tuple[StructField, ...]

    def simple_string(self) -> str:
        inner = ",".join(f"{f.name}:{f.type.simple_string()}" for f in self.fields)
        return f"struct<{inner}>"

    def field_names(self) -> list[str]:
        return [f.name for f in self.fields]

    def get(self, name: str) -> StructField | None:
        return next((f for f in self.fields if f.name == name), None)


DataType = PrimitiveType | ArrayType | MapType | StructType


@dataclass(frozen=True, kw_only=True)
class Column:
    """One leaf or nested column of a schema, addressed by its dotted path."""

    path: tuple[str, ...]
    type: str
    nullable: bool
    physical_path: tuple[str, ...]
    column_id: int | None

    @property
    def name(self) -> str:
        """The dotted logical name, e.g. ``address.city``."""
        return ".".join(self.path)

    def to_json(self) -> dict[str, Any]:
        return camel_json(self, "name", "type", "nullable", "column_id")


def parse_schema(schema_string: str) -> StructType:
    """Parse ``schemaString`` (ValueError if it is not a Delta schema)."""
    try:
        obj = json.loads(schema_string)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"schemaString is not valid JSON: {exc}") from exc
    try:
        parsed = _parse_type(obj)
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(
            f"schemaString is not a valid Delta schema (bad or missing {exc})"
        ) from exc
    if not isinstance(parsed, StructType):
        raise ValueError("schemaString is not a struct")
    return parsed


def _parse_type(obj: Any) -> DataType:
    if isinstance(obj, str):
        return PrimitiveType(name=obj)
    kind = obj.get("type")
    if kind == "struct":
        return StructType(fields=tuple(_parse_field(f) for f in obj.get("fields", [])))
    if kind == "array":
        return ArrayType(element_type=_parse_type(obj["elementType"]))
    if kind == "map":
        return MapType(
            key_type=_parse_type(obj["keyType"]), value_type=_parse_type(obj["valueType"])
        )
    return PrimitiveType(name=str(kind))


def _parse_field(obj: Mapping[str, Any]) -> StructField:
    return StructField(
        name=obj["name"],
        type=_parse_type(obj["type"]),
        nullable=bool(obj.get("nullable", True)),
        metadata=obj.get("metadata") or {},
    )


def iter_columns(
    struct: StructType, path: tuple[str, ...] = (), phys: tuple[str, ...] = ()
) -> Iterator[Column]:
    """Every column of the schema (``struct``, at logical ``path`` and physical ``phys``),
    depth first: a struct and each of its nested fields (a diff reports both "struct added"
    and "field added inside a struct")."""
    for f in struct.fields:
        here, here_phys = path + (f.name,), phys + (f.physical_name,)
        yield Column(
            path=here,
            type=f.type.simple_string(),
            nullable=f.nullable,
            physical_path=here_phys,
            column_id=f.column_id,
        )
        if (inner := _struct_inside(f.type)) is not None:
            yield from iter_columns(inner, here, here_phys)


def _struct_inside(data_type: DataType) -> StructType | None:
    """The struct to descend into: the type itself, an array's element or a map's value."""
    if isinstance(data_type, StructType):
        return data_type
    if isinstance(data_type, ArrayType):
        return _struct_inside(data_type.element_type)
    if isinstance(data_type, MapType):
        return _struct_inside(data_type.value_type)
    return None


ColumnNames = Mapping[tuple[str, ...], tuple[str, ...]]


def logical_names(schema: StructType) -> ColumnNames:
    """Physical path -> logical path of every column whose names differ (column mapping).

    Partition values and file statistics in the log use physical names; pages and
    exports show logical ones (the physical name only as a detail).
    """
    return {c.physical_path: c.path for c in iter_columns(schema) if c.physical_path != c.path}


def with_logical_names(
    node: Mapping[str, Any], names: ColumnNames, prefix: tuple[str, ...] = ()
) -> dict[str, Any]:
    """A partitionValues or statistics mapping (nested by struct, at physical ``prefix``) with
    logical keys."""
    out: dict[str, Any] = {}
    for key, value in node.items():
        path = (*prefix, key)
        name = names.get(path, path)[-1]
        out[name] = with_logical_names(value, names, path) if isinstance(value, Mapping) else value
    return out
