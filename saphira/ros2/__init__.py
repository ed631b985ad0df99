"""saphira on the ROS 2 graph and in ROS 2 bags, with no ROS installation (docs/ros2.md).

An output of a run, on the floor of ``ui/``: :mod:`.messages` (ROS 2's message types as DDS lays
them out), :mod:`.frames` (a run as those messages: the one place that makes them), :mod:`.topics`
(what is published and obeyed, with which QoS), :mod:`.bridge` (the cycle's side: snapshots out,
``/cmd_vel`` and ``/initialpose`` obeyed; :mod:`.drive`, :mod:`.discovery`), :mod:`.node` (the DDS
side, a process of its own, fed through :mod:`.wire`; :mod:`.graph`: the node on ``ros_discovery_info``),
:mod:`.bag` (the same messages in a ROS 2 MCAP bag). ``app/`` assembles them.
"""
