"""Colbert bindings for the display: drawing, colours, display state, screen coordinates; see docs/colbert.md.

Registered by :func:`saphira.colbert.bindings.table.install_bindings`; the Python side is
:mod:`saphira.display.drawing` and :mod:`saphira.display.state`. Choices the manual leaves open:

* Drawing coordinates are global mm; what a task draws shows in the next frame of every page watching
  (a task that wants its picture to stay draws it every cycle, as in the manual).
* ``sfSetDisplayState`` (registered by :mod:`~saphira.colbert.bindings.link`, which also puts the simulator
  in single-step mode for sfSTEP) takes effect on every page and on later connections (sticky); an
  unknown menu or a period outside 0..10 is a runtime error naming the allowed values.
* ``sfScreenToWorldX/Y`` use the view the page last drew with (a 800 x 600 view of the origin when no
  page has drawn yet); a local view is centred on, and turned with, the robot's pose now.
* The colour variables (``sfRobotColor`` …) are read and set as colour numbers (``sfColorRed`` …).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from saphira.colbert.bindings.table import BindingTable
from saphira.colbert.compile.symbols import ColbertRuntimeError
from saphira.core.geometry import Pose
from saphira.display.drawing import COLOR_VARIABLES, COLORS, LINE_DASHED, LINE_SOLID, drawing_for
from saphira.display.state import BUTTON_LEFT, BUTTON_MIDDLE, BUTTON_RIGHT, display_for

if TYPE_CHECKING:
    from saphira.colbert.bindings.table import Bindings

__all__ = ["table"]


def table(s: Bindings) -> BindingTable:
    """The bindings of this module, for :func:`~saphira.colbert.bindings.table.install_bindings`."""
    drawing = drawing_for(s.ctx.scheduler)
    display = display_for(s.ctx.scheduler)

    def robot_pose() -> Pose | None:
        robot = s.ctx.robot
        return None if robot is None else robot.state.global_pose

    def set_line_type(line_type: int) -> None:
        try:
            drawing.set_line_type(line_type)
        except ValueError as exc:
            raise ColbertRuntimeError(f"sfSetLineType: {exc}") from None

    def colour_variable(what: str) -> tuple[Callable[[], Any], Callable[[Any], None]]:
        return (lambda: drawing.palette[what]), (lambda v: drawing.palette.__setitem__(what, int(v)))

    return BindingTable(
        constants=[
            ("sfLINESOLID", "int", LINE_SOLID, "sfSetLineType: solid lines"),
            ("sfLINEDASHED", "int", LINE_DASHED, "sfSetLineType: dashed lines"),
            *((f"sfColor{name}", "int", value, f"colour {name}") for name, (value, _) in COLORS.items()),
            *(
                (f"sf{b}Button", "int", v, f"mouse button {b.lower()}")
                for b, v in (("Left", BUTTON_LEFT), ("Middle", BUTTON_MIDDLE), ("Right", BUTTON_RIGHT))
            ),
        ],
        variables=[
            (f"sf{what}Color", "int", *colour_variable(what), f"colour the display draws {what.lower()} in")
            for what in COLOR_VARIABLES
        ],
        functions=[
            ("sfDrawVector", "void(float, float, float, float)", drawing.draw_vector, "line x1,y1 to x2,y2 (mm)"),
            ("sfDrawRect", "void(float, float, float, float)", drawing.draw_rect, "rectangle: lower left x,y, dx, dy"),
            (
                "sfDrawCenteredRect",
                "void(float, float, float, float)",
                drawing.draw_centered_rect,
                "rectangle centred on x,y, w wide, h high",
            ),
            ("sfSetLineWidth", "void(int)", drawing.set_line_width, "line width in pixels"),
            ("sfSetLineType", "void(int)", set_line_type, "sfLINESOLID or sfLINEDASHED"),
            ("sfSetLineColor", "void(int)", drawing.set_line_color, "colour of lines drawn from now on"),
            ("sfSetPatchColor", "void(int)", drawing.set_patch_color, "colour of filled patches"),
            ("sfSetTextColor", "void(int)", drawing.set_text_color, "colour of text"),
            ("sfGetDisplayState", "int(int)", display.get, "the current value of a display menu"),
            (
                "sfScreenToWorldX",
                "float(int, int)",
                lambda x, y: display.screen_to_world(x, y, robot_pose())[0],
                "global x (mm) of a pixel of the LPS display",
            ),
            (
                "sfScreenToWorldY",
                "float(int, int)",
                lambda x, y: display.screen_to_world(x, y, robot_pose())[1],
                "global y (mm) of a pixel of the LPS display",
            ),
        ],
    )
