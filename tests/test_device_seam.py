"""The device seam's registry (issue 36): devices come from entry points, and one that cannot be used is
left out with a warning instead of stopping every robot."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest

from saphira.client.sensors.device import DEVICE_GROUP, Device, device_types
from saphira.client.sensors.gyro import AnalogGyro
from saphira.core.plugins import registered_classes
from saphira.robot import Robot


def test_the_reflector_holds_every_registered_device_by_name() -> None:
    robot = Robot()
    assert {kind.name for kind in device_types()} >= {"laser", "accessories", "gyro"}
    assert set(robot.reflector.devices) == {kind.name for kind in device_types()}
    assert robot.link.devices.table[0x98] is robot.reflector.device("gyro", AnalogGyro)
    with pytest.raises(TypeError, match="not a AnalogGyro"):
        robot.reflector.device("laser", AnalogGyro)


def test_a_device_that_cannot_be_loaded_is_left_out_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    dist = tmp_path / "saphira_extra-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: saphira-extra\nVersion: 0.1\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text(
        f"[{DEVICE_GROUP}]\nbroken = saphira_no_such_module:Sensor\nnot_a_device = builtins:int\n"
        "gyro2 = saphira.client.sensors.gyro:AnalogGyro\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    with caplog.at_level(logging.WARNING, logger="saphira.plugins"):
        found = registered_classes(DEVICE_GROUP, Device)
    assert found.count(AnalogGyro) == 2  # the project's gyro and the extra package's
    messages = " ".join(record.getMessage() for record in caplog.records)
    assert "broken (saphira_no_such_module:Sensor) cannot be loaded" in messages
    assert "not_a_device (builtins:int) is not a Device" in messages
