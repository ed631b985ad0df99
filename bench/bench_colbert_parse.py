"""Colbert parsing speed: lines per second for a 5,000-line file, against Python's own parser.

Run: ``python bench/bench_colbert_parse.py``. The Colbert file is the manual's example programs
(direct.act, approach, demo.act, packet.act, digest §7.15) repeated with renamed acts; the baseline is
``ast.parse`` of about as many lines of Python from the standard library, measured in the same run.
Both build a syntax tree from text. Target: at least 50,000 Colbert lines/s.
"""

from __future__ import annotations

import ast as python_ast
import inspect
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from saphira.colbert.parser import colbert_grammar, parse, parse_all_errors

TARGET_LINES = 5000
ROUNDS = 15

EXAMPLES = """\
/* direct motion examples (Listing 4.1) */
act patrol@(int a)            /* go back and forth a times; a<0 = forever */
{ while (a != 0)
  { a = a - 1;
    turnto(180); move(1000);
    turnto(0);   move(1000); } }

act square@                   /* move in a square */
{ int a;
  a = 4;
  while (a) { a = a - 1; move(1000); turn(90); } }

act aa@                       /* call them sequentially */
{ trace patrol@;
  start patrol@(4);
  start square@; }

act approach@                 /* monitoring (Listing 4.4) */
{ int x;
  start patrol@(-1) timeout 300 noblock;   /* patrol forever, but at most 30 s */
checking:
  if (sfGetTaskState("patrol@") == sfTIMEOUT || sfIsStalled()) fail;
  x = sObjInFront();                        /* distance to nearest object in front */
  if (x > 2000) goto checking;
  suspend patrol@;                          /* else its motions would conflict */
  move(x - 200);                            /* stop 20 cm short */
  succeed;
}

sfInitControlProcs();          /* behavior control */
sfInitRegistrationProcs();     /* register robot against sensed artifacts */
sfPreferredTurnDir = sfLEFTTURN;
start sfAvoidCollision(1.0, 1.0, 5.0, 100.0) iname avoid@ priority 0 noblock;
start sfKeepOff(300.0, 0.5) iname keepoff@ priority 1 noblock;
start sfConstantVelocity(200) iname cv@ priority 2 suspend noblock;

act FindAndFollow@
{ point *e;                    /* old environment */
  point *p;                    /* point to go to */
NOCORRIDOR:
  waitfor (sfCurrentEnvironment != NULL && sfCurrentEnvironment->type == CORRIDOR);
  e = sfCurrentEnvironment;
  p = sfCreateLocalPoint(10000.0, 0.0, 0.0);     /* 10 m ahead */
  sfAddPoint(p);
  start sfFollowCorridor(e, p) priority 2 iname follow noblock;
  waitfor (sfCurrentEnvironment != e || sfTaskFinished("follow"));
  remove follow;
  goto NOCORRIDOR;
oninterrupt:
  remove follow;
  suspend;
}

act BumpAndGo@                 /* recover from stalls (Pioneer) */
{ int stalled;
  update stalled = sfStalledMotor(0) || sfStalledMotor(1);
NOCONTACT:
  sfBehaviorControl = 1;       /* behaviors on */
  waitfor stalled;
  sfBehaviorControl = 0;       /* behaviors off */
  move(-200); turn(30);
  goto NOCONTACT;
}

act DoPackets@                 /* packet.act (Listing 6.13) */
{ int i; int x; int y;
  remove packets;              /* stop default packet handler */
  remove motor;                /* and default motor controller */
  waitfor sfIsConnected timeout 100;
  if (!sfIsConnected) fail;    /* no connection within 10 s */
  sfRobotComInt(sfCOMOPEN, 1);
  sfResetRobotVars();
  sfRobotCom(sfCOMPULSE);
  sfRobotComInt(sfCOMVEL, 300);
  i = 0;
  while (i < 100)
  { if (sfWaitClientPacket(1000))
    { i = i + 1;
      sfProcessClientPacket(sfReadClientByte());
      if (i % 10 == 0)
      { sfRobotCom(sfCOMPULSE);
        sfRobotComInt(sfCOMVEL, 300);
        sfSMessage("%d packets received", i);
        x = sfRobot.ax; y = sfRobot.ay;    /* implicit float->int for printing */
        sfSMessage("X: %d  Y: %d", x, y); } } }
  sfRobotComInt(sfCOMVEL, 0);
  sfDisconnectFromRobot();
}
start FindAndFollow@ suspend noblock;
start BumpAndGo@ noblock;

"""


def colbert_corpus(lines: int) -> str:
    copies = lines // EXAMPLES.count("\n") + 1
    return "".join(EXAMPLES.replace("@", str(i)) for i in range(copies))


def python_corpus(lines: int) -> str:
    """Whole standard-library modules until about ``lines`` lines of Python."""
    import argparse
    import collections
    import dataclasses
    import inspect as inspect_module
    import typing

    text = ""
    for module in (inspect_module, typing, argparse, dataclasses, collections):
        text += inspect.getsource(module) + "\n"
        if text.count("\n") >= lines:
            break
    return text


def best_seconds(function: object, text: str, clock: object = time.perf_counter) -> float:
    """The fastest of ``ROUNDS`` runs (the least disturbed by other work on the machine)."""
    times = []
    for _ in range(ROUNDS):
        start = clock()  # type: ignore[operator]
        function(text)  # type: ignore[operator]
        times.append(clock() - start)  # type: ignore[operator]
    return min(times)


def main() -> None:
    start = time.perf_counter()
    colbert_grammar()
    build = time.perf_counter() - start

    colbert = colbert_corpus(TARGET_LINES)
    python = python_corpus(TARGET_LINES)
    colbert_lines = colbert.count("\n")
    python_lines = python.count("\n")

    colbert_time = best_seconds(lambda t: parse(t, "bench.act"), colbert)
    python_time = best_seconds(python_ast.parse, python)
    colbert_cpu = best_seconds(lambda t: parse(t, "bench.act"), colbert, time.process_time)
    python_cpu = best_seconds(python_ast.parse, python, time.process_time)
    check_time = best_seconds(lambda t: parse_all_errors(t, "bench.act"), colbert)

    colbert_rate = colbert_lines / colbert_time
    python_rate = python_lines / python_time
    print(f"parser construction (once per process, Lark cache in the user cache dir): {build * 1000:.0f} ms")
    print(f"Colbert parse:    {colbert_lines} lines in {colbert_time * 1000:.1f} ms = {colbert_rate:,.0f} lines/s")
    print(f"Python ast.parse: {python_lines} lines in {python_time * 1000:.1f} ms = {python_rate:,.0f} lines/s")
    print(f"ratio Colbert/Python (lines/s): {colbert_rate / python_rate:.2f}")
    print(
        f"CPU time only: Colbert {colbert_lines / colbert_cpu:,.0f} lines/s, "
        f"Python {python_lines / python_cpu:,.0f} lines/s (less sensitive to a busy machine)"
    )
    print(f"parse_all_errors on the same (clean) file: {check_time * 1000:.1f} ms")
    print(f"target 50,000 lines/s (wall clock): {'met' if colbert_rate >= 50_000 else 'NOT met'}")


if __name__ == "__main__":
    main()
