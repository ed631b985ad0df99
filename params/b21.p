;; b21.p -- RWI B21: synchro-drive base with an enclosure, 24 Polaroid sonars
;; in the enclosure ring (RWI's spec; the second ring of 24 in the base is not
;; modelled). Geometry: body radius about 265 mm; ring radius 250 mm, bearings
;; 7.5 + k*15 degrees, as in the rflex B21 driver (24 per ring, 15 degree steps,
;; half a step off the front).
;; Conversion factors: Saphira's own b14.p/b21.p were not preserved. We assume
;; the robot's Pioneer-protocol server reports mm, mm/s and sonar mm, and 4096
;; heading units per turn [GUESS]. Speed limits are plausible for the base
;; [GUESS]; synchro drive turns in place (Holonomic 1).

Name            B21
Class           B21
Subclass        b21

AngleConvFactor 0.001534    ; radians per heading unit (2pi/4096)
DistConvFactor  1.0
VelConvFactor   1.0
RangeConvFactor 1.0
DiffConvFactor  0.0056
Vel2Divisor     20

RobotRadius     265         ; mm (round body)
RobotDiagonal   265
RobotWidth      530
RobotLength     530
RobotLengthFront 265
RobotLengthRear 265
Holonomic       1

MaxVelocity     900         ; mm/s
MaxRVelocity    120         ; deg/s
MaxAcceleration 300         ; mm/s^2
TransVelMax     0           ; 0 = use the robot's own limits
RotVelMax       0
HasMoveCommand  0
SettableAccsDecs 0
SwitchToBaudRate 0

FrontBuffer     20
SideBuffer      40

;; Simulator drive-error model (synchro drive: small rotation error)
AngleJitter     0.005
AngleDrift      0.001
DistJitter      0.005

SonarNum        24
;; one ring of radius 250 mm, 15 degrees apart, numbered counterclockwise
;;        n     x     y      th
SonarUnit  0   248    33     7.5
SonarUnit  1   231    96    22.5
SonarUnit  2   198   152    37.5
SonarUnit  3   152   198    52.5
SonarUnit  4    96   231    67.5
SonarUnit  5    33   248    82.5
SonarUnit  6   -33   248    97.5
SonarUnit  7   -96   231   112.5
SonarUnit  8  -152   198   127.5
SonarUnit  9  -198   152   142.5
SonarUnit 10  -231    96   157.5
SonarUnit 11  -248    33   172.5
SonarUnit 12  -248   -33  -172.5
SonarUnit 13  -231   -96  -157.5
SonarUnit 14  -198  -152  -142.5
SonarUnit 15  -152  -198  -127.5
SonarUnit 16   -96  -231  -112.5
SonarUnit 17   -33  -248   -97.5
SonarUnit 18    33  -248   -82.5
SonarUnit 19    96  -231   -67.5
SonarUnit 20   152  -198   -52.5
SonarUnit 21   198  -152   -37.5
SonarUnit 22   231   -96   -22.5
SonarUnit 23   248   -33    -7.5
