"""Seeded fuzzing of every file reader (issue 24 item 3): mutated files give a clean load or a
:class:`SaphiraError` that names the file (a ``file:line:col`` :class:`SourceError` where it can),
never another exception, within a bounded time.

To fuzz another reader, add one entry to :data:`READERS`: a suffix, a valid file and the public call
that reads a path.
"""

from __future__ import annotations

import os
import random
import re
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

import pytest

from saphira.app.batch.experiment import load_experiment
from saphira.app.check import compile_files
from saphira.client.artifacts import PointList
from saphira.colbert.evaluator import Evaluator
from saphira.core.errors import SaphiraError, SourceError
from saphira.params.robot_params import load_params
from saphira.perception.mapfile import load_map_file
from saphira.record.recording import replay
from saphira.robot import Robot
from saphira.world.flat_world import load_world_file
from saphira.world.world import load_world
from tests.realtime import WAIT

SEED = 24
CASE_SECONDS = WAIT
"""A reader that takes longer on one mutant fails (the review saw hangs of minutes)."""

HALL = "width 4000\nheight 4000\n0 0 4000 0\n0 4000 4000 4000\n"

ACT = """int n;
float vel;
act go(int k) {
  n = k * 2 + 0x1f - 017;
  vel = 300.5 / 2 + 1e3 * 0.25f;
  if (n > 3 && vel >= 0.5) { sfSMessage("%d %5.1f %s", n, vel, "ok"); }
  waitfor n > 0 timeout 10;
}
start go(3);
n = n + 1;  /* one more */
"""
"""A valid Colbert file; the repeated last line takes ``many-lines`` past the size limit."""

BEH = """BeginBehavior cruise
Params
  sfFLOAT velocity
Rules
  "Go" If Not (slow Or 0.25) Then Speed velocity
  "Turn" If slow And 0.5 Then Turn Left Sharply
  "Slow" If slow Then Speed 250.5
Init
  float limit = 300.0;
Update
  slow = down_straight(sfTargetVel(), 100, 2 * limit);
Activity
  Speed 1.0
  Turn 0.5
EndBehavior
"""


def _check_colbert(path: Path) -> None:
    """``saphira check``'s reading of ``path`` (the first error raised), then loading it into an evaluator."""
    errors = compile_files([path], output=lambda line: None)
    if errors:
        raise errors[0]
    evaluator = Evaluator(Robot(), output=lambda line: None, read_init=False)
    evaluator.load(path)


@dataclass(frozen=True)
class Reader:
    """A reader under test: its files' suffix, one valid file, the call that reads a path, and any
    files the valid one refers to (written beside it)."""

    suffix: str
    valid: str
    read: Callable[[Path], object]
    beside: dict[str, str] = field(default_factory=dict)


READERS: dict[str, Reader] = {
    "params": Reader(".p", "Class Pioneer\nSubclass p3dx\nRobotRadius 250\nSonarNum 2\nSonarUnit 0 1 2 90\n"
                     "SonarUnit 1 3 4 -90\nSwitchToBaudRate 38400 ; comment\n", load_params),
    "wld": Reader(".wld", "width 5000\nheight 4000 ; mm\npush 1000 1000 90\n0 0 1000 0\nbox 500 500 200 200 red\n"
                  "pop\nposition 2000 2000 45\n", load_world),
    "ariamap": Reader(".map", "2D-Map\nNumLines: 2\nNumPoints: 1\nCairn: RobotHome 100 200 90 \"\" ICON \"h\"\n"
                      "LINES\n0 0 1000 0\n0 0 0 1000\nDATA\n500 500\n", load_world),
    "smap": Reader(".smap", "; map\nCORRIDOR (1) 0 0 0 1000 800\nDOOR (2) 500 400 90 900\nWALL 0 -400 0 3000\n",
                   lambda path: load_map_file(PointList(), path)),
    "flatworld": Reader(".world", "# w\nWORLD W a.wld\nMAP a.wld\nTRANSITION (1000 1000 500) b.wld (1 2 3)\n"
                        "MAP b.wld\nTRANSITION (2000 2000 300 go) a.wld\n", load_world_file,
                        {"a.wld": HALL, "b.wld": HALL}),
    "recording": Reader(".rec", "# saphira recording 2\n# robot tcp://127.0.0.1:8101\n0 > FAFB0300000000\n"
                        "1 < FAFB0332000032\n2 = 0.0 0.0 0.0 0.0 0.0 13.0 0\n# end 3 events, cycle 3\n", replay),
    "experiment": Reader(".toml", '[run]\nactivity = "go.act"\nworld = "room"\nduration = 30\nseeds = [0, 1]\n'
                         'start = [1000.0, 2000.0, 90]\n[grid]\nspeed = [100.0, 200.5]\n'
                         '[sample]\ncount = 2\ngain = { min = 0.5, max = 1.5 }\n'
                         '[metrics]\nobjective = "distance"\nat_most = { contacts = 0 }\n', load_experiment,
                         {"go.act": "float speed;\nfloat gain;\nact go { speed(speed); }\nstart go;\n"}),
    "act": Reader(".act", ACT, _check_colbert),
    "beh": Reader(".beh", BEH, _check_colbert),
}  # fmt: skip

_NUMBER = re.compile(rb"(?<![\w.])[+-]?\d+(?:\.\d*)?(?![\w.])")
HUGE = [b"1e308", b"1e309", b"-1e400", b"9" * 5000, b"1e-400", b"nan", b"inf", b"-inf"]


def _replace_number(data: bytes, rng: random.Random, by: bytes) -> bytes:
    found = list(_NUMBER.finditer(data))
    if not found:
        return data + by
    hit = rng.choice(found)
    return data[: hit.start()] + by + data[hit.end() :]


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


# Each mutation: (name, function of the valid bytes and the generator) -> the mutant's bytes.
MUTATIONS: list[tuple[str, Callable[[bytes, random.Random], bytes]]] = [
    ("empty", lambda d, r: b""),
    *[(f"truncated-{i}", lambda d, r: d[: r.randrange(1, len(d))]) for i in range(3)],
    ("binary", lambda d, r: r.randbytes(4096)),
    ("header+binary", lambda d, r: _lines(d)[0] + b"\n" + r.randbytes(4096)),
    ("nul", lambda d, r: d[: len(d) // 2] + b"\0" + d[len(d) // 2 :]),
    ("utf-16", lambda d, r: d.decode().encode("utf-16")),
    ("invalid-utf-8", lambda d, r: d[: len(d) // 2] + b"\xff\xc3(" + d[len(d) // 2 :]),
    *[(f"number-{n[:8].decode()}", lambda d, r, n=n: _replace_number(d, r, n)) for n in HUGE],
    ("deep-nesting", lambda d, r: b"(" * 100_000 + d + b")" * 100_000 + b"\n" + b"[" * 100_000 + b"\n"),
    ("many-lines", lambda d, r: b"\n".join([*_lines(d)[:-1], *[_lines(d)[-2]] * 20_000, b""])),
    ("many-comments", lambda d, r: d + b"; #\n" * 20_000),
    ("long-line", lambda d, r: d + b"x" * 2_000_000 + b"\n"),
    ("cr-only", lambda d, r: d.replace(b"\n", b"\r")),
    ("crlf", lambda d, r: d.replace(b"\n", b"\r\n")),
    ("escapes", lambda d, r: d.replace(b"\n", b" \x1b]0;T\x07\x1b[31m\n", 3)),
    ("shuffled", lambda d, r: b"\n".join(r.sample(_lines(d), len(_lines(d))))),
    ("bit-flips", lambda d, r: bytes(b ^ (1 << r.randrange(8)) if r.random() < 0.05 else b for b in d)),
]

SPECIAL = ["directory", "fifo", "char-device", "missing", "sparse-10GB"]


class _TooSlow(Exception):
    pass


@contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """Raise :class:`_TooSlow` in this (main) thread after ``seconds``: a hanging reader fails, it does not hang."""

    def expire(signum: int, frame: FrameType | None) -> None:
        raise _TooSlow(f"more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _special(kind: str, path: Path) -> Path:
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "char-device":
        return Path("/dev/zero")
    elif kind == "sparse-10GB":
        with path.open("wb") as handle:
            handle.truncate(10 * 1024**3)
    return path


def _check(reader: Reader, path: Path, case: str) -> str:
    """Read ``path``; the outcome ("ok" or the error's class), failing the test on anything else."""
    try:
        with _deadline(CASE_SECONDS):
            reader.read(path)
    except SourceError as exc:
        assert exc.file == str(path) or exc.file.startswith(str(path.parent)), f"{case}: {exc}"
        assert exc.line >= 0 and "\x1b" not in exc.pretty(), f"{case}: {exc}"
        return type(exc).__name__
    except SaphiraError as exc:
        assert str(path) in str(exc), f"{case}: the error does not name the file: {exc}"
        return type(exc).__name__
    except _TooSlow:
        pytest.fail(f"{case}: the reader took more than {CASE_SECONDS} s")
    return "ok"


@pytest.mark.parametrize("name", sorted(READERS))
def test_every_mutant_is_a_clean_load_or_a_located_error(name: str, tmp_path: Path) -> None:
    reader = READERS[name]
    rng = random.Random(f"{SEED}-{name}")
    for file, text in reader.beside.items():
        (tmp_path / file).write_text(text)
    valid = tmp_path / f"valid{reader.suffix}"
    valid.write_text(reader.valid)
    assert _check(reader, valid, "valid") == "ok"
    outcomes: dict[str, str] = {}
    start = time.perf_counter()
    for index, (mutation, mutate) in enumerate(MUTATIONS):
        path = tmp_path / f"m{index}{reader.suffix}"
        path.write_bytes(mutate(reader.valid.encode(), rng))
        outcomes[mutation] = _check(reader, path, f"{name} {mutation}")
    for kind in SPECIAL:
        path = _special(kind, tmp_path / f"{kind}{reader.suffix}")
        outcomes[kind] = _check(reader, path, f"{name} {kind}")
        assert outcomes[kind] != "ok", f"{name} {kind} was read as a file"
    assert outcomes["binary"] != "ok"
    assert time.perf_counter() - start < 60.0
