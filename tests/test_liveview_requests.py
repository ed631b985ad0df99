"""The robot view's requests are checked where they arrive, as the sim and replay views' are: a bad field
is answered with an error naming it, and nothing reaches the display, the robot or a button handler."""

from __future__ import annotations

import re
from typing import Any

import pytest

from saphira.colbert.evaluator import Evaluator
from saphira.robot import Robot
from saphira.ui.liveview import LiveView
from saphira.ui.requests import RequestError

VIEW = {"type": "view", "scale": 0.05, "cx": 0.0, "cy": 0.0, "rotation": 0.0, "width": 800, "height": 600}
BAD = [
    ({**VIEW, "scale": 1e999}, "scale must be a finite number"),
    ({**VIEW, "cx": float("nan")}, "cx must be a finite number"),
    ({**VIEW, "width": 1e999}, "width must be an integer"),
    ({**VIEW, "height": 10**30}, "height 1000000000000000000000000000000 is out of range"),
    ({**VIEW, "scale": "big"}, "scale must be a number"),
    ({"type": "display", "menu": 1e999, "state": 1}, "menu must be an integer"),
    ({"type": "display", "menu": 99, "state": 1}, "menu 99 is out of range (0 to 4)"),
    ({"type": "display", "menu": 0, "state": -1}, "state -1 is out of range"),
    ({"type": "button", "x": 1e999, "y": 0, "button": 1}, "x must be an integer"),
    ({"type": "button", "x": 0, "y": 0, "button": 9}, "button 9 is out of range (1 to 3)"),
]


@pytest.fixture
def view() -> LiveView:
    robot = Robot()
    live = LiveView(robot, Evaluator(robot, read_init=False, output=lambda text: None))
    live.display.button_handler = lambda *args: pressed.append(args)
    return live


pressed: list[Any] = []


@pytest.mark.parametrize(("message", "expected"), BAD, ids=[f"{m['type']}-{e[:20]}" for m, e in BAD])
def test_a_bad_field_is_refused_naming_it(view: LiveView, message: dict[str, Any], expected: str) -> None:
    before = view.display.view
    pressed.clear()
    with pytest.raises(RequestError, match=re.escape(expected)):
        view.handle(message)
    assert pressed == [] and view.display.view == before


def test_good_requests_still_act(view: LiveView) -> None:
    view.handle({**VIEW, "scale": 0.1, "cx": 1000.0})
    assert view.display.view.scale == 0.1 and view.display.view.cx == 1000.0
    pressed.clear()
    view.handle({"type": "button", "x": 10, "y": -20, "button": 1, "mods": 1})
    assert pressed == [(10, -20, 1, 1)]
