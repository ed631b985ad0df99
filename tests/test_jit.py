"""The compiled kernels' warm-up (saphira/core/jit.py): once a session has warmed them, a run compiles nothing.

Compiling a kernel, or loading it from numba's cache, stalls the cycle that first calls it; in a run
paced by real time that is an overrun, and on the first run after an install it outlasted a
connection's handshake. So every kernel called from Python names an example of its run-time argument
types, and sessions warm them all up before their cycles start. If an example's types drift from what
the code really passes (a read-only array, an int for a float), the run compiles a second version and
these tests fail. Each runs in a fresh interpreter, so no other test's compilations hide a gap.
"""

from __future__ import annotations

import subprocess
import sys

from tests.sim_process import PROJECT

WARM_RUN = """
import argparse, sys
from saphira.app.run import Session
from saphira.app.console import Console
from saphira.core.jit import compiled_signatures, warm_up

args = argparse.Namespace(
    robot=None, world=sys.argv[1], params=None, seed=0, pose=None, files=sys.argv[2:], duration=None,
    record=None, quiet=True, realtime=False, plot=None,
)
session = Session(args, Console(quiet=True))
session.connect()
assert session.load()
warm_up()
warm = compiled_signatures()
robot = session.robot
end = robot.clock.cycles_for(60.0)
while robot.scheduler.cycle < end:
    robot.step()
print(warm, compiled_signatures())
"""


def compilations(world: str, *files: str) -> tuple[int, int]:
    """(kernel compilations after the warm-up, after a further minute of the run) in a fresh process."""
    done = subprocess.run([sys.executable, "-c", WARM_RUN, world, *files], cwd=PROJECT, capture_output=True,
                          text=True, timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    warm, after = done.stdout.split()
    return int(warm), int(after)


def test_after_the_warm_up_a_minute_of_the_demo_with_perception_compiles_no_kernel() -> None:
    warm, after = compilations("AMROffice", "colbert/demo.act")
    assert warm >= 12  # sonar, simulator, line fitting, history, EKF, blend, the obstacle clearances
    assert after == warm


def test_after_the_warm_up_a_connection_and_a_minute_with_nothing_loaded_compiles_no_kernel() -> None:
    warm, after = compilations("simple")
    assert warm > 0
    assert after == warm
