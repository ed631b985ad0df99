"""Sensors as the client holds them: the sonar ring and its buffers, the laser, the gripper and vision."""
