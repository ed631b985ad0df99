"""``saphira batch`` reuses a row only while what decided it is unchanged.

A trial's identity covers the activity and every file it loads (nested ``load``, plugins), the world
and parameter files, the metrics hook and the saphira version: editing any of them and running the
same command again reruns the trials it decides; the old rows stay in ``trials.csv`` but leave the summary.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from saphira.app.batch.experiment import load_experiment
from saphira.app.cli import main

MAIN = """load "sub.act";
act Drive
{
  start sfConstantVelocity(cruise) priority 0 noblock;
  waitfor 0;
}
start Drive;
"""
SUB = 'load "extra.py";\nfloat cruise;\ncruise = {speed};\n'
PLUGIN = "SCALE = {scale}\n\ndef load_init(env):\n    env.add_function('scale', lambda: SCALE, 'float', ())\n"


def _folder(tmp_path: Path) -> Path:
    (tmp_path / "main.act").write_text(MAIN)
    (tmp_path / "sub.act").write_text(SUB.format(speed="300.0"))
    (tmp_path / "extra.py").write_text(PLUGIN.format(scale=1.0))
    exp = tmp_path / "exp.toml"
    exp.write_text('[run]\nactivity = "main.act"\nworld = "room"\nduration = 3\nseeds = 2\n')
    return exp


def _run(exp: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["batch", str(exp), "--out", str(exp.parent / "out"), "--serial", "--no-plots", "-q"]) == 0
    return capsys.readouterr().out


def _rows(name: str, exp: Path) -> list[dict[str, str]]:
    with (exp.parent / "out" / name).open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def test_editing_a_file_the_activity_loads_reruns_its_trials_and_the_summary_has_only_the_new_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    exp = _folder(tmp_path)
    assert "running 2 serially" in _run(exp, capsys)
    first = _rows("trials.csv", exp)
    assert {r["inputs"].split("=")[0] for r in first} == {"extra.py"}  # each row lists what its trial loaded
    assert "main.act=" in first[0]["inputs"] and "sub.act=" in first[0]["inputs"]
    assert "2 already in" in _run(exp, capsys)  # nothing changed: nothing reruns

    (tmp_path / "sub.act").write_text(SUB.format(speed="150.0"))  # a nested load: the ids cannot know
    printed = _run(exp, capsys)
    assert "running 2 serially" in printed and "already in" not in printed
    rows = _rows("trials.csv", exp)
    assert len(rows) == 4  # the stale rows stay in the file
    old, new = float(rows[0]["distance"]), float(rows[2]["distance"])
    assert rows[0]["trial"] == rows[2]["trial"] and new < 0.7 * old
    (summary,) = _rows("summary.csv", exp)
    assert summary["trials"] == "2" and float(summary["distance_mean"]) == pytest.approx(new, rel=1e-3)

    (tmp_path / "extra.py").write_text(PLUGIN.format(scale=2.0))  # a plugin loaded by the nested file
    assert "running 2 serially" in _run(exp, capsys)
    (tmp_path / "main.act").write_text(MAIN + "/* an edit */\n")  # the activity itself: new ids
    assert "running 2 serially" in _run(exp, capsys)
    rows = _rows("trials.csv", exp)
    assert len(rows) == 8 and len({r["trial"] for r in rows}) == 4
    assert _rows("summary.csv", exp)[0]["trials"] == "2"


def test_trial_ids_change_with_the_world_params_and_hook_files_and_the_saphira_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import saphira

    exp = _folder(tmp_path)
    root = Path(saphira.__file__).parents[1]
    (tmp_path / "w.wld").write_text("width 5000\nheight 5000\n0 0 5000 0\n")
    (tmp_path / "r.p").write_text((root / "params" / "p3dx.p").read_text())
    (tmp_path / "hook.py").write_text("def f(trial):\n    return {}\n")
    exp.write_text('[run]\nactivity = "main.act"\nworld = "w.wld"\nparams = "r.p"\nduration = 3\nseeds = 2\n'
                   '[metrics]\nhook = "hook.py:f"\n')  # fmt: skip

    def ids() -> list[str]:
        return [t.trial_id for t in load_experiment(exp).trials()]

    seen = [ids()]
    assert ids() == seen[0]
    for name, edit in (("w.wld", "1000 0 1000 3000\n"), ("r.p", "; a comment\n"), ("hook.py", "# edited\n")):
        with (tmp_path / name).open("a") as f:
            f.write(edit)
        seen.append(ids())
    monkeypatch.setattr(saphira, "__version__", "99.0")
    seen.append(ids())
    assert len({tuple(s) for s in seen}) == 5, "every edit gave new ids"


CACHED_ACT = """load "plug.py";
act Drive
{
  start sfConstantVelocity(plug_speed()) priority 0 noblock;
  waitfor 0;
}
start Drive;
"""
CACHED_PLUGIN = """import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import batch_identity_helper as helper  # noqa: E402
from saphira.world.world import load_world  # noqa: E402

EDIT = {edit}


def load_init(env):
    walls = len(load_world(os.path.join(os.path.dirname(__file__), "arena.wld")).segments)
    env.add_function("plug_speed", lambda: helper.SPEED * walls / 2, "float", ())
"""
ARENA = "width 8000\nheight 8000\n-4000 -4000 4000 -4000\n{wall}\n"


@pytest.mark.parametrize("where", [["--serial"], ["--workers", "1"]], ids=["serial", "one-worker"])
def test_a_plugin_its_import_and_its_world_rerun_their_trials_when_edited_despite_bytecode_and_caches(
    where: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Bytecode caching on, as users have it: a module run from its .pyc never opens its .py.
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    monkeypatch.setattr("sys.dont_write_bytecode", False)
    (tmp_path / "main.act").write_text(CACHED_ACT)
    (tmp_path / "plug.py").write_text(CACHED_PLUGIN.format(edit=0))
    (tmp_path / "batch_identity_helper.py").write_text("SPEED = 200.0\n")
    (tmp_path / "arena.wld").write_text(ARENA.format(wall="-4000 -4000 -4000 4000"))
    exp = tmp_path / "exp.toml"
    exp.write_text('[run]\nactivity = "main.act"\nworld = "room"\nduration = 3\nseeds = 2\n')
    out = tmp_path / "out"

    def batch() -> str:
        assert main(["batch", str(exp), "--out", str(out), *where, "--no-plots", "-q"]) == 0
        return capsys.readouterr().out

    batch()
    for row in _rows("trials.csv", exp):  # the second trial ran from bytecode and caches, yet lists them
        assert {e.split("=")[0] for e in row["inputs"].split(";")} >= {
            "plug.py", "batch_identity_helper.py", "arena.wld"
        }  # fmt: skip
    assert "2 already in" in batch()

    edits = [
        ("plug.py", CACHED_PLUGIN.format(edit=1)),
        ("batch_identity_helper.py", "SPEED = 100.0\n"),
        ("arena.wld", ARENA.format(wall="-4000 -4000 -4000 4000\n4000 -4000 4000 4000")),
    ]
    for number, (name, text) in enumerate(edits, start=1):
        (tmp_path / name).write_text(text)  # same size for the helper: only the contents tell
        printed = batch()
        assert "already in" not in printed, (name, printed)
        rows = _rows("trials.csv", exp)
        assert len(rows) == 2 * (number + 1)
        (summary,) = _rows("summary.csv", exp)
        assert summary["trials"] == "2"
        newest = [float(r["distance"]) for r in rows[-2:]]
        assert float(summary["distance_mean"]) == pytest.approx(sum(newest) / 2, rel=1e-3)
