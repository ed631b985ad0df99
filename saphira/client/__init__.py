"""The client side of a robot connection: transports chosen by URL, the links, the state reflector,
motion setpoints, odometry, artifacts and the sensors. Knows no simulator."""
