; A Pioneer 3-DX with a SICK LMS-200 on its front and no sonar, written for saphira's laser tests
; (old-ARIA keys, as in ARIA 2.x's parameter files, plus saphira's LaserNoise).
Subclass p3dx
SonarNum 0

Section Laser parameters
LaserPossessed true      ; there is a laser on the robot
LaserType lms2xx
LaserX 18                ; mm ahead of the centre of rotation
LaserY 0
LaserTh 0
LaserNoise 10            ; mm, one standard deviation of the simulated range error
