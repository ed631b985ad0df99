"""Simulator speed with its protocol server: lock-step 100 ms steps per second of CPU.

Loads, all P3-DXs (16 sonars) wandering in AMROffice.map:

* baseline — the physics alone (``Simulation.step`` + taking the sonar readings), measured in this run;
* served — the same robots each behind a ``PioneerServer`` on an in-process pipe: every step decodes
  the commands a raw client end sent (a VEL and an RVEL every 3 s, PULSEs in between), steps the world,
  and encodes a SIP with the new sonar readings, which the client end drains;
* client — one robot with the whole client on top (``Robot`` + link + reflector + scheduler, connected
  by ``attach_simulator``), as the project's acceptance runs use it.

Targets (issue 4): >= 2,000 steps/s for one robot, >= 200 for ten. Run from the project root:
``python bench/bench_sim.py``.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from saphira.client.transport import MemoryTransport, memory_pair
from saphira.params.robot_params import RobotParams, find_params_file, load_params
from saphira.protocol.command_packet import encode_command
from saphira.protocol.commands import Command
from saphira.protocol.sync import encode_sync
from saphira.robot import Robot
from saphira.sim.embedded import attach_simulator
from saphira.sim.server import PioneerServer, ServedSimulation
from saphira.sim.simulation import SimRobot, Simulation
from saphira.world.world import World, load_world

OFFICE = Path(__file__).resolve().parents[1] / "maps" / "AMROffice.map"
DT = 0.1
WARMUP = 20


def wander_commands(i: int, k: int) -> tuple[int, int]:
    """The (VEL, RVEL) robot ``k`` is given at step ``i`` (a new pair every 30 steps)."""
    phase = i // 30 + k
    return (600 if phase % 3 else -300), (25 if phase % 2 else -40)


def physics(world: World, params: RobotParams, robots: int, steps: int) -> float:
    sim = Simulation(world, seed=1)
    fleet = [sim.add_robot(params) for _ in range(robots)]
    for robot in fleet:
        robot.cmd_sonar(True)
    start = 0.0
    for i in range(WARMUP + steps):
        if i == WARMUP:
            start = time.perf_counter()
        if i % 30 == 0:
            for k, robot in enumerate(fleet):
                vel, rvel = wander_commands(i, k)
                robot.cmd_vel(vel)
                robot.cmd_rvel(rvel)
        sim.step(DT)
        for robot in fleet:
            robot.take_new_readings()
    return steps / (time.perf_counter() - start)


def _open(host: ServedSimulation, client: MemoryTransport) -> None:
    for n in range(3):
        client.write(encode_sync(n))
        host.cycle(0.0)
    client.write(encode_command(Command.OPEN, 1))
    client.write(encode_command(Command.ENABLE, 1))
    host.cycle(0.0)
    client.read()


def served(world: World, params: RobotParams, robots: int, steps: int) -> tuple[float, int]:
    """Steps per second, and bytes of SIPs the clients drained."""
    sim = Simulation(world, seed=1)
    host = ServedSimulation(sim, period=DT)
    clients: list[MemoryTransport] = []
    fleet: list[SimRobot] = []
    for _ in range(robots):
        robot = sim.add_robot(params)
        client, server_end = memory_pair()
        host.add(PioneerServer(sim, robot, server_end, period=DT))
        clients.append(client)
        fleet.append(robot)
    for client in clients:
        _open(host, client)
    pulse = encode_command(Command.PULSE)
    drained = 0
    start = 0.0
    now = 0.0
    for i in range(WARMUP + steps):
        if i == WARMUP:
            start = time.perf_counter()
            drained = 0
        for k, client in enumerate(clients):
            if i % 30 == 0:
                vel, rvel = wander_commands(i, k)
                client.write(encode_command(Command.VEL, vel) + encode_command(Command.RVEL, rvel))
            elif i % 10 == 0:
                client.write(pulse)
        host.cycle(now)
        now += DT
        for client in clients:
            drained += len(client.read())
    rate = steps / (time.perf_counter() - start)
    for server in host.servers:
        assert server.stats.handler_errors == 0 and server.stats.watchdog_stops == 0
    return rate, drained


def server_cost(world: World, params: RobotParams, steps: int) -> float:
    """Median microseconds per step spent in one server (command decoding, SIP encoding) and its
    client end, the world step itself excluded (the median shrugs off a busy machine's preemptions)."""
    sim = Simulation(world, seed=1)
    robot = sim.add_robot(params)
    client, server_end = memory_pair()
    server = PioneerServer(sim, robot, server_end, period=DT)
    host = ServedSimulation(sim, [server], period=DT)
    _open(host, client)
    pulse = encode_command(Command.PULSE)
    spent: list[float] = []
    now = 0.0
    for i in range(steps):
        if i % 30 == 0:
            vel, rvel = wander_commands(i, 0)
            client.write(encode_command(Command.VEL, vel) + encode_command(Command.RVEL, rvel))
        elif i % 10 == 0:
            client.write(pulse)
        t0 = time.perf_counter()
        server.receive(now)
        t1 = time.perf_counter()
        sim.step(DT)
        t2 = time.perf_counter()
        server.after_world_step()
        server.send(now)
        client.read()
        spent.append((t1 - t0) + (time.perf_counter() - t2))
        now += DT
    return 1e6 * statistics.median(spent)


def full_client(world: World, steps: int) -> float:
    robot = Robot()
    attach_simulator(robot, world, "p3dx", seed=1)
    start = 0.0
    for i in range(WARMUP + steps):
        if i == WARMUP:
            start = time.perf_counter()
        if i % 30 == 0:
            vel, rvel = wander_commands(i, 0)
            robot.motion.set_velocity(vel)
            robot.motion.set_rvelocity(rvel)
        robot.step()
    return steps / (time.perf_counter() - start)


def main() -> None:
    office = load_world(OFFICE)
    params = load_params(find_params_file("p3dx"))
    print(f"world {OFFICE.name}: {len(office.segments)} segments; robot p3dx with {params.sonar_num} sonars")
    for robots, steps, target in ((1, 3000, 2000), (10, 400, 200)):
        # Best of three, interleaved, so that a busy machine disturbs both sides alike.
        base = rate = 0.0
        drained = 0
        for _ in range(3):
            base = max(base, physics(office, params, robots, steps))
            measured, drained = served(office, params, robots, steps)
            rate = max(rate, measured)
        label = f"{robots} robot{'s' if robots > 1 else ''}"
        print(f"{label:>9}: physics alone  {base:8.0f} steps/s (baseline)")
        print(
            f"{'':>9}  with servers   {rate:8.0f} steps/s  ratio {rate / base:4.2f}x baseline  "
            f"per-step server cost {1e6 * (1 / rate - 1 / base) / robots:6.1f} us/robot  "
            f"({drained / steps / robots:.0f} SIP bytes/step/robot; target >= {target} steps/s: "
            f"{'met' if rate >= target else 'MISSED'})"
        )
    cost = min(server_cost(office, params, 3000) for _ in range(3))
    print(f"{'1 robot':>9}: server alone   {cost:8.1f} us/step median (receive, SIP encode, drain; no physics)")
    base = max(physics(office, params, 1, 2000) for _ in range(2))
    client = max(full_client(office, 2000) for _ in range(2))
    print(
        f"{'1 robot':>9}: whole client   {client:8.0f} steps/s  ratio {client / base:4.2f}x physics alone "
        f"(Robot + link + reflector + scheduler, lock-step)"
    )


if __name__ == "__main__":
    main()
