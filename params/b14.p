;; b14.p -- RWI B14: synchro-drive base, 16 Polaroid sonars in one ring.
;; Geometry: RWI B14 body about 340 mm across (radius 170 mm); the sonars sit
;; on the body surface, 22.5 degrees apart, sonar 0 facing forward.
;; Conversion factors: Saphira's own b14.p/b21.p were not preserved. We assume
;; the robot's Pioneer-protocol server reports mm, mm/s and sonar mm, and 4096
;; heading units per turn [GUESS]. Speed limits are plausible for the base
;; [GUESS]; synchro drive turns in place (Holonomic 1).

Name            B14
Class           B14
Subclass        b14

AngleConvFactor 0.001534    ; radians per heading unit (2pi/4096)
DistConvFactor  1.0
VelConvFactor   1.0
RangeConvFactor 1.0
DiffConvFactor  0.0056
Vel2Divisor     20

RobotRadius     170         ; mm (round body)
RobotDiagonal   170
RobotWidth      340
RobotLength     340
RobotLengthFront 170
RobotLengthRear 170
Holonomic       1

MaxVelocity     800         ; mm/s
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

SonarNum        16
;; one ring of radius 170 mm, 22.5 degrees apart, numbered counterclockwise
;;        n     x     y      th
SonarUnit  0   170     0       0
SonarUnit  1   157    65    22.5
SonarUnit  2   120   120      45
SonarUnit  3    65   157    67.5
SonarUnit  4     0   170      90
SonarUnit  5   -65   157   112.5
SonarUnit  6  -120   120     135
SonarUnit  7  -157    65   157.5
SonarUnit  8  -170     0     180
SonarUnit  9  -157   -65  -157.5
SonarUnit 10  -120  -120    -135
SonarUnit 11   -65  -157  -112.5
SonarUnit 12     0  -170     -90
SonarUnit 13    65  -157   -67.5
SonarUnit 14   120  -120     -45
SonarUnit 15   157   -65   -22.5
