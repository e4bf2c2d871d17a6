"""Messages of `curia.v1` as JSON for scripts (`curia play --json`, the arena's records).

Protobuf's JSON mapping leaves out fields at their default (seat 0, version 0, false,
"") and writes 64-bit integers as strings; both are traps for a script
(`decision["seat"]` fails for seat 0, `version + 1` fails on a string). Here every field
is present, and 64-bit integers are JSON numbers, but for `seed`: a seed is a full 64-bit
value, more than a JSON number holds exactly in most languages, so it stays a decimal
string. Field names are the proto names (`game_id`, `unix_ms`). Both forms are read back
by protobuf's JSON parser (`ParseDict`), so what this writes `curia replay` reads.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message

#: 64-bit fields kept as decimal strings: values beyond 2**53 are common.
STRING_INTEGERS = frozenset({"seed"})

_WIDE = {FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_SINT64,
         FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED64}


def message_json(message: Message) -> dict[str, Any]:
    """`message` as a JSON object: every field present, 64-bit integers as numbers."""
    data = MessageToDict(message, preserving_proto_field_name=True,
                         always_print_fields_with_no_presence=True)
    return _with_numbers(message.DESCRIPTOR, data)


def _with_numbers(descriptor: Descriptor, data: dict[str, Any]) -> dict[str, Any]:
    for field in descriptor.fields:
        if field.name in data:
            data[field.name] = _field_value(field, data[field.name])
    return data


def _field_value(field: FieldDescriptor, value: Any) -> Any:
    entry = field.message_type
    if entry is not None and entry.GetOptions().map_entry:
        inner = entry.fields_by_name["value"]
        return {key: _single(inner, item) for key, item in value.items()}
    if isinstance(value, list):
        return [_single(field, item) for item in value]
    return _single(field, value)


def _single(field: FieldDescriptor, value: Any) -> Any:
    if field.message_type is not None and isinstance(value, dict):
        return _with_numbers(field.message_type, value)
    if field.type in _WIDE and field.name not in STRING_INTEGERS and isinstance(value, str):
        return int(value)
    return value
