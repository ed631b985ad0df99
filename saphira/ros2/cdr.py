"""Plain CDR for saphira's ROS 2 messages, fast: what Cyclone DDS's own serializer writes, at a tenth of the cost.

Cyclone DDS's Python serializer walks every value in Python (a 192-byte point cloud costs 0.25 ms, an
odometry message 0.27 ms), which would make the messages of one cycle cost over a millisecond. This
encoder is planned once per message class from the same IDL annotations and packs runs of numbers with
:mod:`struct` and sequences of numbers with numpy. The rules are XCDR1's (what ROS 2 sends): little
endian, after a 4-byte encapsulation header; each number aligned to its size (at most 8) from the
start of the payload; a string as its length with the NUL, the bytes, the NUL; a sequence as its count
and its elements; a fixed array as its elements; a nested struct as its fields. The test checks the
bytes against Cyclone's serializer for every message.
"""

from __future__ import annotations

import struct
import typing
from collections.abc import Callable
from dataclasses import fields
from typing import Any, cast

import cyclonedds.idl.types as t
import numpy as np
from cyclonedds.idl import IdlStruct

__all__ = ["HEADER", "encode"]

HEADER = b"\x00\x01\x00\x00"
"""The encapsulation header: plain CDR, little endian."""

_NUMBERS: dict[Any, tuple[str, int]] = {
    t.float64: ("d", 8), float: ("d", 8), t.float32: ("f", 4), t.int32: ("i", 4), t.uint32: ("I", 4),
    t.int8: ("b", 1), t.uint8: ("B", 1), bool: ("?", 1),
}  # fmt: skip
_DTYPES = {"d": "<f8", "f": "<f4", "i": "<i4", "I": "<u4", "b": "i1", "B": "u1", "?": "?"}
_U32 = struct.Struct("<I")

Writer = Callable[[bytearray, Any], None]


def _pad(buf: bytearray, size: int) -> None:
    buf.extend(bytes(-(len(buf) - 4) % size))


def _number_writer(code: str, size: int) -> Writer:
    packer = struct.Struct("<" + code)

    def write(buf: bytearray, value: Any) -> None:
        _pad(buf, size)
        buf.extend(packer.pack(value))

    return write


def _string(buf: bytearray, value: Any) -> None:
    data = str(value).encode()
    _pad(buf, 4)
    buf.extend(_U32.pack(len(data) + 1))
    buf.extend(data)
    buf.append(0)


def _numbers_writer(code: str, size: int, length: int | None) -> Writer:
    dtype = _DTYPES[code]

    def write(buf: bytearray, value: Any) -> None:
        data = value if isinstance(value, bytes | bytearray) and size == 1 else np.asarray(value, dtype).tobytes()
        if length is None:
            _pad(buf, 4)
            buf.extend(_U32.pack(len(data) // size))
        elif len(data) != length * size:
            raise ValueError(f"expected {length} elements, got {len(data) // size}")
        if data:
            _pad(buf, size)
            buf.extend(data)

    return write


def _structs_writer(element: Writer, length: int | None) -> Writer:
    def write(buf: bytearray, value: Any) -> None:
        if length is None:
            _pad(buf, 4)
            buf.extend(_U32.pack(len(value)))
        for item in value:
            element(buf, item)

    return write


def _writer(annotation: Any) -> Writer:
    if annotation in _NUMBERS:
        return _number_writer(*_NUMBERS[annotation])
    if annotation is str:
        return _string
    if isinstance(annotation, type) and issubclass(annotation, IdlStruct):
        return _struct_writer(annotation)
    spec: Any = typing.get_args(annotation)[-1] if typing.get_args(annotation) else None
    if hasattr(spec, "subtype"):
        length = spec.length if hasattr(spec, "length") else None
        if spec.subtype in _NUMBERS:
            return _numbers_writer(*_NUMBERS[spec.subtype], length)
        return _structs_writer(_writer(spec.subtype), length)
    raise TypeError(f"no CDR for {annotation!r}")


_PLANS: dict[type[IdlStruct], Writer] = {}


def _struct_writer(cls: type[IdlStruct]) -> Writer:
    plan = _PLANS.get(cls)
    if plan is None:
        hints = typing.get_type_hints(cls, include_extras=True)
        members = [(f.name, _writer(hints[f.name])) for f in fields(cast(Any, cls))]

        def plan(buf: bytearray, value: Any) -> None:
            for name, write in members:
                write(buf, getattr(value, name))

        _PLANS[cls] = plan
    return plan


def encode(message: IdlStruct) -> bytes:
    """The message as DDS sends it: the header, the payload, padded to a multiple of 4."""
    buf = bytearray(HEADER)
    _struct_writer(type(message))(buf, message)
    _pad(buf, 4)
    return bytes(buf)
