"""Robot parameter files (``.p``): read them into a typed :class:`RobotParams` and pick one per robot.

One parser reads both dialects. Saphira's is ``Keyword value ; comment`` lines; ARIA's (``ArConfig``) adds
an optional ``ConfigVersion`` line, ``Section <name>`` headers and ``#`` comments. Keywords are
case-insensitive. Integer parameters must not contain a decimal point; floats take any standard form;
booleans take 0/1/true/false. Keys this module does not model (ARIA files have many) are kept in
:attr:`RobotParams.extra`. Every problem in a file raises :class:`ParamsError`, whose ``str`` is
``file:line[:col]: ...``; so does a file that is not text or holds no parameter key at all.

Resolution, the way ARIA does it (:func:`resolve_params`): the built-in defaults of the robot's model
(:mod:`saphira.params.robot_models`, one entry per robot type ARIA knows), overlaid by the model's own file
(``<subclass>.p`` in ``$SAPHIRA_PARAMS`` or the bundled folder), overlaid by the file the user names.
Every value remembers which of the three it came from (:attr:`RobotParams.origins`). A file read on
its own (:func:`load_params`) overlays Saphira's built-in Pioneer 1, as in Saphira.

Sonar counts follow ARIA: ``SonarNum`` sets the count and each ``SonarUnit`` line one sonar; a sonar
the file does not place keeps the position the layer below gives it (ARIA's ``powerbot.p`` says 32
and lists 31), with a warning in :attr:`RobotParams.warnings` and the log.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from saphira.core.errors import SaphiraError, SourceError, SourcePosition, quoted
from saphira.core.inputfile import MIB, bounded_int, read_input
from saphira.core.paths import data_dir

DEFAULTS_SOURCE = "<defaults>"
PARAMS_ENV = "SAPHIRA_PARAMS"
MAX_PARAMS_BYTES = MIB
"""A parameter file is a few kB; anything past this is not one."""
MAX_SONARS = 256
"""The largest ``SonarNum`` (ARIA's robots have at most 32)."""
MAX_SONAR_OFFSET = 100_000.0
"""mm: how far from the robot's centre a ``SonarUnit`` may sit."""

log = logging.getLogger("saphira.params.robot_params")


class ParamsError(SourceError):
    """A parameter file that cannot be read or is malformed."""


class ParamsNotFoundError(SaphiraError):
    """No parameter file matches a requested name."""


@dataclass(frozen=True)
class SonarUnit:
    """Pose of one sonar on the body: x, y in mm (+x forward, +y left), th the bearing in degrees.

    ``extra`` holds any fields after the pose (ARIA's MTX sonar-board settings), as written.
    """

    index: int
    x: float
    y: float
    th: float
    extra: tuple[str, ...] = ()


PIONEER1_SONARS = (
    SonarUnit(0, 100, 100, 90),
    SonarUnit(1, 120, 80, 30),
    SonarUnit(2, 130, 40, 15),
    SonarUnit(3, 130, 0, 0),
    SonarUnit(4, 130, -40, -15),
    SonarUnit(5, 120, -80, -30),
    SonarUnit(6, 100, -100, -90),
)


@dataclass(frozen=True)
class RobotParams:
    """Everything a parameter file says about a robot; the defaults are Saphira's built-in Pioneer 1.

    Units: mm, mm/s, mm/s², deg/s, degrees. ``angle_conv_factor`` is radians per SIP heading unit.
    ``trans_vel_max`` … ``rot_decel`` of 0 mean "use the value stored in the robot" (ARIA).

    Simulator error model (the manual lists AngleJitter, AngleDrift and a third, lost parameter; we
    chose DistJitter as that third one). ``angle_drift`` is systematic, as the manual describes it:
    degrees of heading error per mm driven. The other two are standard deviations of zero-mean errors:
    ``angle_jitter`` degrees of heading error per degree turned, ``dist_jitter`` mm of distance error
    per mm driven (a fraction). See :mod:`saphira.sim.sensors` for how the simulator applies them.
    """

    name: str = "Pioneer"
    robot_class: str = "Pioneer"
    subclass: str = "pion1"
    angle_conv_factor: float = 0.0061359
    dist_conv_factor: float = 0.05066
    vel_conv_factor: float = 2.5332
    range_conv_factor: float = 0.1734
    diff_conv_factor: float = 0.00333
    vel2_divisor: float = 4.0
    robot_radius: float = 220.0
    robot_diagonal: float = 90.0
    robot_width: float = 400.0
    robot_length: float = 500.0
    robot_length_front: float = 250.0
    robot_length_rear: float = 250.0
    holonomic: bool = True
    max_velocity: float = 400.0
    max_rvelocity: float = 100.0
    max_acceleration: float = 300.0
    trans_vel_max: int = 400
    rot_vel_max: int = 100
    trans_accel: int = 0
    trans_decel: int = 0
    rot_accel: int = 0
    rot_decel: int = 0
    has_move_command: bool = False
    settable_accs_decs: bool = False
    switch_to_baud_rate: int = 0
    request_io_packets: bool = False
    request_encoder_packets: bool = False
    sonar_units: tuple[SonarUnit, ...] = PIONEER1_SONARS
    front_buffer: int = 20
    side_buffer: int = 40
    angle_jitter: float = 0.01
    angle_drift: float = 0.003
    dist_jitter: float = 0.01
    source: str = DEFAULTS_SOURCE
    extra: dict[str, str] = field(default_factory=dict, hash=False)
    origins: dict[str, str] = field(default_factory=dict, hash=False, compare=False)
    """Field name -> where its value came from: ``built-in <model>``, ``model file <path>``,
    ``bundled file <path>`` (a file saphira ships, named by the user), ``user file <path>`` or
    ``file <path>``; empty for Saphira's own defaults."""
    layers: tuple[str, ...] = field(default=(), compare=False)
    """The layers applied, bottom first, in the words of :attr:`origins`."""
    warnings: tuple[str, ...] = field(default=(), compare=False)
    """Things a layer said that ARIA accepts but a person should know (``file:line: ...``)."""

    @property
    def sonar_num(self) -> int:
        return len(self.sonar_units)


_Kind = Literal["int", "float", "bool", "str"]

# File keyword -> (RobotParams field, value type). SonarNum and SonarUnit are handled apart.
_KEY_SPECS: dict[str, tuple[str, _Kind]] = {
    "Name": ("name", "str"),
    "Class": ("robot_class", "str"),
    "Subclass": ("subclass", "str"),
    "AngleConvFactor": ("angle_conv_factor", "float"),
    "DistConvFactor": ("dist_conv_factor", "float"),
    "VelConvFactor": ("vel_conv_factor", "float"),
    "RangeConvFactor": ("range_conv_factor", "float"),
    "DiffConvFactor": ("diff_conv_factor", "float"),
    "Vel2Divisor": ("vel2_divisor", "float"),
    "RobotRadius": ("robot_radius", "float"),
    "RobotDiagonal": ("robot_diagonal", "float"),
    "RobotWidth": ("robot_width", "float"),
    "RobotLength": ("robot_length", "float"),
    "RobotLengthFront": ("robot_length_front", "float"),
    "RobotLengthRear": ("robot_length_rear", "float"),
    "Holonomic": ("holonomic", "bool"),
    "MaxVelocity": ("max_velocity", "float"),
    "MaxRVelocity": ("max_rvelocity", "float"),
    "MaxAcceleration": ("max_acceleration", "float"),
    "TransVelMax": ("trans_vel_max", "int"),
    "RotVelMax": ("rot_vel_max", "int"),
    "TransAccel": ("trans_accel", "int"),
    "TransDecel": ("trans_decel", "int"),
    "RotAccel": ("rot_accel", "int"),
    "RotDecel": ("rot_decel", "int"),
    "HasMoveCommand": ("has_move_command", "bool"),
    "SettableAccsDecs": ("settable_accs_decs", "bool"),
    "SwitchToBaudRate": ("switch_to_baud_rate", "int"),
    "RequestIOPackets": ("request_io_packets", "bool"),
    "RequestEncoderPackets": ("request_encoder_packets", "bool"),
    "FrontBuffer": ("front_buffer", "int"),
    "SideBuffer": ("side_buffer", "int"),
    "AngleJitter": ("angle_jitter", "float"),
    "AngleDrift": ("angle_drift", "float"),
    "DistJitter": ("dist_jitter", "float"),
}
_KEYS = {key.lower(): spec for key, spec in _KEY_SPECS.items()}

_LENGTH = (0.0, 20_000.0, "a length in mm")
_FACTOR = (0.0, 1000.0, "a conversion factor")
_SPEED = (0.0, 100_000.0, "a speed or acceleration")
_COMMAND = (0.0, 32_767.0, "a value the robot takes in a 16-bit command argument, 0 for the robot's own")
# Field -> (low, high, what it is): a value outside the range (or not finite) is refused at its line,
# since the robot's outline, conversions and simulator would otherwise fail far from the file.
# Sizes, factors and divisors must be above ``low``; the rest may equal it.
_RANGES: dict[str, tuple[float, float, str]] = {
    "robot_radius": _LENGTH, "robot_diagonal": _LENGTH, "robot_width": _LENGTH, "robot_length": _LENGTH,
    "robot_length_front": _LENGTH, "robot_length_rear": _LENGTH,
    "angle_conv_factor": _FACTOR, "dist_conv_factor": _FACTOR, "vel_conv_factor": _FACTOR,
    "range_conv_factor": _FACTOR, "diff_conv_factor": _FACTOR, "vel2_divisor": _FACTOR,
    "max_velocity": _SPEED, "max_rvelocity": _SPEED, "max_acceleration": _SPEED,
    "trans_vel_max": _COMMAND, "rot_vel_max": _COMMAND, "trans_accel": _COMMAND, "trans_decel": _COMMAND,
    "rot_accel": _COMMAND, "rot_decel": _COMMAND,
    "switch_to_baud_rate": (0.0, 10_000_000.0, "a baud rate, 0 for none"),
    "front_buffer": (0.0, 20_000.0, "a distance in mm"), "side_buffer": (0.0, 20_000.0, "a distance in mm"),
    "angle_jitter": (0.0, 10.0, "a standard deviation"), "dist_jitter": (0.0, 10.0, "a standard deviation"),
    "angle_drift": (-10.0, 10.0, "degrees per mm"),
}  # fmt: skip
_POSITIVE = {"robot_radius", "robot_diagonal", "robot_width", "robot_length", "vel2_divisor"} | {
    name for name, (_, _, what) in _RANGES.items() if what == "a conversion factor"
}

_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_BOOLS = {"0": False, "1": True, "false": False, "true": True}
_TOKEN = re.compile(r"\S+")


@dataclass
class _Line:
    """One non-blank line: its position, text and tokens (each with its 1-based column)."""

    source: str
    number: int
    text: str
    tokens: list[tuple[str, int]]

    def error(self, message: str, token: int | None = None) -> ParamsError:
        column = self.tokens[token][1] if token is not None and token < len(self.tokens) else 0
        return ParamsError(message, SourcePosition(self.source, self.number, column), self.text)


def _convert(line: _Line, token: int, kind: _Kind) -> int | float | bool | str:
    """The value of ``line``'s token ``token`` as ``kind``; ParamsError naming the key otherwise."""
    key, text = line.tokens[0][0], line.tokens[token][0]
    if kind == "str":
        return text
    if kind == "bool":
        if text.lower() in _BOOLS:
            return _BOOLS[text.lower()]
        raise line.error(f"{key}: {text!r} is not a boolean (use 0, 1, true or false)", token)
    if kind == "int":
        if _INT.fullmatch(text):
            value = bounded_int(text)
            if value is None:
                raise line.error(f"{key}: {quoted(text)} is out of range (more than 18 digits)", token)
            return value
        if _FLOAT.fullmatch(text):
            why = "integer parameters take no decimal point"
            raise line.error(f"{key}: {text!r} is not an integer ({why})", token)
        raise line.error(f"{key}: {text!r} is not an integer", token)
    if _FLOAT.fullmatch(text):
        number = float(text)
        if not math.isfinite(number):
            raise line.error(f"{key}: {quoted(text)} is out of range (not a finite number)", token)
        return number
    raise line.error(f"{key}: {text!r} is not a number", token)


def _check_range(line: _Line, name: str, value: float) -> None:
    """ParamsError at the value when the physical parameter ``name`` is outside its range."""
    low, high, what = _RANGES[name]
    above = value > low if name in _POSITIVE else value >= low
    if not (above and value <= high):
        bound = "more than" if name in _POSITIVE else "at least"
        key, text = line.tokens[0][0], line.tokens[1][0]
        raise line.error(f"{key}: {quoted(text)} is out of range ({what}: {bound} {low:g} and at most {high:g})", 1)


def _sonar_unit(line: _Line) -> SonarUnit:
    if len(line.tokens) < 5:
        got = len(line.tokens) - 1
        raise line.error(f"SonarUnit needs 4 values (n x y th), got {got}", len(line.tokens) - 1 or None)
    index = _convert(line, 1, "int")
    assert isinstance(index, int)
    if index < 0:
        raise line.error(f"SonarUnit index {index} out of range (must be 0 or more)", 1)
    x, y, th = (float(_convert(line, i, "float")) for i in (2, 3, 4))
    for token, value in ((2, x), (3, y)):
        if abs(value) > MAX_SONAR_OFFSET:
            raise line.error(f"SonarUnit {index}: {quoted(line.tokens[token][0])} is out of range "
                             f"(a position in mm, at most {MAX_SONAR_OFFSET:g} from the centre)", token)  # fmt: skip
    return SonarUnit(index, x, y, th, tuple(text for text, _ in line.tokens[5:]))


_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")


def _lines(text: str, source: str) -> list[_Line]:
    """Non-blank, comment-stripped lines; ``;`` and ``#`` start a comment anywhere.

    A control character (other than tab, CR, LF, VT, FF) means the file is not text: ParamsError
    naming its line, column and byte, before any of it is taken for a key.
    """
    result = []
    for number, raw in enumerate(text.splitlines(), 1):
        bad = _CONTROL.search(raw)
        if bad:
            position = SourcePosition(source, number, bad.start() + 1)
            message = f"not a text file: byte 0x{ord(bad.group()):02x} (a parameter file is lines of 'Key value')"
            raise ParamsError(message, position)
        code = re.split(r"[;#]", raw, maxsplit=1)[0]
        tokens = [(m.group(), m.start() + 1) for m in _TOKEN.finditer(code)]
        if tokens:
            result.append(_Line(source, number, raw, tokens))
    return result


@dataclass
class ParamsLayer:
    """What one parameter file says, before it is laid over anything: only the keys it gives.

    ``values`` maps :class:`RobotParams` field names to values; ``sonar_num`` is the ``SonarNum``
    line's count (None when absent) and ``units`` the ``SonarUnit`` lines by index.
    """

    source: str
    values: dict[str, Any] = field(default_factory=dict)
    sonar_num: int | None = None
    sonar_num_line: int = 0
    units: dict[int, SonarUnit] = field(default_factory=dict)
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def model(self) -> str:
        """The robot model the file is for (its ``Subclass``), or ``""``."""
        return str(self.values.get("subclass", ""))


def _check_sonars(units: dict[int, tuple[SonarUnit, _Line]], sonar_num: tuple[int, _Line] | None) -> None:
    """SonarUnit indices must be below SonarNum (or, with no SonarNum, run 0..N-1 for N lines)."""
    count = sonar_num[0] if sonar_num else len(units)
    for unit, line in units.values():
        if unit.index >= count:
            stated = f"SonarNum {count}" if sonar_num else f"{count} SonarUnit lines"
            raise line.error(f"SonarUnit index {unit.index} out of range 0..{count - 1} ({stated})", 1)


def read_layer(text: str, source: str) -> ParamsLayer:
    """Parse the text of a parameter file into a :class:`ParamsLayer`; ParamsError if malformed.

    A file with no line this module recognises (no parameter key, SonarNum or SonarUnit) is an
    error naming its first line: it is not a parameter file, whatever its name says.
    """
    layer = ParamsLayer(source)
    units: dict[int, tuple[SonarUnit, _Line]] = {}
    sonar_num: tuple[int, _Line] | None = None
    section = ""
    lines = _lines(text.removeprefix("\ufeff"), source)
    recognised = 0
    for line in lines:
        key = line.tokens[0][0]
        lowered = key.lower()
        if lowered == "configversion":
            continue
        if lowered == "section":
            section = " ".join(text for text, _ in line.tokens[1:])
            continue
        if lowered == "sonarunit":
            unit = _sonar_unit(line)
            if unit.index in units:
                first = units[unit.index][1].number
                raise line.error(f"SonarUnit {unit.index} given twice (first on line {first})", 1)
            units[unit.index] = (unit, line)
            recognised += 1
            continue
        spec = _KEYS.get(lowered)
        if spec is None and lowered != "sonarnum":
            # Keys repeated in later ARIA sections (Laser 2, PTZ 2, ...) are qualified by the section.
            name = key if key not in layer.extra else f"{section}/{key}"
            layer.extra[name] = " ".join(text for text, _ in line.tokens[1:])
            continue
        recognised += 1
        if len(line.tokens) != 2:
            if len(line.tokens) == 1:
                raise line.error(f"{key} needs a value")
            raise line.error(f"{key} takes one value, got {len(line.tokens) - 1}", 2)
        if spec is None:
            count = _convert(line, 1, "int")
            assert isinstance(count, int)
            if count < 0:
                raise line.error(f"{key}: {count} is negative", 1)
            if count > MAX_SONARS:
                raise line.error(f"{key}: {count} is out of range (at most {MAX_SONARS} sonars)", 1)
            sonar_num = (count, line)
        else:
            value = _convert(line, 1, spec[1])
            if spec[0] in _RANGES:
                assert isinstance(value, int | float)
                _check_range(line, spec[0], value)
            layer.values[spec[0]] = value
    if not recognised:
        head = lines[0] if lines else None
        where = SourcePosition(source, head.number if head else 1, 1 if head else 0)
        what = "holds no robot parameter" if lines else "is empty"
        raise ParamsError(
            f"not a robot parameter file: it {what} (no Class, Subclass, ...ConvFactor, SonarNum or SonarUnit line)",
            where,
            head.text if head else None,
        )
    if units or sonar_num:
        _check_sonars(units, sonar_num)
        layer.units = {index: unit for index, (unit, _) in units.items()}
        if sonar_num:
            layer.sonar_num, layer.sonar_num_line = sonar_num[0], sonar_num[1].number
    return layer


def _layer_sonars(base: RobotParams, layer: ParamsLayer) -> tuple[tuple[SonarUnit, ...], list[str]]:
    """The sonar ring after ``layer``: its count, its units, the base's for any it leaves out."""
    count = layer.sonar_num if layer.sonar_num is not None else len(layer.units)
    below = {unit.index: unit for unit in base.sonar_units}
    ring: list[SonarUnit] = []
    kept: list[int] = []
    for index in range(count):
        if index in layer.units:
            ring.append(layer.units[index])
        else:
            kept.append(index)
            ring.append(below.get(index, SonarUnit(index, 0.0, 0.0, 0.0)))
    warnings = []
    if kept:
        which = _ranges(kept)
        placed = [i for i in kept if i in below]
        below_name = base.layers[-1] if base.layers else "Saphira's defaults"
        fate = (
            f"kept from {below_name}"
            if len(placed) == len(kept)
            else "placed at the robot's centre, facing forward, as ARIA does"
        )
        warnings.append(
            f"{layer.source}:{layer.sonar_num_line}: SonarNum is {count} but {len(layer.units)} SonarUnit lines "
            f"are given (missing {which}); {'that sonar is' if len(kept) == 1 else 'those sonars are'} {fate}"
        )
    return tuple(ring), warnings


def _ranges(indices: list[int]) -> str:
    """Sorted indices as runs: ``0, 3-9, 12`` (a list of a million sonars would be megabytes)."""
    runs: list[list[int]] = []
    for index in indices:
        if runs and index == runs[-1][1] + 1:
            runs[-1][1] = index
        else:
            runs.append([index, index])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


_warned: set[str] = set()


def _warn_once(message: str) -> None:
    """Log a layering warning the first time this process meets it.

    The embedded simulator and the client lay the same file over the same model, and a reconnect
    lays it again; the file's problem is one problem. :attr:`RobotParams.warnings` keeps every one.
    """
    if message not in _warned:
        _warned.add(message)
        log.warning("%s", message)


def apply_layer(base: RobotParams, layer: ParamsLayer, origin: str) -> RobotParams:
    """``base`` with everything ``layer`` gives laid over it; ``origin`` names the layer in :attr:`origins`."""
    values: dict[str, Any] = dict(layer.values)
    origins = dict(base.origins)
    origins.update(dict.fromkeys(layer.values, origin))
    warnings = list(base.warnings)
    if layer.sonar_num is not None or layer.units:
        values["sonar_units"], found = _layer_sonars(base, layer)
        origins["sonar_units"] = origin
        warnings += found
        for message in found:
            _warn_once(message)
    extra = {**base.extra, **layer.extra}
    return dataclasses.replace(
        base, **values, source=layer.source, extra=extra, origins=origins,
        layers=(*base.layers, origin), warnings=tuple(warnings),
    )  # fmt: skip


def _halve_lengths(params: RobotParams) -> RobotParams:
    """ARIA: a front or rear length of 0 means half the robot's length."""
    halves: dict[str, Any] = {
        name: params.robot_length / 2
        for name in ("robot_length_front", "robot_length_rear")
        if getattr(params, name) == 0
    }
    return dataclasses.replace(params, **halves) if halves else params


def parse_params(text: str, source: str) -> RobotParams:
    """Parse the text of a parameter file over Saphira's built-in Pioneer 1 defaults."""
    return _halve_lengths(apply_layer(RobotParams(), read_layer(text, source), f"file {source}"))


def _read_text(path: str | Path) -> str:
    return _decoded(read_input(path, what="parameter file", limit=MAX_PARAMS_BYTES, error=ParamsError))


def _decoded(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")  # old Saphira files may have 8-bit comments


def load_layer(path: str | Path) -> ParamsLayer:
    """Read one parameter file as a :class:`ParamsLayer`; ParamsError (``file:line: ...``) if bad."""
    return read_layer(_read_text(path), str(path))


def load_params(path: str | Path) -> RobotParams:
    """Read and parse one parameter file over Saphira's Pioneer 1 defaults; ParamsError if bad."""
    return parse_params(_read_text(path), str(path))


def _search_path(search_dirs: Sequence[Path] | None) -> list[Path]:
    """User directories ($SAPHIRA_PARAMS, then ``search_dirs``), then the bundled params folder."""
    dirs = [Path(entry) for entry in os.environ.get(PARAMS_ENV, "").split(os.pathsep) if entry]
    dirs += [Path(entry) for entry in search_dirs or ()]
    with contextlib.suppress(FileNotFoundError):
        dirs.append(data_dir("params"))
    return dirs


def _params_files(directory: Path) -> list[Path]:
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.iterdir() if p.suffix.lower() == ".p" and p.is_file())


def _find_bare(name: str, dirs: Sequence[Path]) -> Path | None:
    """First ``<name>.p`` (case-insensitive) in ``dirs``; None for names that are paths or empty."""
    stem = name.strip().lower()
    stem = stem.removesuffix(".p")
    if not stem or "/" in stem or os.sep in stem or (os.altsep and os.altsep in stem):
        return None
    for directory in dirs:
        for path in _params_files(directory):
            if path.name.lower() == f"{stem}.p":
                return path
    return None


def find_params_file(name: str, search_dirs: Sequence[Path] | None = None) -> Path:
    """Path of an existing file, or of the first ``<name>.p`` in the user dirs and then the bundled ones."""
    if Path(name).expanduser().is_file():
        return Path(name).expanduser()
    dirs = _search_path(search_dirs)
    found = _find_bare(name, dirs)
    if found is not None:
        return found
    available = sorted({p.stem.lower() for d in dirs for p in _params_files(d)})
    raise ParamsNotFoundError(
        f"no parameter file {name!r}: looked in {', '.join(str(d) for d in dirs) or 'nothing'}; "
        f"available: {', '.join(available) or 'none'}"
    )


def resolve_params(
    model: str,
    *,
    user_file: str | Path | None = None,
    search_dirs: Sequence[Path] | None = None,
    robot_class: str = "",
) -> RobotParams:
    """Parameters the ARIA way: built-in defaults of ``model``, its own file, then ``user_file``.

    ``model`` is a subclass (``p3dx``, ``amigo``; compared lower-cased). Its built-in defaults come
    from :mod:`saphira.params.robot_models` (ARIA's generic robot when the model is unknown); its own file
    is the first ``<model>.p`` in ``$SAPHIRA_PARAMS``, ``search_dirs`` and the bundled folder (a
    Saphira-era robot that reports no subclass is looked up by its class instead); ``user_file`` is a
    path or a bare name found the same way. Raises ParamsError for a bad file, ParamsNotFoundError
    for a user file that does not exist.
    """
    from saphira.params.robot_models import builtin_params

    params = builtin_params(model or robot_class)
    dirs = _search_path(search_dirs)
    user_path = find_params_file(str(user_file), search_dirs) if user_file is not None else None
    model_path = _find_bare(model or robot_class, dirs)
    if model_path is not None and (user_path is None or not _same_file(model_path, user_path)):
        params = apply_layer(params, load_layer(model_path), f"model file {model_path}")
    if user_path is not None:
        params = apply_layer(params, load_layer(user_path), _named_file(user_path))
    return _halve_lengths(params)


def _named_file(path: Path) -> str:
    """The layer's words for a file the user named: ``bundled file`` when saphira ships it, else ``user file``."""
    try:
        bundled = path.resolve().parent == data_dir("params").resolve()
    except FileNotFoundError:  # no bundled folder at all
        bundled = False
    return f"{'bundled' if bundled else 'user'} file {path}"


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)
    except OSError:
        return False


def params_for_file(name: str | Path, search_dirs: Sequence[Path] | None = None) -> RobotParams:
    """The robot a parameter file describes (the simulator's view): its model's, resolved.

    The model is the file's ``Subclass``; a file that names none is read over Saphira's built-in
    Pioneer 1 (:func:`load_params`), as Saphira read its files. A bare name that is no file but a
    model saphira knows built in (``amigo``, ``seekur``) gives that model's parameters.
    """
    try:
        path = find_params_file(str(name), search_dirs)
    except ParamsNotFoundError:
        from saphira.params.robot_models import model_values

        if model_values(str(name))[0] == "generic":
            raise
        return resolve_params(str(name).strip(), search_dirs=search_dirs)
    layer = load_layer(path)
    if not layer.model:
        return _halve_lengths(apply_layer(RobotParams(), layer, _named_file(path)))
    return resolve_params(layer.model, user_file=path, search_dirs=search_dirs)


def params_for_data(data: bytes, source: str, search_dirs: Sequence[Path] | None = None) -> RobotParams:
    """:func:`params_for_file` for a file's bytes read already (the simulator window's Files→Load Params
    reads a file under ``--params-dir`` once, without following links): read over its model's
    parameters (``Subclass``), or over Saphira's Pioneer 1 when it names none."""
    layer = read_layer(_decoded(data), source)
    origin = f"user file {source}"
    if not layer.model:
        return _halve_lengths(apply_layer(RobotParams(), layer, origin))
    from saphira.params.robot_models import builtin_params

    params = builtin_params(layer.model)
    model_path = _find_bare(layer.model, _search_path(search_dirs))
    if model_path is not None:
        params = apply_layer(params, load_layer(model_path), f"model file {model_path}")
    return _halve_lengths(apply_layer(params, layer, origin))


def params_for_robot(
    name: str,
    robot_class: str,
    subclass: str,
    search_dirs: Sequence[Path] | None = None,
    *,
    user_file: str | Path | None = None,
) -> RobotParams:
    """Parameters for a connected robot: the model its SYNC2 subclass names, resolved (:func:`resolve_params`).

    ``name`` is not used for the lookup: simulators report generic names ("Pioneer", "AMRISim")
    that would pick an unrelated file.
    """
    del name
    return resolve_params(subclass.strip(), user_file=user_file, search_dirs=search_dirs, robot_class=robot_class)


def bundled_params() -> list[str]:
    """Names (without ``.p``) of the parameter files that ship with saphira."""
    try:
        directory = data_dir("params")
    except FileNotFoundError:
        return []
    return [path.stem for path in _params_files(directory)]


def check_params_file(name: str | Path, search_dirs: Sequence[Path] | None = None) -> Path | None:
    """The path of a user's parameter file, after checking that it reads as one (ParamsError if not).

    None for a bare name that is no file but a built-in model (``amigo``): it names a robot for the
    simulator, and a connected robot's model is the one it reports.
    """
    try:
        path = find_params_file(str(name), search_dirs)
    except ParamsNotFoundError:
        params_for_file(name, search_dirs)  # a built-in model name, or the not-found error
        return None
    load_layer(path)
    return path
