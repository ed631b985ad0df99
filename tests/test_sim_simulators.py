"""``saphira sim``'s front ends come from the ``saphira.simulators`` entry points (issue 36).

A package that declares a simulator in that group gets its options on ``saphira sim``, its misuse checked and
its server run when ``--NAME PORT`` chooses it, with no edit of ``saphira/app/sim.py``; a declared module that
cannot be imported is reported and left out. The package here is a real distribution (a ``.dist-info``
folder on the path, as pip installs one), read by a fresh interpreter through ``importlib.metadata``.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.test_layers import run_fresh

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


def test_a_declared_simulator_is_offered_checked_and_served_by_saphira_sim(tmp_path: Path) -> None:
    _install(tmp_path)
    answer = run_fresh(
        textwrap.dedent("""\
        import contextlib, io, json
        from saphira.app import sim

        def call(*argv):
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = sim.main(list(argv))
            return [status, out.getvalue(), err.getvalue()]

        print(json.dumps({  # served first: the broken entry point is said when the options are first built
            "served": call("--toy", "0", "--toy-colour", "red", "-q"),
            "help": " ".join(sim.build_parser().format_help().split()),
            "misused": call("--toy-colour", "red"),
            "both": call("--flat", "0", "--toy", "0"),
        }))
        """),
        extra_path=tmp_path,
    )
    assert "Toy protocol: --toy PORT serve the toy protocol on PORT" in answer["help"]
    assert "--flat PORT" in answer["help"] and "--gamebots PORT" in answer["help"]  # the project's own stay
    status, out, err = answer["served"]
    assert (status, out) == (7, "toy served on 127.0.0.1:0 in red\n")
    assert "the simulator 'broken' (no_such_module_here) cannot be loaded: No module named" in err
    assert answer["misused"][0] == 2 and "saphira sim: --toy-colour needs --toy PORT" in answer["misused"][2]
    assert answer["both"][0] == 2
    assert "saphira sim: --flat and --toy exclude each other: one simulator speaks one protocol" in answer["both"][2]
