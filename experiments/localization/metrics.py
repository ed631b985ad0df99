"""Metrics of a localization trial: heading error at the end, whether ``localize`` ended localized,
and its processor time per cycle (ms)."""

from __future__ import annotations

from saphira.app.batch.trial import TrialContext
from saphira.perception import LOCALIZE, perception_for
from saphira.perception.truth import pose_error


def collect(trial: TrialContext) -> dict[str, float]:
    robot = trial.session.robot
    sim = trial.session.sim
    heading = pose_error(robot.state.global_pose, sim.true_pose)[1] if sim is not None else float("nan")
    if LOCALIZE not in robot.scheduler:
        return {"heading_error": round(heading, 2), "localized": 0.0, "localizer_ms": 0.0}
    loc = perception_for(robot.reflector, robot.scheduler).localizer
    return {
        "heading_error": round(heading, 2),
        "localized": float(loc.localized),
        "localizer_ms": round(1000.0 * loc.seconds / max(loc.steps, 1), 3),
    }
