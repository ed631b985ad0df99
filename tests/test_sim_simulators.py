"""``saphira sim``'s front ends come from the ``saphira.simulators`` entry points (issue 36).

A package that declares a simulator in that group gets its options on ``saphira sim``, its misuse checked and
its server run when ``--NAME PORT`` chooses it, with no edit of ``saphira/app/sim.py``; a declared module that
cannot be imported is reported and left out. The package here is a real distribution (a ``.dist-info``
folder on the path, as pip installs one), found through ``importlib.metadata``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from saphira.app import sim as standalone
from saphira.app.simulators import front_ends

TOY = '''\
"""A third-party simulator front end: ``saphira sim --toy PORT``."""
import argparse


def add_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("Toy protocol")
    group.add_argument("--toy", type=int, metavar="PORT", help="serve the toy protocol on PORT")
    group.add_argument("--toy-colour", metavar="C", help="the toy's colour")


def check(args: argparse.Namespace) -> str | None:
    if args.toy is None and args.toy_colour is not None:
        return "--toy-colour needs --toy PORT"
    return None


def serve(args: argparse.Namespace) -> int:
    print(f"toy served on {args.host}:{args.toy} in {args.toy_colour or 'grey'}")
    return 7
'''


def _install(site: Path) -> None:
    """A distribution declaring two simulators: ``toy`` and ``broken`` (whose module does not exist)."""
    (site / "toy_sim.py").write_text(TOY, encoding="utf-8")
    info = site / "toy_sim-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-sim\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[saphira.simulators]\ntoy = toy_sim\nbroken = no_such_module_here\n", encoding="utf-8"
    )


@pytest.fixture
def toy_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The toy distribution on ``sys.path``, found afresh by the entry-point lookup, and forgotten after."""
    _install(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    front_ends.cache_clear()
    yield
    front_ends.cache_clear()
    sys.modules.pop("toy_sim", None)


def _call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = standalone.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.usefixtures("toy_installed")
def test_a_declared_simulator_is_offered_checked_and_served_by_saphira_sim(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _call(capsys, "--toy", "0", "--toy-colour", "red", "-q")
    assert (status, out) == (7, "toy served on 127.0.0.1:0 in red\n")
    assert "the simulator 'broken' (no_such_module_here) cannot be loaded: No module named" in err
    help_text = " ".join(standalone.build_parser().format_help().split())
    assert "Toy protocol: --toy PORT serve the toy protocol on PORT" in help_text
    assert "--flat PORT" in help_text and "--gamebots PORT" in help_text  # the project's own stay
    status, _, err = _call(capsys, "--toy-colour", "red")
    assert status == 2 and "saphira sim: --toy-colour needs --toy PORT" in err
    status, _, err = _call(capsys, "--flat", "0", "--toy", "0")
    assert status == 2 and "saphira sim: --flat and --toy exclude each other: one simulator speaks one protocol" in err
