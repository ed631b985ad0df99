"""The simulated FTVS camera: what channels A, B and C see of the world's coloured boxes.

Each channel is trained on one colour (A red, B green, C blue at start-up; the simulator extension
``pioneer_X_color name`` retrains it) and runs in one :class:`~saphira.protocol.vision.VisionMode`.
Every cycle :meth:`SimCamera.observe` projects each box of a channel's colour into the image and
reports the largest one, as the FTVS reports its largest blob.

Camera model (documented choices; the manual gives only ``DEG_TO_PIXELS`` = 3):

* a pinhole at the robot's centre, :data:`CAMERA_HEIGHT` mm above the floor, looking straight
  ahead; the image is :data:`IMAGE_WIDTH` × :data:`IMAGE_HEIGHT` pixels at 3 pixels per degree
  (about 53° × 40°); (0, 0) is the image centre, x grows to the right and y upwards;
* a box is seen from its nearest corner's distance: its sides span from the floor to
  :data:`~saphira.world.objects.BOX_HEIGHT`, horizontally between its outermost corners; the blob is
  that rectangle clipped to the image; ``area`` = w × h;
* a box is not seen beyond :data:`MAX_RANGE`, behind the camera, when a wall cuts the line of sight
  to its centre, or when its blob is smaller than :data:`MIN_AREA` pixels; boxes do not hide each
  other;
* LINE mode slices the image rows from ``line_bottom_row`` up, ``line_num_slices`` slices of
  ``line_slice_size`` rows; a slice holds a segment when the blob covers at least ``line_min_mass``
  pixels of it. ``first`` is the index of the first such slice, ``num`` the number of consecutive
  ones from there, ``x`` the blob's centre.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Final

from saphira.core.arrays import FloatArray
from saphira.core.geometry import Pose
from saphira.protocol.vision import DEG_TO_PIXELS, VisionInfo, VisionMode, VisionPacket, VisionSetting
from saphira.sim.gripper import to_robot_frame
from saphira.world.objects import BOX_HEIGHT, COLOURS, SimObject
from saphira.world.raycast import segment_crosses

IMAGE_WIDTH: Final = 160
IMAGE_HEIGHT: Final = 120
CAMERA_HEIGHT: Final = 400.0
MAX_RANGE: Final = 8000.0
MIN_AREA: Final = 4
_NEAR: Final = 50.0  # mm: corners closer than this in front of the camera are not projected
_LIFT_RAISE: Final = 100.0  # mm: how far a box rises when the gripper's lift carries it up

DEFAULT_COLOURS: Final = ("red", "green", "blue")
DEFAULT_LINE: Final = {"line_bottom_row": 0, "line_num_slices": 8, "line_slice_size": 5, "line_min_mass": 10}


class SimCamera:
    """The FTVS: three channels (colour, mode), the line parameters, and whether packets flow."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Start-up state: every channel in BLOB mode, default colours, nothing sent yet."""
        self.colours = list(DEFAULT_COLOURS)
        self.modes = [int(VisionMode.BLOB)] * 3
        self.line = dict(DEFAULT_LINE)
        self.streaming = False

    def apply(self, setting: VisionSetting) -> None:
        """Take one parsed VISION_COM setting; :class:`ValueError` for a colour it cannot be trained on."""
        if setting.name == "mode" and setting.channel is not None:
            self.modes[setting.channel] = int(setting.value)
        elif setting.name == "color" and setting.channel is not None:
            if setting.value not in COLOURS:
                raise ValueError(f"no colour {setting.value!r} (one of {', '.join(COLOURS)})")
            self.colours[setting.channel] = str(setting.value)
        else:
            self.line[setting.name] = int(setting.value)

    def observe(self, pose: Pose, objects: Iterable[SimObject], walls: FloatArray) -> VisionPacket:
        """What the three channels report with the robot at ``pose``."""
        blobs = [b for b in (_blob(o, pose, walls) for o in objects) if b is not None]
        infos = []
        for channel in range(3):
            mine = [b for b in blobs if b[0] == self.colours[channel]]
            best = max(mine, key=lambda b: b[1][0] * b[1][1], default=None)
            infos.append(self._report(channel, best[1] if best is not None else None))
        return VisionPacket((infos[0], infos[1], infos[2]))

    def _report(self, channel: int, box: tuple[float, float, float, float] | None) -> VisionInfo:
        mode = self.modes[channel]
        if box is None:
            return VisionInfo(type=mode)
        w, h, cx, cy = box
        x, y = round(cx), round(cy)
        if mode == VisionMode.LINE:
            first, num = self._line_rows(w, cy - h / 2.0 + IMAGE_HEIGHT / 2.0, h)
            return VisionInfo(type=mode, x=x, first=first, num=num)
        area = round(w * h)
        if mode == VisionMode.BLOB_BB:
            return VisionInfo(type=mode, x=x, y=y, area=area, h=round(h), w=round(w))
        return VisionInfo(type=mode, x=x, y=y, area=area)

    def _line_rows(self, width: float, bottom: float, height: float) -> tuple[int, int]:
        """(first slice with a segment, consecutive slices with one) for a blob rows bottom..bottom+height."""
        size = max(1, self.line["line_slice_size"])
        first = -1
        num = 0
        for k in range(max(0, self.line["line_num_slices"])):
            low = self.line["line_bottom_row"] + k * size
            rows = max(0.0, min(low + size, bottom + height) - max(low, bottom))
            if rows * width >= self.line["line_min_mass"]:
                if first < 0:
                    first = k
                num += 1
            elif first >= 0:
                break
        return max(first, 0), num


def _blob(box: SimObject, pose: Pose, walls: FloatArray) -> tuple[str, tuple[float, float, float, float]] | None:
    """(colour, (w, h, centre x, centre y)) of the box's image in pixels, or ``None`` if unseen."""
    local = to_robot_frame(box.corners(), pose)
    ahead = local[local[:, 0] > _NEAR]
    if len(ahead) == 0:
        return None
    near = float(min(math.hypot(px, py) for px, py in ahead))
    if near > MAX_RANGE or segment_crosses((pose.x, pose.y), (box.x, box.y), walls):
        return None
    columns = [-math.degrees(math.atan2(py, px)) * DEG_TO_PIXELS for px, py in ahead]
    base = CAMERA_HEIGHT - (_LIFT_RAISE if box.lifted else 0.0)
    top = math.degrees(math.atan2(BOX_HEIGHT - base, near)) * DEG_TO_PIXELS
    bottom = math.degrees(math.atan2(-base, near)) * DEG_TO_PIXELS
    half_w, half_h = IMAGE_WIDTH / 2.0, IMAGE_HEIGHT / 2.0
    left, right = max(min(columns), -half_w), min(max(columns), half_w)
    low, high = max(bottom, -half_h), min(top, half_h)
    if right <= left or high <= low or (right - left) * (high - low) < MIN_AREA:
        return None
    return box.colour, (right - left, high - low, (left + right) / 2.0, (low + high) / 2.0)
