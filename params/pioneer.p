;; pioneer.p -- Pioneer 1 with PSOS older than 4.1 (no autoconfiguration).
;; Saphira's built-in defaults (saphira.params.robot_params.RobotParams()) equal this file.
;; Values: Saphira manual ch. 10 psos41m.p listing and ARIA params/pion1m.p
;; (see docs pioneer-protocol.md 11.3). Subclass "pion1" is what autoconfig
;; reports for a Pioneer 1 (manual Table 7.7).

Name            Pioneer
Class           Pioneer
Subclass        pion1

AngleConvFactor 0.0061359   ; radians per heading unit (2pi/1024)
DistConvFactor  0.05066     ; mm per encoder count (5in * pi / 7875)
VelConvFactor   2.5332      ; mm/s per velocity unit
RangeConvFactor 0.1734      ; sonar mm per 2 us echo tick
DiffConvFactor  0.00333     ; rad/s per mm/s of half the wheel-speed difference
Vel2Divisor     4           ; mm/s per VEL2 byte unit

RobotRadius     220         ; mm
RobotDiagonal   90          ; mm, half-height to the octagon's diagonal edge
RobotWidth      400
RobotLength     500
RobotLengthFront 250
RobotLengthRear 250
Holonomic       1           ; turns in place

MaxVelocity     400         ; mm/s
MaxRVelocity    100         ; deg/s
MaxAcceleration 300         ; mm/s^2 (not in the manual's listing; our choice)
TransVelMax     400
RotVelMax       100
HasMoveCommand  0
SettableAccsDecs 0
SwitchToBaudRate 0

FrontBuffer     20          ; front sonar buffer size
SideBuffer      40          ; side sonar buffer size

;; Simulator drive-error model (std dev per unit of motion, see RobotParams):
AngleJitter     0.01        ; deg of heading error per deg turned
AngleDrift      0.003       ; deg of heading error per mm driven (manual Table 3.1)
DistJitter      0.01        ; mm of distance error per mm driven

SonarNum        7           ; five forward, two to the sides
;;        n    x     y    th
SonarUnit 0  100   100    90
SonarUnit 1  120    80    30
SonarUnit 2  130    40    15
SonarUnit 3  130     0     0
SonarUnit 4  130   -40   -15
SonarUnit 5  120   -80   -30
SonarUnit 6  100  -100   -90
