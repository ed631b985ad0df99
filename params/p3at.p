ConfigVersion 2.0
;  p3at.p -- Pioneer 3-AT (four-wheel skid steer). Values: ARIA params/p3at.p (AngleConvFactor written
;  exactly as 2pi/4096 = 0.001534), see pioneer-protocol.md 11.3. MaxAcceleration
;  is the 300 mm/s^2 that AMRISim's CONFIG reports; the error model is ours.

Section General settings
Name P3AT                     ; robot name (the simulator reports it)
Class Pioneer                 ; general type of robot
Subclass p3at                 ; specific type of robot
RobotRadius 500               ; radius in mm
RobotDiagonal 120             ; half-height to diagonal of octagon
RobotWidth 505                ; width in mm
RobotLength 626               ; length in mm of the whole robot
RobotLengthFront 313          ; mm to the front (0 = half of RobotLength)
RobotLengthRear 313           ; mm to the rear (0 = half of RobotLength)
Holonomic true                ; turns in own radius
MaxRVelocity 300              ; absolute maximum degrees / sec
MaxVelocity 1200              ; absolute maximum mm / sec
MaxAcceleration 300           ; mm / sec^2 (Saphira key)
HasMoveCommand true           ; has built in move command
RequestIOPackets false        # automatically request IO packets
RequestEncoderPackets false   # automatically request encoder packets
SwitchToBaudRate 38400        ; switch to this baud if non-0 and supported

Section Conversion factors
AngleConvFactor 0.001534      ; radians per angular unit
DistConvFactor 0.465          ; multiplier to mm from robot units
VelConvFactor 1.0             ; multiplier to mm/sec from robot units
RangeConvFactor 1.0           ; multiplier to mm from sonar units
DiffConvFactor 0.0034         ; ratio of angular velocity to wheel velocity
Vel2Divisor 20                ; divisor for VEL2 commands
GyroScaler 1.626              ; scaling factor for gyro readings (kept in extra)

Section Movement control parameters
;  if these are 0 the parameters from robot flash will be used
SettableVelMaxes true         ; if TransVelMax and RotVelMax can be set
TransVelMax 0                 ; maximum desired translational velocity
RotVelMax 0                   ; maximum desired rotational velocity
SettableAccsDecs true         ; if the accel and decel parameters can be set
TransAccel 0                  ; translational acceleration
TransDecel 0                  ; translational deceleration
RotAccel 0                    ; rotational acceleration
RotDecel 0                    ; rotational deceleration

Section Simulator error model
;  Saphira keys, std dev per unit of motion (see saphira.params.robot_params.RobotParams)
AngleJitter 0.01              ; deg of heading error per deg turned
AngleDrift 0.002              ; deg of heading error per mm driven
DistJitter 0.01               ; mm of distance error per mm driven

Section Sonar parameters
SonarNum 16                   ; number of sonars on the robot
;  SonarUnit <number> <x mm> <y mm> <heading deg>
SonarUnit    0  147  136   90
SonarUnit    1  193  119   50
SonarUnit    2  227   79   30
SonarUnit    3  245   27   10
SonarUnit    4  245  -27  -10
SonarUnit    5  227  -79  -30
SonarUnit    6  193 -119  -50
SonarUnit    7  147 -136  -90
SonarUnit    8 -144 -136  -90
SonarUnit    9 -189 -119 -130
SonarUnit   10 -223  -79 -150
SonarUnit   11 -241  -27 -170
SonarUnit   12 -241   27  170
SonarUnit   13 -223   79  150
SonarUnit   14 -189  119  130
SonarUnit   15 -144  136   90
