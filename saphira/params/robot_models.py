"""Built-in robot parameters: ARIA's defaults for every robot type it knows, as data.

ARIA (``ArRobotTypes``) carries, for each Pioneer-family model, the conversion factors, dimensions,
velocity limits and sonar ring it assumes before reading any file, so a robot that reports its
subclass is driven correctly even with no parameter file at all. The facts below are those of ARIA's
parameter files (AriaCoda ``params/*.p``, copies in ``tests/data/aria-params``), with two exceptions
where the files print rounded numbers and ARIA's built-in value is exact: ``AngleConvFactor`` is
2π/4096 = 0.001534 (files: 0.00153) and, for the Pioneer 1 family, 2π/1024 = 0.0061359 (0.00614).
``powerbot`` has 32 sonars as its ``SonarNum`` says; its 32nd (unit 31, absent from ``powerbot.p``)
is placed as ``powerbot-sh.p`` places it.

An unknown model gets ARIA's generic robot (``ArRobotParams``' constructor: conversion factors 1,
AngleConvFactor 0.001534, no sonar, speeds left to the robot's firmware), never Pioneer 1 factors:
driving an unknown ARCOS robot with Pioneer 1 factors multiplies every distance by about 20.
Saphira-era subclasses map to the ARIA type with the same factors (:data:`ALIASES`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from saphira.params.robot_params import RobotParams, SonarUnit

Layout = tuple[tuple[int, int, int], ...]
"""A sonar ring: (x mm, y mm, heading deg) of sonar 0, 1, ...; +x forward, +y left."""

# Tables of numbers, one transducer or one robot per row: the formatter would put one number per line.
# fmt: off
SONAR_AMIGO_SH: Layout = (
    (70, 100, 90), (125, 75, 41), (144, 30, 15), (144, -30, -15), (120, -75, -41), (70, -100, -90),
    (-146, -58, -145), (-146, 58, 145),
)
SONAR_AMIGO: Layout = (
    (76, 100, 90), (125, 75, 41), (150, 30, 15), (150, -30, -15), (125, -75, -41), (76, -100, -90),
    (-140, -58, -145), (-140, 58, 145),
)
SONAR_PATROLBOT: Layout = (
    (83, 229, 90), (169, 202, 55), (232, 134, 30), (263, 46, 10), (263, -46, -10), (232, -134, -30),
    (169, -202, -55), (83, -229, -90), (-83, -229, -90), (-169, -202, -125), (-232, -134, -150),
    (-263, -46, -170), (-263, 46, 170), (-232, 134, 150), (-169, 202, 125), (-83, 229, 90),
)
SONAR_P2AT: Layout = (
    (147, 136, 90), (193, 119, 50), (227, 79, 30), (245, 27, 10), (245, -27, -10), (227, -79, -30),
    (193, -119, -50), (147, -136, -90), (-144, -136, -90), (-189, -119, -130), (-223, -79, -150),
    (-241, -27, -170), (-241, 27, 170), (-223, 79, 150), (-189, 119, 130), (-144, 136, 90),
)
SONAR_P3DX: Layout = (
    (69, 136, 90), (114, 119, 50), (148, 78, 30), (166, 27, 10), (166, -27, -10), (148, -78, -30),
    (114, -119, -50), (69, -136, -90), (-157, -136, -90), (-203, -119, -130), (-237, -78, -150),
    (-255, -27, -170), (-255, 27, 170), (-237, 78, 150), (-203, 119, 130), (-157, 136, 90),
)
SONAR_P2PB: Layout = (
    (69, 136, 90), (114, 119, 50), (148, 78, 30), (166, 27, 10), (166, -27, -10), (148, -78, -30),
    (114, -119, -50), (69, -136, -90), (-20, 136, 90), (24, 119, 50), (58, 78, 30), (77, 27, 10),
    (77, -27, -10), (58, -78, -30), (24, -119, -50), (-20, -136, -90), (-157, -136, -90), (-203, -119, -130),
    (-237, -78, -150), (-255, -27, -170), (-255, 27, 170), (-237, 78, 150), (-203, 119, 130), (-157, 136, 90),
)
SONAR_PEOPLEBOT: Layout = (
    (69, 136, 90), (114, 119, 50), (148, 78, 30), (166, 27, 10), (166, -27, -10), (148, -78, -30),
    (114, -119, -50), (69, -136, -90), (-157, -136, -90), (-203, -119, -130), (-237, -78, -150),
    (-255, -27, -170), (-255, 27, 170), (-237, 78, 150), (-203, 119, 130), (-157, 136, 90), (-20, 136, 90),
    (24, 119, 50), (58, 78, 30), (77, 27, 10), (77, -27, -10), (58, -78, -30), (24, -119, -50),
    (-20, -136, -90), (-191, -136, -90), (-237, -119, -130), (-271, -78, -150), (-290, -27, -170),
    (-290, 27, 170), (-271, 78, 150), (-237, 119, 130), (-191, 136, 90),
)
SONAR_PERFPB: Layout = (
    (69, 136, 90), (114, 119, 50), (148, 78, 30), (166, 27, 10), (166, -27, -10), (148, -78, -30),
    (114, -119, -50), (69, -136, -90), (-20, 136, 90), (24, 119, 50), (58, 78, 30), (77, 27, 10),
    (77, -27, -10), (58, -78, -30), (24, -119, -50), (-20, -136, -90), (-157, -136, -90), (-203, -119, -130),
    (-237, -78, -150), (-255, -27, -170), (-255, 27, 170), (-237, 78, 150), (-203, 119, 130), (-157, 136, 90),
    (-191, -136, -90), (-237, -119, -130), (-271, -78, -150), (-290, -27, -170), (-290, 27, 170),
    (-271, 78, 150), (-237, 119, 130), (-191, 136, 90),
)
SONAR_PIONEER_1: Layout = (
    (100, 100, 90), (120, 80, 30), (130, 40, 15), (130, 0, 0), (130, -40, -15), (120, -80, -30),
    (100, -100, -90),
)
SONAR_PIONEER_LX: Layout = (
    (331, 61, 10), (331, -61, -10), (-317, 90, 164), (-317, -90, -164),
)
SONAR_POWERBOT: Layout = (
    (152, 278, 90), (200, 267, 65), (241, 238, 45), (274, 200, 35), (300, 153, 25), (320, 96, 15),
    (332, 33, 5), (0, 0, -180), (332, -33, -5), (320, -96, -15), (300, -153, -25), (274, -200, -35),
    (241, -238, -45), (200, -267, -65), (152, -278, -90), (0, 0, -180), (-298, -278, -90), (-347, -267, -115),
    (-388, -238, -135), (-420, -200, -145), (-447, -153, -155), (-467, -96, -165), (-478, -33, -175),
    (0, 0, -180), (-478, 33, 175), (-467, 96, 165), (-447, 153, 155), (-420, 200, 145), (-388, 238, 135),
    (-347, 267, 115), (-298, 278, 90), (0, 0, -180),
)
SONAR_POWERBOT_REAR: Layout = (
    (-298, -278, -90), (-347, -267, -115), (-388, -238, -135), (-420, -200, -145), (-447, -153, -155),
    (-467, -96, -165), (-478, -33, -175), (0, 0, -180), (-478, 33, 175), (-467, 96, 165), (-447, 153, 155),
    (-420, 200, 145), (-388, 238, 135), (-347, 267, 115), (-298, 278, 90), (0, 0, -180),
)
SONAR_NONE: Layout = ()

T, F = True, False
COLUMNS = (
    "robot_class", "robot_radius", "robot_diagonal", "robot_width", "robot_length", "robot_length_front",
    "robot_length_rear", "holonomic", "max_velocity", "max_rvelocity", "has_move_command",
    "request_io_packets", "switch_to_baud_rate", "angle_conv_factor", "dist_conv_factor", "vel_conv_factor",
    "range_conv_factor", "diff_conv_factor", "vel2_divisor", "trans_vel_max", "rot_vel_max",
    "settable_accs_decs", "trans_accel", "trans_decel", "rot_accel", "rot_decel", "sonar_units",
)
"""The :class:`~saphira.params.robot_params.RobotParams` field each entry of a :data:`MODELS` row sets, in order."""

MODELS: dict[str, tuple[Any, ...]] = {
    "amigo-sh-tim3xx": ("Pioneer", 180, 120, 279, 330, 160, 170, T, 1000, 300, T, F, 38400,
                        0.001534, 1.0, 1.0, 1.0, 0.011, 20, 0, 0, T, 0, 0, 0, 0, SONAR_AMIGO_SH),
    "amigo-sh": ("Pioneer", 180, 120, 279, 330, 160, 170, T, 1000, 300, T, F, 38400,
                 0.001534, 1.0, 1.0, 1.0, 0.011, 20, 0, 0, T, 0, 0, 0, 0, SONAR_AMIGO_SH),
    "amigo": ("Pioneer", 180, 120, 279, 330, 160, 170, T, 1000, 300, T, F, 38400,
              0.001534, 0.5083, 0.6154, 1.0, 0.011, 20, 0, 0, T, 0, 0, 0, 0, SONAR_AMIGO),
    "mt400": ("Pioneer", 250, 120, 425, 510, 255, 255, T, 2200, 500, T, T, 38400,
              0.001534, 1.0, 1.0, 1.0, 0.0056, 20, 0, 0, T, 0, 0, 0, 0, SONAR_PATROLBOT),
    "p2at": ("Pioneer", 500, 120, 505, 626, 313, 313, T, 1200, 300, T, F, 38400,
             0.001534, 1.32, 1.0, 0.268, 0.0034, 20, 0, 0, T, 0, 0, 0, 0, SONAR_P2AT),
    "p2at8+": ("Pioneer", 500, 120, 505, 626, 313, 313, T, 1200, 300, T, F, 38400,
               0.001534, 0.465, 1.0, 1.0, 0.0034, 20, 0, 0, T, 0, 0, 0, 0, SONAR_P2AT),
    "p2at8": ("Pioneer", 500, 120, 505, 626, 313, 313, T, 1200, 300, T, F, 38400,
              0.001534, 1.32, 1.0, 1.0, 0.0034, 20, 0, 0, T, 0, 0, 0, 0, SONAR_P2AT),
    "p2ce": ("Pioneer", 250, 120, 425, 511, 210, 301, T, 2200, 500, T, F, 38400,
             0.001534, 0.826, 1.0, 0.268, 0.0057, 20, 0, 0, T, 0, 0, 0, 0, SONAR_P3DX),
    "p2d8+": ("Pioneer", 250, 120, 425, 511, 210, 301, T, 2200, 500, T, F, 38400,
              0.001534, 0.485, 1.0, 1.0, 0.0056, 20, 0, 0, T, 0, 0, 0, 0, SONAR_P3DX),
    "p2d8": ("Pioneer", 250, 120, 425, 511, 210, 301, T, 2200, 500, T, F, 38400,
             0.001534, 0.485, 1.0, 1.0, 0.0056, 20, 0, 0, T, 0, 0, 0, 0, SONAR_P3DX),
    "p2de": ("Pioneer", 250, 120, 425, 511, 210, 301, T, 2200, 500, T, F, 38400,
             0.001534, 0.969, 1.0, 0.268, 0.0056, 20, 0, 0, T, 0, 0, 0, 0, SONAR_P3DX),
    "p2df": ("Pioneer", 250, 120, 425, 511, 210, 301, T, 2200, 500, T, F, 38400,
             0.001534, 0.485, 1.0, 0.268, 0.006, 20, 0, 0, T, 0, 0, 0, 0, SONAR_P3DX),
    "p2dx": ("Pioneer", 250, 120, 425, 511, 210, 301, T, 2200, 500, T, F, 38400,
             0.001534, 0.84, 1.0, 0.268, 0.0056, 20, 0, 0, T, 0, 0, 0, 0, SONAR_P3DX),
    "p2it": ("Pioneer", 500, 120, 505, 626, 313, 313, T, 1200, 300, T, F, 38400,
             0.001534, 1.136, 1.0, 0.268, 0.0032, 20, 0, 0, T, 0, 0, 0, 0, SONAR_P2AT),
    "p2pb": ("Pioneer", 300, 120, 425, 513, 0.0, 0.0, T, 2200, 500, T, F, 38400,
             0.001534, 0.424, 1.0, 0.268, 0.0056, 20, 0, 0, T, 0, 0, 0, 0, SONAR_P2PB),
    "p2pp": ("Pioneer", 300, 120, 425, 513, 0.0, 0.0, T, 2200, 500, T, F, 38400,
             0.001534, 0.485, 1.0, 0.268, 0.006, 20, 0, 0, T, 0, 0, 0, 0, SONAR_P2PB),
    "p3at-sh-lms1xx": ("Pioneer", 500, 120, 505, 626, 313, 313, T, 1200, 300, T, F, 38400,
                       0.001534, 1.0, 1.0, 1.0, 0.0034, 20, 0, 0, T, 0, 0, 0, 0, SONAR_P2AT),
    "p3at-sh-lms500": ("Pioneer", 500, 120, 505, 626, 313, 313, T, 1200, 300, T, F, 38400,
                       0.001534, 1.0, 1.0, 1.0, 0.0034, 20, 0, 0, T, 0, 0, 0, 0, SONAR_P2AT),
    "p3at-sh": ("Pioneer", 500, 120, 505, 626, 313, 313, T, 1200, 300, T, F, 38400,
                0.001534, 1.0, 1.0, 1.0, 0.0034, 20, 0, 0, T, 0, 0, 0, 0, SONAR_P2AT),
    "p3at": ("Pioneer", 500, 120, 505, 626, 313, 313, T, 1200, 300, T, F, 38400,
             0.001534, 0.465, 1.0, 1.0, 0.0034, 20, 0, 0, T, 0, 0, 0, 0, SONAR_P2AT),
    "p3atiw-sh": ("Pioneer", 500, 120, 490, 626, 313, 313, T, 1200, 300, T, F, 38400,
                  0.001534, 1.0, 1.0, 1.0, 0.0034, 20, 0, 0, T, 0, 0, 0, 0, SONAR_P2AT),
    "p3dx-sh-lms1xx": ("Pioneer", 250, 120, 425, 511, 210, 301, T, 2200, 500, T, F, 38400,
                       0.001534, 1.0, 1.0, 1.0, 0.0056, 20, 0, 0, T, 0, 0, 0, 0, SONAR_P3DX),
    "p3dx-sh-lms500": ("Pioneer", 250, 120, 425, 511, 210, 301, T, 2200, 500, T, F, 38400,
                       0.001534, 1.0, 1.0, 1.0, 0.0056, 20, 0, 0, T, 0, 0, 0, 0, SONAR_P3DX),
    "p3dx-sh": ("Pioneer", 250, 120, 425, 511, 210, 301, T, 2200, 500, T, F, 38400,
                0.001534, 1.0, 1.0, 1.0, 0.0056, 20, 0, 0, T, 0, 0, 0, 0, SONAR_P3DX),
    "p3dx": ("Pioneer", 250, 120, 425, 511, 210, 301, T, 2200, 500, T, F, 38400,
             0.001534, 0.485, 1.0, 1.0, 0.0056, 20, 0, 0, T, 0, 0, 0, 0, SONAR_P3DX),
    "patrolbot-sh": ("Pioneer", 250, 120, 425, 510, 255, 255, T, 2200, 500, T, T, 38400,
                     0.001534, 1.0, 1.0, 1.0, 0.0056, 20, 0, 0, T, 0, 0, 0, 0, SONAR_PATROLBOT),
    "peoplebot-sh-lms1xx": ("Pioneer", 340, 120, 425, 513, 0.0, 0.0, T, 2200, 500, T, T, 38400,
                            0.001534, 1.0, 1.0, 1.0, 0.006, 20, 0, 0, T, 0, 0, 0, 0, SONAR_PEOPLEBOT),
    "peoplebot-sh-lms500": ("Pioneer", 340, 120, 425, 513, 0.0, 0.0, T, 2200, 500, T, T, 38400,
                            0.001534, 1.0, 1.0, 1.0, 0.006, 20, 0, 0, T, 0, 0, 0, 0, SONAR_PEOPLEBOT),
    "peoplebot-sh": ("Pioneer", 340, 120, 425, 513, 0.0, 0.0, T, 2200, 500, T, T, 38400,
                     0.001534, 1.0, 1.0, 1.0, 0.006, 20, 0, 0, T, 0, 0, 0, 0, SONAR_PEOPLEBOT),
    "perfpb+": ("Pioneer", 340, 120, 425, 511, 210, 301, T, 2200, 500, T, T, 38400,
                0.001534, 0.485, 1.0, 1.0, 0.006, 20, 0, 0, T, 0, 0, 0, 0, SONAR_PERFPB),
    "perfpb": ("Pioneer", 340, 120, 425, 513, 0.0, 0.0, T, 2200, 500, T, T, 38400,
               0.001534, 0.485, 1.0, 1.0, 0.006, 20, 0, 0, T, 0, 0, 0, 0, SONAR_PERFPB),
    "pion1m": ("Pioneer", 220, 90, 400, 500, 0.0, 0.0, T, 400, 100, F, F, 0,
               0.0061359, 0.05066, 2.5332, 0.1734, 0.00333, 4.0, 400, 100, F, 0, 0, 0, 0, SONAR_PIONEER_1),
    "pion1x": ("Pioneer", 220, 90, 400, 500, 0.0, 0.0, T, 400, 100, F, F, 0,
               0.0061359, 0.05066, 2.5332, 0.1734, 0.00333, 4.0, 400, 100, F, 0, 0, 0, 0, SONAR_PIONEER_1),
    "pionat": ("Pioneer", 330, 120, 400, 500, 0.0, 0.0, T, 500, 100, F, F, 0,
               0.0061359, 0.07, 2.5332, 0.1734, 0.00333, 4.0, 400, 100, F, 0, 0, 0, 0, SONAR_PIONEER_1),
    "pioneer-lx-ld": ("MTX", 348, 120, 500, 696, 348, 348, T, 2500, 180, F, T, 38400,
                      0.001534, 1.0, 1.0, 1.0, 0.0056, 20, 1800, 180, T, 500, 600, 150, 200, SONAR_PIONEER_LX),
    "pioneer-lx": ("MTX", 348, 120, 500, 696, 348, 348, T, 2500, 180, F, T, 38400,
                   0.001534, 1.0, 1.0, 1.0, 0.0056, 20, 1800, 180, T, 500, 600, 150, 200, SONAR_PIONEER_LX),
    "powerbot-sh-lms500": ("Pioneer", 550, 240, 680, 911, 369, 542, T, 2000, 360, T, F, 38400,
                           0.001534, 1.0, 1.0, 1.0, 0.00373, 20, 0, 0, T, 0, 0, 0, 0, SONAR_POWERBOT),
    "powerbot-sh-uarcs": ("Pioneer", 550, 240, 680, 911, 369, 542, T, 2000, 360, T, F, 38400,
                          0.001534, 1.0, 1.0, 1.0, 0.00373, 20, 0, 0, T, 0, 0, 0, 0, SONAR_POWERBOT_REAR),
    "powerbot-sh": ("Pioneer", 550, 240, 680, 911, 369, 542, T, 2000, 360, T, F, 38400,
                    0.001534, 1.0, 1.0, 1.0, 0.00373, 20, 0, 0, T, 0, 0, 0, 0, SONAR_POWERBOT),
    "powerbot": ("Pioneer", 550, 240, 680, 911, 369, 542, T, 2000, 360, T, F, 38400,
                 0.001534, 0.5813, 1.0, 1.0, 0.00373, 20, 0, 0, T, 0, 0, 0, 0, SONAR_POWERBOT),
    "psos1m": ("Pioneer", 220, 90, 400, 500, 0.0, 0.0, T, 400, 100, F, F, 0,
               0.0061359, 0.05066, 2.5332, 0.1734, 0.00333, 4.0, 400, 100, F, 0, 0, 0, 0, SONAR_PIONEER_1),
    "psos1x": ("Pioneer", 220, 90, 400, 500, 0.0, 0.0, T, 400, 100, F, F, 0,
               0.0061359, 0.05066, 2.5332, 0.1734, 0.00333, 4.0, 400, 100, F, 0, 0, 0, 0, SONAR_PIONEER_1),
    "psos43m": ("Pioneer", 220, 90, 400, 500, 0.0, 0.0, T, 400, 100, F, F, 0,
                0.0061359, 0.05066, 2.5332, 0.1734, 0.00333, 4.0, 400, 100, F, 0, 0, 0, 0, SONAR_PIONEER_1),
    "researchPB-lms500": ("Pioneer", 250, 120, 425, 510, 255, 255, T, 2200, 500, T, T, 38400,
                          0.001534, 1.0, 1.0, 1.0, 0.0056, 20, 0, 0, T, 0, 0, 0, 0, SONAR_PATROLBOT),
    "researchPB": ("Pioneer", 250, 120, 425, 510, 255, 255, T, 2200, 500, T, T, 38400,
                   0.001534, 1.0, 1.0, 1.0, 0.0056, 20, 0, 0, T, 0, 0, 0, 0, SONAR_PATROLBOT),
    "seekur": ("Pioneer", 833, 400, 1270, 1410, 705, 705, T, 2200, 190, F, F, 38400,
               0.001534, 1.0, 1.0, 1.0, 0.0056, 20, 0, 0, T, 0, 0, 0, 0, SONAR_NONE),
    "seekurjr": ("Pioneer", 600, 600, 830, 1200, 600, 600, T, 1200, 80, F, F, 38400,
                 0.001534, 1.0, 1.0, 1.0, 0.0056, 20, 0, 0, T, 0, 0, 0, 0, SONAR_NONE),
    "wheelchair-sh": ("Pioneer", 550, 300, 680, 1340, 0.0, 0.0, T, 2000, 360, T, F, 38400,
                      0.001534, 1.0, 1.0, 1.0, 0.00373, 20, 0, 0, T, 0, 0, 0, 0, SONAR_NONE),
}
"""ARIA's robot types by subclass: one row of :data:`COLUMNS` values each."""
# fmt: on

ALIASES = {"pion1": "pion1m", "pion1x": "pion1x", "psos41m": "psos1m", "psos41x": "psos1x"}
"""Saphira-era subclasses, read as the ARIA type with the same conversion factors."""

GENERIC: dict[str, Any] = {
    "robot_class": "Pioneer", "robot_radius": 250.0, "robot_diagonal": 120.0, "robot_width": 400.0,
    "robot_length": 500.0, "robot_length_front": 0.0, "robot_length_rear": 0.0, "holonomic": True,
    "max_velocity": 0.0, "max_rvelocity": 0.0, "has_move_command": True, "request_io_packets": False,
    "switch_to_baud_rate": 38400, "angle_conv_factor": 0.001534, "dist_conv_factor": 1.0,
    "vel_conv_factor": 1.0, "range_conv_factor": 1.0, "diff_conv_factor": 0.0056, "vel2_divisor": 20.0,
    "trans_vel_max": 0, "rot_vel_max": 0, "settable_accs_decs": True, "trans_accel": 0, "trans_decel": 0,
    "rot_accel": 0, "rot_decel": 0, "sonar_units": (),
}  # fmt: skip
"""ARIA's generic robot: what a robot of unknown subclass starts from."""


def known_models() -> list[str]:
    """The subclasses with built-in parameters, as ARIA names them."""
    return list(MODELS)


def model_values(model: str) -> tuple[str, dict[str, Any]]:
    """(the model's ARIA name or ``"generic"``, its built-in field values) for a subclass, any case."""
    key = model.strip().lower()
    key = ALIASES.get(key, key)
    for name, row in MODELS.items():
        if name.lower() == key:
            return name, dict(zip(COLUMNS, row, strict=True))
    return "generic", dict(GENERIC)


def builtin_params(model: str) -> RobotParams:
    """The built-in parameters for ``model`` (a subclass), every value's origin marked as built-in.

    ``subclass`` keeps what was asked for (a robot's own name for itself); unknown models get ARIA's
    generic robot. Saphira's simulator error model and sonar buffers keep their defaults.
    """
    name, values = model_values(model)
    ring: Layout = values.pop("sonar_units")
    values["sonar_units"] = tuple(SonarUnit(i, float(x), float(y), float(th)) for i, (x, y, th) in enumerate(ring))
    values = {key: float(v) if isinstance(getattr(RobotParams, key, None), float) else v for key, v in values.items()}
    origin = f"built-in {name}"
    values["subclass"] = model.strip() or name
    return dataclasses.replace(
        RobotParams(), **values, source=f"<{origin}>", origins=dict.fromkeys(values, origin), layers=(origin,)
    )
