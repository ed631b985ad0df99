"""Robot parameter files (Saphira's and ARIA's ``.p`` files), the robot models and the laser settings."""
