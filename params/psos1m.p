ConfigVersion 2.0
;  psos1m.p -- Pioneer 1 under ARIA's subtype name "psos1m" (reported by PSOS-emulating
;  servers that ARIA must accept). Values: ARIA params/psos1m.p (AngleConvFactor
;  given exactly as 2pi/1024) and Saphira's psos41m.p; Pioneer 1 error model.

Section General settings
Name Pioneer                  ; robot name (the simulator reports it)
Class Pioneer                 ; general type of robot
Subclass psos1m               ; specific type of robot
RobotRadius 220               ; radius in mm
RobotDiagonal 90              ; half-height to diagonal of octagon
RobotWidth 400                ; width in mm
RobotLength 500               ; length in mm of the whole robot
RobotLengthFront 0            ; mm to the front (0 = half of RobotLength)
RobotLengthRear 0             ; mm to the rear (0 = half of RobotLength)
Holonomic true                ; turns in own radius
MaxRVelocity 100              ; absolute maximum degrees / sec
MaxVelocity 400               ; absolute maximum mm / sec
MaxAcceleration 300           ; mm / sec^2 (Saphira key)
HasMoveCommand false          ; has built in move command
RequestIOPackets false        # automatically request IO packets
RequestEncoderPackets false   # automatically request encoder packets
SwitchToBaudRate 0            ; switch to this baud if non-0 and supported

Section Conversion factors
AngleConvFactor 0.0061359     ; radians per angular unit
DistConvFactor 0.05066        ; multiplier to mm from robot units
VelConvFactor 2.5332          ; multiplier to mm/sec from robot units
RangeConvFactor 0.1734        ; multiplier to mm from sonar units
DiffConvFactor 0.00333        ; ratio of angular velocity to wheel velocity
Vel2Divisor 4                 ; divisor for VEL2 commands
GyroScaler 1.626              ; scaling factor for gyro readings (kept in extra)

Section Movement control parameters
;  if these are 0 the parameters from robot flash will be used
SettableVelMaxes true         ; if TransVelMax and RotVelMax can be set
TransVelMax 400               ; maximum desired translational velocity
RotVelMax 100                 ; maximum desired rotational velocity
SettableAccsDecs false        ; if the accel and decel parameters can be set
TransAccel 0                  ; translational acceleration
TransDecel 0                  ; translational deceleration
RotAccel 0                    ; rotational acceleration
RotDecel 0                    ; rotational deceleration

Section Simulator error model
;  Saphira keys, std dev per unit of motion (see saphira.params.robot_params.RobotParams)
AngleJitter 0.01              ; deg of heading error per deg turned
AngleDrift 0.003              ; deg of heading error per mm driven
DistJitter 0.01               ; mm of distance error per mm driven

Section Sonar parameters
SonarNum 7                    ; number of sonars on the robot
;  SonarUnit <number> <x mm> <y mm> <heading deg>
SonarUnit    0  100  100   90
SonarUnit    1  120   80   30
SonarUnit    2  130   40   15
SonarUnit    3  130    0    0
SonarUnit    4  130  -40  -15
SonarUnit    5  120  -80  -30
SonarUnit    6  100 -100  -90
