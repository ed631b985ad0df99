"""The Colbert evaluator: the prompt, types and casts, the binding table, registration, loading and help."""

from __future__ import annotations

from pathlib import Path

import pytest

from saphira.app.session import ColbertConnection
from saphira.colbert.evaluator import Evaluator
from saphira.core.tasks import TaskState
from saphira.robot import Robot

EXPORT_HINT = "(functions must be exported to Colbert; see 'help')"


class Prompt:
    """An evaluator (with an unconnected robot unless told otherwise) whose output lines are kept."""

    def __init__(self, robot: Robot | None = None, **kw: object) -> None:
        self.lines: list[str] = []
        self.robot = robot
        self.ev = Evaluator(robot, output=self.lines.append, read_init=False, **kw)  # type: ignore[arg-type]

    def __call__(self, text: str) -> list[str]:
        """Type ``text`` at the prompt; return the lines it printed."""
        start = len(self.lines)
        self.ev.eval_text(text)
        return self.lines[start:]

    def ok(self, text: str) -> None:
        assert self.ev.eval_text(text), self.lines


@pytest.fixture
def p() -> Prompt:
    return Prompt(Robot())


# ---------------------------------------------------------------------------------------- the prompt


def test_an_expression_at_the_prompt_prints_its_value_and_type(p: Prompt) -> None:
    assert p("1 + 4 * 3 / 2") == ["7 (int)"]
    assert p("1 + 4 * 3 / 2.0;") == ["7.0 (float)"]
    assert p('"a string"') == ['"a string" (string)']
    assert p("sfSUCCESS") == [f"{int(TaskState.SUCCESS)} (int)"]
    assert p("NULL") == ["NULL (ptr)"]
    assert p("sizeof(int)") == ["4 (int)"]
    assert p("sfSetVelocity(0)") == []  # void: nothing to print
    assert p("sfRobot.ax") == ["0.0 (float)"]


def test_implicit_casts_follow_c(p: Prompt) -> None:
    p.ok("int i; float f;")
    assert p("7 / 2") == ["3 (int)"]
    assert p("-7 / 2") == ["-3 (int)"]
    assert p("-7 % 3") == ["-1 (int)"]
    assert p("7 / 2.0") == ["3.5 (float)"]
    p.ok("i = 3.9")
    assert p("i") == ["3 (int)"]
    p.ok("f = 1")
    assert p("f") == ["1.0 (float)"]
    assert p("f > 0 && i") == ["1 (int)"]
    assert p("!f") == ["0 (int)"]
    assert p("sfNormAngle(-90)") == ["270.0 (float)"]  # int argument converted to the float parameter


def test_type_errors_name_both_types(p: Prompt) -> None:
    p.ok("int a; string s; point *pt; float f;")
    assert p("a = s")[0] == "<prompt>:1:5: type error: cannot convert string to int (assignment to 'a')"
    assert p("s + 1")[0] == "<prompt>:1:1: operator '+' cannot combine string and int"
    assert p("pt + 1")[0] == "<prompt>:1:1: pointer arithmetic is not supported (point * + int)"
    assert p("f % 2")[0] == "<prompt>:1:1: operator '%' needs int operands, not float and int"
    assert p('sfSetVelocity("fast")')[0] == (
        "<prompt>:1:15: type error: cannot convert string to int (argument 1 of sfSetVelocity)"
    )
    assert p("pt = &a")[0] == "<prompt>:1:6: type error: cannot convert int * to point * (assignment to 'pt')"
    assert p("a == s")[0] == "<prompt>:1:1: cannot compare int and string"


def test_other_compile_errors_say_what_to_do(p: Prompt) -> None:
    p.ok("int a; point *pt; act w { waitfor 0; }")
    assert p("a = nosuch")[0] == "<prompt>:1:5: unknown name 'nosuch'"
    assert p("nofn(1)")[0] == f"<prompt>:1:1: unknown function 'nofn' {EXPORT_HINT}"
    assert p("w()")[0] == "<prompt>:1:1: 'w' is an act, not a function; run it with 'start w'"
    assert p("pt.x")[0] == "<prompt>:1:1: '.' needs a struct, but this is a pointer (point *); use '->x'"
    assert p("pt->z")[0].startswith("<prompt>:1:1: struct point has no slot 'z' (its slots: x, y, th,")
    assert p("act a { ; }")[0] == "<prompt>:1:1: cannot define act 'a': the name is already a variable of type int"
    assert p("start w(1)")[0] == "<prompt>:1:1: act 'w' takes 0 arguments, 1 given"
    assert p("sfSetVelocity(1, 2)")[0] == (
        "<prompt>:1:1: 'sfSetVelocity' takes 1 argument, 2 given (void sfSetVelocity(int))"
    )
    assert p("waitfor a")[0] == "<prompt>:1:1: 'waitfor' is not allowed at top level; use it inside an act"
    assert p("suspend")[0].startswith("<prompt>:1:1: 'suspend' without an activity name only works inside an act")
    assert p("sfSUCCESS = 1")[0] == "<prompt>:1:1: cannot assign to 'sfSUCCESS': it is a constant of type int"
    assert p("sfRobot.vel = 1.0")[0] == "<prompt>:1:1: slot 'vel' of struct robot is read-only"


def test_pointers_refs_and_structs(p: Prompt) -> None:
    p.ok("int x; int *ip; ip = &x; *ip = 5")
    assert p("x") == ["5 (int)"]
    p.ok("point *g; g = sfCreateLocalPoint(1000.0, 0.0, 90.0); sfAddPoint(g)")
    assert p("g->x") == ["1000.0 (float)"]
    assert p("sfPointDist(g)") == ["1000.0 (float)"]
    assert p("g->type == POS && g != NULL") == ["1 (int)"]
    p.ok("point here; here.x = 3.0; g = &here")
    assert p("g->x + here.x") == ["6.0 (float)"]
    p.ok("sfRobot.ax = sfRobot.ax + 1000.0")  # writable: moves the robot's global pose
    assert p.robot is not None and p.robot.state.ax == 1000.0
    assert p("g = NULL; g->x")[-2] == "<prompt>:1: null pointer dereference"


def test_out_parameters_of_the_ret_functions(p: Prompt) -> None:
    p.ok("float ox; float oy; int d; ox = 7.0; d = sfOccPlaneRet(sfFRONT, sfALL, 0, 500, 500, &ox, &oy)")
    assert (p.ev.value("d"), p.ev.value("ox"), p.ev.value("oy")) == (5000, 0.0, 0.0)
    assert p("sfOccBox(sfFRONT, 1000, 600, 900, 600, 0)") == ["5000 (int)"]  # the manual's sixth argument


def test_messages_use_printf_formats_with_floats(p: Prompt) -> None:
    assert p('sfSMessage("x=%5.2f n=%d s=%s %%", 3.14159, 42, "hi")') == ["x= 3.14 n=42 s=hi %"]
    assert p('sfMessage("%d packets, %x hex, %e", 10, 255, 1500.0)') == ["10 packets, ff hex, 1.500000e+03"]


def test_linked_variables_write_through(p: Prompt) -> None:
    assert p.robot is not None
    p.ok("sfBehaviorControl = 0")
    assert p.robot.motion.behavior_control is False
    p.ok("sfPreferredTurnDir = sfRIGHTTURN")
    assert int(p.robot.executive.preferred_turn_dir) == -1
    assert p("sfIsConnected") == ["0 (int)"]
    assert p("sfPreferredTurnDir = 5")[0] == "<prompt>:1: sfPreferredTurnDir must be sfLEFTTURN or sfRIGHTTURN, not 5"


def test_prompt_statements_and_start_run_at_once() -> None:
    p = Prompt()
    p.ok("int n; act count { top: n = n + 1; goto top; }")
    p.ok("start count; stop count")
    assert p.ev.scheduler.get_task_state("count") == TaskState.SUSPEND
    p.ok("resume count")
    p.ev.scheduler.run(3)
    assert p.ev.value("n") == 3
    p.ok("int i; i = 0; while (i < 10) i = i + 1")
    assert p("i") == ["10 (int)"]


# ---------------------------------------------------------------------------------------- registration API


def test_registration_api(p: Prompt) -> None:
    class Gadget:
        def __init__(self) -> None:
            self.count = 0
            self.level = 0.0

    store = {"gain": 2}
    gadget = Gadget()
    p.ev.add_function("myfn", lambda a: a + 1, "int", ["int"], help="adds one")
    p.ev.add_function("mysum", lambda *a: sum(a), "float", ["float"], varargs=True)
    p.ev.add_variable("gain", "int", getter=lambda: store["gain"], setter=lambda v: store.__setitem__("gain", v))
    p.ev.add_variable("plain", "float", value=1.5)
    p.ev.add_constant("sfVSLOWLY", "float", 3.0)
    p.ev.add_struct("gadget", {"count": "int", "level": "float"}, factory=Gadget)
    p.ev.add_variable("thing", "gadget *", getter=lambda: gadget)
    assert p("myfn(41)") == ["42 (int)"]
    assert p("mysum(1.0, 2, 3.5)") == ["6.5 (float)"]
    p.ok("gain = gain * 10")
    assert store["gain"] == 20
    assert p("plain + sfVSLOWLY") == ["4.5 (float)"]
    p.ok("thing->count = 7; thing->level = thing->count / 2.0")
    assert (gadget.count, gadget.level) == (7, 3.5)
    p.ok("gadget g2; g2.count = 3")
    assert p("g2.count + thing->count") == ["10 (int)"]
    assert p("sizeof(gadget)") == ["8 (int)"]
    p.ev.add_help("gain", "the gain")
    assert p.ev.get_help("gain") == "the gain"
    assert p("help myfn") == ["int myfn(int): adds one"]
    assert "struct gadget { int count, float level }" in p("help structs")


# ---------------------------------------------------------------------------------------- loading


def test_load_an_act_file_relative_to_the_load_directory(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "lib.act").write_text("int loaded;\nloaded = 3;\nact hello { loaded = 4; }\n")
    p = Prompt(load_directory=tmp_path)
    p.ok("load sub/lib.act")
    assert p.ev.value("loaded") == 3
    p.ok("start hello")
    p.ev.scheduler.run(2)
    assert p.ev.value("loaded") == 4
    assert p("load nothere.act") == [f"load: no such file: {tmp_path / 'nothere.act'}"]


def test_loading_stops_at_the_first_error_and_keeps_what_came_before(tmp_path: Path) -> None:
    (tmp_path / "bad.act").write_text("int a;\na = 1;\nact ok { ; }\na = a / 0;\nint b;\n")
    p = Prompt(load_directory=tmp_path)
    assert p("load bad.act") == [f"{tmp_path / 'bad.act'}:4: division by zero", "    a = a / 0;"]
    assert p.ev.value("a") == 1
    assert p.ev.symbols.lookup("ok") is not None
    assert p.ev.symbols.lookup("b") is None


def test_a_syntax_error_runs_the_items_before_it_then_reports(tmp_path: Path) -> None:
    (tmp_path / "syn.act").write_text("int a;\na = 2;\nact ok\n{ a = 3;\n}\nact broken\n{ a = ;\n}\nint c;\n")
    p = Prompt(load_directory=tmp_path)
    out = p("load syn.act")
    assert out[0].startswith(f"{tmp_path / 'syn.act'}:7:7: ")
    assert out[1:] == ["    { a = ;", "          ^"]
    assert p.ev.value("a") == 2
    assert p.ev.symbols.lookup("ok") is not None
    assert p.ev.symbols.lookup("broken") is None and p.ev.symbols.lookup("c") is None


def test_python_plugin_load_init_and_load_exit(tmp_path: Path) -> None:
    plugin = tmp_path / "testload.py"
    plugin.write_text(
        "opened = []\n"
        "def myfn(a):\n    return a + 1\n"
        "def load_init(env):\n"
        "    opened.append(1)\n"
        "    env.add_function('myfn', myfn, 'int', ['int'])\n"
        "    env.add_constant('opened_count', 'int', len(opened))\n"
        "def load_exit(env):\n"
        "    env.output('closing testload')\n"
    )
    p = Prompt(load_directory=tmp_path)
    p.ok("load testload.py")
    assert p("myfn(1)") == ["2 (int)"]
    assert p("load") == [str(plugin)]
    assert p("load testload.py") == ["closing testload"]  # reload: load_exit, then load_init again
    p.ok("unload")
    assert p.lines[-1] == "closing testload"
    assert p("myfn(1)")[0] == f"<prompt>:1:1: unknown function 'myfn' {EXPORT_HINT}"
    assert p("unload")[0] == "<prompt>:1: unload: no plugin is loaded"


def test_a_broken_plugin_is_reported(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("def load_init(env):\n    raise RuntimeError('no hardware')\n")
    p = Prompt(load_directory=tmp_path)
    out = p("load broken.py")
    assert out[:2] == [
        f"{tmp_path / 'broken.py'}:2: plugin failed to load: RuntimeError: no hardware",
        "        raise RuntimeError('no hardware')",
    ]


def test_init_act_is_read_at_start_from_saphira_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "init.act").write_text("int configured;\nconfigured = 1;\nload more.act\n")
    (tmp_path / "more.act").write_text("configured = configured + 1;\n")
    monkeypatch.setenv("SAPHIRA_LOAD", str(tmp_path))
    lines: list[str] = []
    ev = Evaluator(output=lines.append)
    assert ev.load_directory == tmp_path.resolve()
    assert ev.value("configured") == 2
    assert lines == []


def test_cd_pwd_and_sfloaddirectory(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    p = Prompt(load_directory=tmp_path)
    assert p("pwd") == [str(tmp_path)]
    assert p("cd d") == [str(tmp_path / "d")]
    assert p("sfLoadDirectory") == [f'"{tmp_path / "d"}" (string)']
    p.ok(f'sfLoadDirectory = "{tmp_path}"')
    assert p.ev.load_directory == tmp_path
    assert p("cd nowhere")[0] == f"<prompt>:1: cd: no such directory: {tmp_path / 'nowhere'}"


def test_set_and_connect_reach_the_sessions_connection_with_its_environment_defaults() -> None:
    environ = {"SAPHIRA_COMSERIAL": "/dev/ttyS3", "SAPHIRA_COMPIPE": "9000", "SAPHIRA_COMSERVER": "robot.lan"}
    connection = ColbertConnection(None, environ=environ)
    p = Prompt(connection=connection)
    assert p("set serial") == ["serial = /dev/ttyS3"]
    assert p("sfComServer") == ['"robot.lan" (string)']
    assert p("set baud 19200") == ["baud = 19200"]
    assert p("set baud fast")[0] == "<prompt>:1: set baud: 'fast' is not a number"
    p.ok("set serial /dev/ttyUSB0")
    p.ok('sfComPipe = "/tmp/pioneer.sock"')
    assert connection.url("serial", None) == "serial:///dev/ttyUSB0?baud=19200"
    assert connection.url("local", None) == "unix:///tmp/pioneer.sock"
    assert connection.url("local", "8102") == "tcp://127.0.0.1:8102"
    assert connection.url("server", "robot.lan:8101") == "tcp://robot.lan:8101"
    urls: list[str] = []
    connection.connector = urls.append
    assert p("connect local 9000") == ["connected to tcp://127.0.0.1:9000"]
    assert urls == ["tcp://127.0.0.1:9000"]
    p.ok("exit")
    assert p.ev.exit_requested


def test_an_evaluator_given_no_connection_reads_no_connection_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where a robot is and how to reach it are the session's (app/session.py), not the language's."""
    monkeypatch.setenv("SAPHIRA_COMPIPE", "9000")
    p = Prompt(Robot())
    assert p("set local")[0] == "<prompt>:1: set: there is no robot connection in this session"
    assert p("connect local")[0] == "<prompt>:1: connect: there is no robot connection in this session"
    assert p("disconnect")[0] == "<prompt>:1: disconnect: there is no robot connection in this session"
    assert p("sfComPipe")[0] == "<prompt>:1: sfComPipe: there is no robot connection in this session"
    assert p('sfConnectToRobot(sfLOCALPORT, "")') == [
        "sfConnectToRobot: there is no robot connection in this session",
        "0 (int)",
    ]
    assert p("sfIsConnected") == ["0 (int)"]


def test_help_topics(p: Prompt) -> None:
    topics = p("help")
    assert topics[0].startswith("Help topics: activities, commands, communication, directories, loading, movement,")
    assert p("help movement")[0].startswith("Direct motion statements")
    assert p("help robot")[0].startswith("struct robot { float x, float y, float th, float ax,")
    assert "sfSetVelocity(int mms) → void: set the translational velocity setpoint, mm/s (negative: backward)" in p(
        "help sfSet"
    )  # from docs/colbert.md
    assert p("help zzz") == ["no help on 'zzz' (type 'help' for the topics)"]


def test_check_text_reports_errors_without_running_anything() -> None:
    p = Prompt()
    errors = p.ev.check_text('int a;\na = 1;\nact w { a = "s"; }\nact v { nosuch(); }\n', "c.act")
    assert [str(e) for e in errors] == [
        "c.act:3:13: type error: cannot convert string to int (assignment to 'a')",
        f"c.act:4:9: unknown function 'nosuch' {EXPORT_HINT}",
    ]
    assert p.ev.symbols.lookup("a") is None and p.ev.symbols.lookup("w") is None
    assert [e.line for e in p.ev.check_text("a = ;\n", "s.act")] == [1]


def test_predefined_behaviors_are_bound_under_their_manual_names(p: Prompt) -> None:
    assert p("sfConstantVelocity != NULL") == ["1 (int)"]
    p.ok("start sfConstantVelocity(300) priority 2 iname cv")
    assert p.ev.scheduler.get_task_state("cv") == TaskState.INIT
    assert p('start sfConstantVelocity("fast")')[0] == (
        "<prompt>:1: constant_velocity: parameter 1 (speed) must be a number (sfFLOAT), got 'fast' (str)"
    )
