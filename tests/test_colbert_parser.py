"""The Colbert front end: every example program of the manual (docs/colbert.md) parses into the expected AST,
every C construct Colbert lacks is refused with a precise message at the right place, and
``parse_all_errors`` reports independent errors of one file."""

from __future__ import annotations

import random
import re

import pytest

from saphira.colbert.syntax import ast
from saphira.colbert.syntax.ast_builder import CURRENT_SESSION, ColbertAstBuilder, ParseSession
from saphira.colbert.syntax.errors import ColbertSyntaxError
from saphira.colbert.syntax.parser import (
    GRAMMAR_FILE,
    CompiledGrammar,
    colbert_grammar,
    parse,
    parse_all_errors,
    parse_interactive,
    parse_statement,
)

# ---- the manual's programs (with the listings' placeholders filled in) -----------------

DIRECT_ACT = """\
/* direct motion examples */
act patrol(int a)            /* go back and forth a times; a<0 = forever */
{ while (a != 0)
  { a = a - 1;
    turnto(180); move(1000);
    turnto(0);   move(1000); } }

act square                   /* move in a square */
{ int a;
  a = 4;
  while (a) { a = a - 1; move(1000); turn(90); } }

act aa                       /* call them sequentially */
{ trace patrol;
  start patrol(4);
  start square; }

sfSetDisplayState(sfGLOBAL, 1);   /* global display */
start aa;                         /* top-level activity */
"""

SQUARE_WITH_UPDATE = """\
act square(int len) { int a; update sfSMessage("a is %d", a); a = 4; while (a) { a = a - 1; move(len); turn(90); } }
"""

APPROACH = """\
act approach
{ int x;
  start patrol(-1) timeout 300 noblock;   /* patrol forever, but at most 30 s; run in parallel */
checking:
  if (sfGetTaskState("patrol") == sfTIMEOUT || sfIsStalled()) fail;
  x = sObjInFront();                        /* distance to nearest object in front */
  if (x > 2000) goto checking;
  suspend patrol;                           /* else its motions would conflict */
  move(x - 200);                            /* stop 20 cm short */
  succeed;
}
"""

DEMO_ACT = """\
sfInitControlProcs();          /* behavior control */
sfInitRegistrationProcs();     /* register robot against sensed artifacts */
sfInitInterpretationProcs();   /* find walls and doors */
sfInitAwareProcs();            /* figure out where we are */
sfPreferredTurnDir = sfLEFTTURN;
start sfAvoidCollision(1.0, 1.0, 5.0, 100.0) priority 0;
start sfKeepOff(100.0, 0.25) priority 1;
start sfConstantVelocity(200) priority 2 suspend;
start sfStop priority 3 suspend;

act FindAndFollow
{ point *e;                    /* old environment */
  point *p;                    /* point to go to */
NOCORRIDOR:
  waitfor (sfCurrentEnvironment != NULL && sfCurrentEnvironment->type == CORRIDOR);
  e = sfCurrentEnvironment;
  p = sfCreateLocalPoint(10000.0, 0.0, 0.0);     /* 10 m ahead */
  sfAddPoint(p);
  start sfFollowCorridor(e, p) priority 2 iname follow noblock;
  waitfor (sfCurrentEnvironment != e || sfTaskFinished("follow"));
  remove follow;
  goto NOCORRIDOR;
oninterrupt:
  remove follow;
  suspend;
}
start FindAndFollow suspend;   /* "suspend" as shown in the listing tail */

act BumpAndGo                  /* recover from stalls (Pioneer) */
{ int stalled;
  update stalled = sfStalledMotor(0) || sfStalledMotor(1);
NOCONTACT:
  sfBehaviorControl = 1;       /* behaviors on */
  waitfor stalled;
  sfBehaviorControl = 0;       /* behaviors off */
  move(-200); turn(30);
  goto NOCONTACT;
}
start BumpAndGo;               /* started active, and traced per §2.3.12 */
"""

PACKET_ACT = """\
act DoPackets
{ int i; int x; int y;
  remove packets;              /* stop default packet handler */
  remove motor;                /* and default motor controller */
  waitfor sfIsConnected timeout 100;
  if (!sfIsConnected) fail;    /* no connection within 10 s */
  sfRobotComInt(sfCOMOPEN, 1); /* open motor controller */
  sfResetRobotVars();
  sfRobotCom(sfCOMPULSE);
  sfRobotComInt(sfCOMVEL, 300);
  i = 0;
  while (i < 100)
  { if (sfWaitClientPacket(1000))
    { i = i + 1;
      sfProcessClientPacket(sfReadClientByte());
      if (i % 10 == 0)
      { sfRobotCom(sfCOMPULSE);
        sfRobotComInt(sfCOMVEL, 300);
        sfSMessage("%d packets received", i);
        x = sfRobot.ax; y = sfRobot.ay;    /* implicit float->int for printing */
        sfSMessage("X: %d  Y: %d", x, y); } } }
  sfRobotComInt(sfCOMVEL, 0);
  sfDisconnectFromRobot();
}
connect local;                 /* or: connect serial <port> */
start DoPackets;
"""

# Smaller examples from the text of §6 and §7.
SNIPPETS = {
    "goal point (§6.5)": "point *goal; goal = sfCreateLocalPoint(1000.0, 0.0, 0.0); sfAddPoint(goal); "
    "start sfGoToPos(200.0, goal, 100.0);",
    "start behaviors (§6.6)": "act startb { start b1 noblock; start b2 noblock; start b3 noblock; }",
    # §7.10 calls the middle act "goto", a C keyword; any other name shows the same thing.
    "hierarchy (§7.10)": "act move_object(int dest) { start pickup; start go_to(dest); start drop; }",
    "declarations (§7.3)": "int a; ptr tonowhere; float f; robot *r;",
    "expression (§7.4)": "1 + 4 * 3 / 2 > a;",
    "struct slots (§3.1)": "sfRobot.ax = sfRobot.ax + 1000.0;",
    "keep off (§6.5)": "start sfKeepOff(100.0, 0.25) iname keepoff timeout 50 priority 1 noblock;",
    "motion (§7.11)": "move(500) timeout 20 noblock; turn(-90); turnto(180) noblock; speed(200); rotate(-10); halt;",
    "inquiries (§7.10)": 'if (sfTaskFinished("follow") == 1 && sfTaskSuspended("follow") == 0) remove follow;',
    "empty statements (§7.6)": "; {} act nothing {}",
}

ALL_PROGRAMS = {
    "direct.act": DIRECT_ACT,
    "square variant": SQUARE_WITH_UPDATE,
    "approach": APPROACH,
    "demo.act": DEMO_ACT,
    "packet.act": PACKET_ACT,
    **SNIPPETS,
}


def where(text: str, needle: str, occurrence: int = 1) -> ast.Pos:
    """Line and column of the ``occurrence``-th ``needle`` in ``text``."""
    offset = -1
    for _ in range(occurrence):
        offset = text.index(needle, offset + 1)
    line = text.count("\n", 0, offset) + 1
    return ast.Pos(line, offset - (text.rfind("\n", 0, offset) + 1) + 1)


def acts(program: ast.Program) -> dict[str, ast.ActDef]:
    return {item.name: item for item in program.items if isinstance(item, ast.ActDef)}


def error_of(text: str, **kwargs: object) -> ColbertSyntaxError:
    with pytest.raises(ColbertSyntaxError) as caught:
        parse(text, "t.act", **kwargs)  # type: ignore[arg-type]
    return caught.value


@pytest.mark.parametrize("name", list(ALL_PROGRAMS))
def test_every_example_program_parses(name: str) -> None:
    program = parse(ALL_PROGRAMS[name], f"{name}")
    assert program.items
    assert program.filename == name


def test_direct_act_tree() -> None:
    program = parse(DIRECT_ACT, "direct.act")
    patrol, square, aa, display, start = program.items
    assert isinstance(patrol, ast.ActDef)
    assert patrol.name == "patrol"
    assert patrol.params == (ast.Param("a", ast.TypeRef("int", 0, ast.Pos(2, 12)), ast.Pos(2, 16)),)
    assert patrol.filename == "direct.act"
    assert (patrol.pos, patrol.end_line) == (ast.Pos(2, 1), 6)
    (loop,) = patrol.body
    assert isinstance(loop, ast.While)
    assert loop.condition == ast.Binary(
        "!=", ast.Name("a", ast.Pos(3, 10)), ast.IntLiteral(0, ast.Pos(3, 15)), ast.Pos(3, 10)
    )
    assert isinstance(loop.body, ast.Block)
    decrement, *motions = loop.body.body
    assert decrement == ast.Assign(
        ast.Name("a", ast.Pos(4, 5)),
        ast.Binary("-", ast.Name("a", ast.Pos(4, 9)), ast.IntLiteral(1, ast.Pos(4, 13)), ast.Pos(4, 9)),
        ast.Pos(4, 5),
    )
    assert [(m.command, m.argument, m.noblock) for m in motions if isinstance(m, ast.Motion)] == [
        ("turnto", ast.IntLiteral(180, ast.Pos(5, 12)), False),
        ("move", ast.IntLiteral(1000, ast.Pos(5, 23)), False),
        ("turnto", ast.IntLiteral(0, ast.Pos(6, 12)), False),
        ("move", ast.IntLiteral(1000, ast.Pos(6, 23)), False),
    ]
    assert isinstance(square, ast.ActDef) and square.params == ()
    assert square.locals == (ast.VarDecl("a", ast.TypeRef("int", 0, ast.Pos(9, 3)), ast.Pos(9, 7)),)
    assert isinstance(aa, ast.ActDef)
    assert aa.body == (
        ast.Signal("trace", "patrol", ast.Pos(14, 3)),
        ast.Start("patrol", (ast.IntLiteral(4, ast.Pos(15, 16)),), None, None, None, False, False, ast.Pos(15, 3)),
        ast.Start("square", (), None, None, None, False, False, ast.Pos(16, 3)),
    )
    assert display == ast.ExprStatement(
        ast.Call(
            "sfSetDisplayState",
            (ast.Name("sfGLOBAL", ast.Pos(18, 19)), ast.IntLiteral(1, ast.Pos(18, 29))),
            ast.Pos(18, 1),
        ),
        ast.Pos(18, 1),
    )
    assert start == ast.Start("aa", (), None, None, None, False, False, ast.Pos(19, 1))


def test_update_statement_is_kept_apart_from_the_body() -> None:
    (square,) = parse(SQUARE_WITH_UPDATE).items
    assert isinstance(square, ast.ActDef)
    assert [p.name for p in square.params] == ["len"]
    assert isinstance(square.update, ast.ExprStatement)
    assert isinstance(square.update.expr, ast.Call) and square.update.expr.function == "sfSMessage"
    assert square.update.expr.args[0] == ast.StringLiteral("a is %d", where(SQUARE_WITH_UPDATE, '"a is'))
    assert isinstance(square.body[0], ast.Assign)


def test_approach_labels_goto_start_options_and_signals() -> None:
    (approach,) = parse(APPROACH).items
    assert isinstance(approach, ast.ActDef)
    start, label, check, _assign, goto_if, suspend, move, succeed = approach.body
    assert start == ast.Start(
        "patrol",
        (ast.Unary("-", ast.IntLiteral(1, ast.Pos(3, 17)), ast.Pos(3, 16)),),
        None,
        ast.IntLiteral(300, where(APPROACH, "300")),
        None,
        True,
        False,
        ast.Pos(3, 3),
    )
    assert label == ast.Label("checking", ast.Pos(4, 1))
    assert isinstance(check, ast.If) and check.then == ast.Signal("fail", None, ast.Pos(5, 63))
    assert isinstance(check.condition, ast.Binary) and check.condition.op == "||"
    assert isinstance(check.condition.left, ast.Binary) and check.condition.left.op == "=="
    assert isinstance(goto_if, ast.If) and goto_if.then == ast.Goto("checking", ast.Pos(7, 17))
    assert suspend == ast.Signal("suspend", "patrol", ast.Pos(8, 3))
    assert isinstance(move, ast.Motion) and isinstance(move.argument, ast.Binary)
    assert succeed == ast.Signal("succeed", None, ast.Pos(10, 3))


def test_demo_act_behaviors_handlers_arrows_and_update() -> None:
    program = parse(DEMO_ACT, "demo.act")
    starts = [item for item in program.items if isinstance(item, ast.Start)]
    assert [(s.schema, len(s.args), s.priority, s.suspend) for s in starts] == [
        ("sfAvoidCollision", 4, ast.IntLiteral(0, where(DEMO_ACT, "0;")), False),
        ("sfKeepOff", 2, ast.IntLiteral(1, where(DEMO_ACT, "1;")), False),
        ("sfConstantVelocity", 1, ast.IntLiteral(2, where(DEMO_ACT, "2 suspend")), True),
        ("sfStop", 0, ast.IntLiteral(3, where(DEMO_ACT, "3 suspend")), True),
        ("FindAndFollow", 0, None, True),
        ("BumpAndGo", 0, None, False),
    ]
    find, bump = acts(program)["FindAndFollow"], acts(program)["BumpAndGo"]
    assert [d.type for d in find.locals] == [
        ast.TypeRef("point", 1, ast.Pos(12, 3)),
        ast.TypeRef("point", 1, ast.Pos(13, 3)),
    ]
    waitfor = find.body[1]
    assert isinstance(waitfor, ast.WaitFor) and waitfor.timeout is None
    assert isinstance(waitfor.condition, ast.Binary) and isinstance(waitfor.condition.right, ast.Binary)
    arrow = waitfor.condition.right.left
    arrow_at = where(DEMO_ACT, "sfCurrentEnvironment->type")
    assert arrow == ast.FieldAccess(ast.Name("sfCurrentEnvironment", arrow_at), "type", True, arrow_at)
    follow = find.body[5]
    assert isinstance(follow, ast.Start)
    assert (follow.iname, follow.noblock, follow.suspend) == ("follow", True, False)
    assert find.body[-3:] == (
        ast.HandlerLabel("interrupt", where(DEMO_ACT, "oninterrupt:")),
        ast.Signal("remove", "follow", where(DEMO_ACT, "remove follow", 2)),
        ast.Signal("suspend", None, where(DEMO_ACT, "suspend;\n}")),
    )
    calls = where(DEMO_ACT, "sfStalledMotor(0)"), where(DEMO_ACT, "sfStalledMotor(1)")
    assert bump.update == ast.Assign(
        ast.Name("stalled", where(DEMO_ACT, "stalled =")),
        ast.Binary(
            "||",
            ast.Call("sfStalledMotor", (ast.IntLiteral(0, where(DEMO_ACT, "0) ||")),), calls[0]),
            ast.Call("sfStalledMotor", (ast.IntLiteral(1, where(DEMO_ACT, "1);")),), calls[1]),
            calls[0],
        ),
        where(DEMO_ACT, "stalled ="),
    )
    waitfor_at = where(DEMO_ACT, "waitfor stalled")
    assert (
        ast.WaitFor(ast.Name("stalled", ast.Pos(waitfor_at.line, waitfor_at.column + 8)), None, waitfor_at) in bump.body
    )


def test_packet_act_modulo_fields_waitfor_timeout_and_connect() -> None:
    program = parse(PACKET_ACT, "packet.act")
    do_packets, connect, start = program.items
    assert isinstance(do_packets, ast.ActDef)
    assert [d.name for d in do_packets.locals] == ["i", "x", "y"]
    assert do_packets.body[:2] == (
        ast.Signal("remove", "packets", ast.Pos(3, 3)),
        ast.Signal("remove", "motor", ast.Pos(4, 3)),
    )
    assert do_packets.body[2] == ast.WaitFor(
        ast.Name("sfIsConnected", ast.Pos(5, 11)), ast.IntLiteral(100, ast.Pos(5, 33)), ast.Pos(5, 3)
    )
    not_connected = do_packets.body[3]
    assert isinstance(not_connected, ast.If)
    assert not_connected.condition == ast.Unary("!", ast.Name("sfIsConnected", ast.Pos(6, 8)), ast.Pos(6, 7))
    texts = PACKET_ACT.split("\n")
    assert "i % 10 == 0" in texts[15]
    modulo = parse_statement("i % 10 == 0")
    assert isinstance(modulo, ast.ExprStatement) and isinstance(modulo.expr, ast.Binary)
    assert modulo.expr.op == "==" and isinstance(modulo.expr.left, ast.Binary) and modulo.expr.left.op == "%"
    assert connect == ast.Connect("local", None, where(PACKET_ACT, "connect local"))
    assert start == ast.Start("DoPackets", (), None, None, None, False, False, where(PACKET_ACT, "start DoPackets"))


def test_fast_path_and_lark_parser_build_the_same_tree() -> None:
    grammar = colbert_grammar()
    for name, text in ALL_PROGRAMS.items():
        reset = CURRENT_SESSION.set(ParseSession(name, text.split("\n"), frozenset({"robot", "point"})))
        try:
            assert grammar.lark.parse(text) == grammar.fast.parse(text) == parse(text, name), name
        finally:
            CURRENT_SESSION.reset(reset)


# ---- expressions, literals, declarations -----------------------------------------------------------


def expr(text: str) -> ast.Expr:
    statement = parse_statement(text)
    assert isinstance(statement, ast.ExprStatement)
    return statement.expr


def shape(node: ast.Expr) -> object:
    """The operator structure of an expression, without positions."""
    if isinstance(node, ast.Binary):
        return (shape(node.left), node.op, shape(node.right))
    if isinstance(node, ast.Unary):
        return (node.op, shape(node.operand))
    if isinstance(node, ast.FieldAccess):
        return (shape(node.target), "->" if node.arrow else ".", node.field)
    if isinstance(node, ast.Name):
        return node.name
    if isinstance(node, ast.IntLiteral | ast.FloatLiteral | ast.StringLiteral):
        return node.value
    return type(node).__name__


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("a || b && c == d + e * f", ("a", "||", ("b", "&&", ("c", "==", ("d", "+", ("e", "*", "f")))))),
        ("a - b - c", (("a", "-", "b"), "-", "c")),
        ("a / b * c % d", ((("a", "/", "b"), "*", "c"), "%", "d")),
        ("a < b == c > d", (("a", "<", "b"), "==", ("c", ">", "d"))),
        ("a | b ^ c & d", ("a", "|", ("b", "^", ("c", "&", "d")))),
        ("1 + 4 * 3 / 2 > a", ((1, "+", ((4, "*", 3), "/", 2)), ">", "a")),
        ("-a.b", ("-", ("a", ".", "b"))),
        ("!p->next->x", ("!", (("p", "->", "next"), "->", "x"))),
        ("*p + &q", (("*", "p"), "+", ("&", "q"))),
        ("(a + b) * ~c", (("a", "+", "b"), "*", ("~", "c"))),
        ("a <= b != c >= d", (("a", "<=", "b"), "!=", ("c", ">=", "d"))),
    ],
)
def test_operators_follow_c_precedence_and_associativity(source: str, expected: object) -> None:
    assert shape(expr(source)) == expected


def test_literals_keep_their_kind_and_value() -> None:
    call = expr(r'f(42, 0x1F, 017, 0, 2.23, .5, 1e3, 300.0f, "a\tb\"c\001\x41")')
    assert isinstance(call, ast.Call)
    assert [type(a).__name__ for a in call.args] == ["IntLiteral"] * 4 + ["FloatLiteral"] * 4 + ["StringLiteral"]
    assert [shape(a) for a in call.args] == [42, 31, 15, 0, 2.23, 0.5, 1000.0, 300.0, 'a\tb"c\x01A']


def test_sizeof_takes_a_type() -> None:
    assert expr("sizeof(robot)") == ast.SizeOf(ast.TypeRef("robot", 0, ast.Pos(1, 8)), ast.Pos(1, 1))
    assert expr("sizeof(int *)") == ast.SizeOf(ast.TypeRef("int", 1, ast.Pos(1, 8)), ast.Pos(1, 1))


def test_declarations_of_every_type_and_pointer_depth() -> None:
    program = parse("int a, *b; float f; string s; ptr p; void *v; behavior bh; robot **rr; point p2;")
    decls = [
        (d.name, d.type.name, d.type.pointer_depth, d.type.is_struct)
        for d in program.items
        if isinstance(d, ast.VarDecl)
    ]
    assert decls == [
        ("a", "int", 0, False),
        ("b", "int", 1, False),
        ("f", "float", 0, False),
        ("s", "string", 0, False),
        ("p", "ptr", 0, False),
        ("v", "void", 1, False),
        ("bh", "behavior", 0, False),
        ("rr", "robot", 2, True),
        ("p2", "point", 0, True),
    ]


def test_struct_types_come_from_the_caller() -> None:
    program = parse("mystruct *m; m->x = 3;", struct_types={"robot", "point", "mystruct"})
    decl, assign = program.items
    assert decl == ast.VarDecl("m", ast.TypeRef("mystruct", 1, ast.Pos(1, 1)), ast.Pos(1, 11))
    assert isinstance(assign, ast.Assign) and assign.target == ast.FieldAccess(
        ast.Name("m", ast.Pos(1, 14)), "x", True, ast.Pos(1, 14)
    )
    # Without the type, "robot * r" is a multiplication, exactly as in C.
    (product,) = parse("robot * r;", struct_types=()).items
    assert isinstance(product, ast.ExprStatement) and shape(product.expr) == ("robot", "*", "r")
    error = error_of("mystruct m;")
    assert (error.line, error.column) == (1, 10)
    assert "if 'mystruct' is a struct type, it must be imported before it is used" in error.message
    act = parse("act follow(mystruct *target, float gain) {}", struct_types=())
    (follow,) = act.items
    assert isinstance(follow, ast.ActDef)
    assert [(p.name, p.type.name, p.type.pointer_depth) for p in follow.params] == [
        ("target", "mystruct", 1),
        ("gain", "float", 0),
    ]


def test_assignment_targets_dereferences_and_fields() -> None:
    program = parse("*p = 3; sfRobot.ax = 1.0; q->next->x = 2;")
    assert [shape(a.target) for a in program.items if isinstance(a, ast.Assign)] == [
        ("*", "p"),
        ("sfRobot", ".", "ax"),
        (("q", "->", "next"), "->", "x"),
    ]


def test_keywords_may_name_struct_slots() -> None:
    assert shape(expr("p->speed + r.move")) == (("p", "->", "speed"), "+", ("r", ".", "move"))


def test_if_else_binds_to_the_nearest_if() -> None:
    outer = parse_statement("if (a) if (b) x = 1; else x = 2;")
    assert isinstance(outer, ast.If) and outer.otherwise is None
    assert isinstance(outer.then, ast.If) and isinstance(outer.then.otherwise, ast.Assign)


def test_motion_statements_with_and_without_parentheses_and_options() -> None:
    text = "move 500; move(-200) timeout 30 noblock; turn(45) noblock timeout 5; halt;"
    first, second, third, halt = parse(text).items
    assert first == ast.Motion("move", ast.IntLiteral(500, ast.Pos(1, 6)), None, False, ast.Pos(1, 1))
    assert isinstance(second, ast.Motion) and second.noblock and second.timeout == ast.IntLiteral(30, where(text, "30"))
    assert isinstance(third, ast.Motion) and third.noblock and third.timeout == ast.IntLiteral(5, where(text, "5;"))
    assert halt == ast.Halt(where(text, "halt"))


def test_start_options_in_any_order() -> None:
    a = parse_statement("start foo(1, x) iname f2 timeout 30 priority 2 noblock suspend")
    b = parse_statement("start foo(1, x) suspend noblock priority 2 timeout 30 iname f2")
    for start in (a, b):
        assert isinstance(start, ast.Start)
        assert (start.schema, len(start.args), start.iname, start.noblock, start.suspend) == (
            "foo",
            2,
            "f2",
            True,
            True,
        )
        assert isinstance(start.timeout, ast.IntLiteral) and start.timeout.value == 30
        assert isinstance(start.priority, ast.IntLiteral) and start.priority.value == 2


@pytest.mark.parametrize(
    "signal", ["stop", "suspend", "succeed", "fail", "interrupt", "resume", "remove", "trace", "untrace"]
)
def test_every_signal_to_self_and_to_an_instance(signal: str) -> None:
    assert parse_statement(f"{signal};") == ast.Signal(signal, None, ast.Pos(1, 1))  # type: ignore[arg-type]
    assert parse_statement(f"{signal} follow;") == ast.Signal(signal, "follow", ast.Pos(1, 1))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("line", "node"),
    [
        ("load colbert/demo.act", ast.Load("colbert/demo.act", ast.Pos(1, 1))),
        ("load", ast.Load(None, ast.Pos(1, 1))),
        ("unload testload.so", ast.Unload("testload.so", ast.Pos(1, 1))),
        ("unload", ast.Unload(None, ast.Pos(1, 1))),
        ("cd /usr/local/saphira/colbert", ast.ChangeDirectory("/usr/local/saphira/colbert", ast.Pos(1, 1))),
        ("cd ..", ast.ChangeDirectory("..", ast.Pos(1, 1))),
        ("pwd", ast.PrintDirectory(ast.Pos(1, 1))),
        ("help", ast.Help(None, ast.Pos(1, 1))),
        ("help movement", ast.Help("movement", ast.Pos(1, 1))),
        ("help sfSetVel", ast.Help("sfSetVel", ast.Pos(1, 1))),
        ("connect serial", ast.Connect("serial", None, ast.Pos(1, 1))),
        ("connect serial /dev/ttyS0", ast.Connect("serial", "/dev/ttyS0", ast.Pos(1, 1))),
        ("connect local", ast.Connect("local", None, ast.Pos(1, 1))),
        ("connect server flakey.ai.sri.com", ast.Connect("server", "flakey.ai.sri.com", ast.Pos(1, 1))),
        ("connect server 127.0.0.1:8101;", ast.Connect("server", "127.0.0.1:8101", ast.Pos(1, 1))),
        ("disconnect", ast.Disconnect(ast.Pos(1, 1))),
        ("exit", ast.Exit(ast.Pos(1, 1))),
        ("set serial COM1", ast.SetOption("serial", "COM1", ast.Pos(1, 1))),
        ("set baud 19200", ast.SetOption("baud", "19200", ast.Pos(1, 1))),
        ("set baud", ast.SetOption("baud", None, ast.Pos(1, 1))),
        ("set local /tmp/pipe-2", ast.SetOption("local", "/tmp/pipe-2", ast.Pos(1, 1))),
        ("set server localhost", ast.SetOption("server", "localhost", ast.Pos(1, 1))),
    ],
)
def test_utility_commands_take_words_that_are_not_c(line: str, node: ast.Statement) -> None:
    assert parse_statement(line) == node


def test_utility_arguments_stop_at_the_end_of_the_line() -> None:
    program = parse("load\nstart aa;\nload lib/foo-1.act /* the library */\ncd /tmp; pwd\n")
    assert program.items == (
        ast.Load(None, ast.Pos(1, 1)),
        ast.Start("aa", (), None, None, None, False, False, ast.Pos(2, 1)),
        ast.Load("lib/foo-1.act", ast.Pos(3, 1)),
        ast.ChangeDirectory("/tmp", ast.Pos(4, 1)),
        ast.PrintDirectory(ast.Pos(4, 10)),
    )


def test_comments_of_both_kinds_are_skipped() -> None:
    program = parse("/* a\n multi-line */ x = 1; // to the end of the line\n/**/y=2;/* x */")
    assert [item.pos for item in program.items] == [ast.Pos(2, 16), ast.Pos(3, 5)]


def test_positions_count_tabs_as_one_column() -> None:
    program = parse("act t\n{\tint a;\n\ta = 1;\n}\n")
    (act,) = program.items
    assert isinstance(act, ast.ActDef)
    assert act.locals[0].pos == ast.Pos(2, 7)
    assert act.body[0].pos == ast.Pos(3, 2)
    assert act.end_line == 4


# ---- the prompt -------------------------------------------------------------------------------------


def test_prompt_input_needs_no_semicolon_and_expressions_become_statements() -> None:
    assert parse_interactive("move(500)").items == (
        ast.Motion("move", ast.IntLiteral(500, ast.Pos(1, 6)), None, False, ast.Pos(1, 1)),
    )
    (statement,) = parse_interactive("1 + 4 * 3 / 2 > a").items
    assert isinstance(statement, ast.ExprStatement) and shape(statement.expr) == (
        (1, "+", ((4, "*", 3), "/", 2)),
        ">",
        "a",
    )
    assert parse_interactive("a = 3; b = 4").items[1] == ast.Assign(
        ast.Name("b", ast.Pos(1, 8)), ast.IntLiteral(4, ast.Pos(1, 12)), ast.Pos(1, 8)
    )
    assert parse_interactive("start foo suspend").filename == "<prompt>"


def test_prompt_backslash_continues_a_line() -> None:
    (statement,) = parse_interactive("start patrol(4) \\\n  timeout 100").items
    assert isinstance(statement, ast.Start)
    assert statement.timeout == ast.IntLiteral(100, ast.Pos(2, 11))


def test_prompt_errors_still_point_at_the_end() -> None:
    with pytest.raises(ColbertSyntaxError) as caught:
        parse_interactive("x = ")
    assert caught.value.message == "unexpected end of input; expected an expression"
    assert (caught.value.line, caught.value.column) == (1, 4)


def test_parse_statement_wants_exactly_one_statement() -> None:
    with pytest.raises(ColbertSyntaxError, match="expected a single statement") as caught:
        parse_statement("a = 1; b = 2;")
    assert caught.value.column == 8
    with pytest.raises(ColbertSyntaxError, match="expected a statement"):
        parse_statement("int a;")


# ---- what Colbert does not have ---------------------------------------------------------------------

REJECTED = [
    # (source, message fragment, line, column)
    ("x = 1, y = 2;", "Colbert has no comma operator", 1, 6),
    ("x = a ? b : c;", "Colbert has no conditional operator '?:'", 1, 7),
    ("if ((x = a) > 2) y = 1;", "Colbert has no embedded assignments", 1, 8),
    ("while (x = next()) ;", "Colbert has no embedded assignments", 1, 10),
    ("a = b = c;", "Colbert has no embedded assignments", 1, 7),
    ("f(x = 1);", "Colbert has no embedded assignments", 1, 5),
    ("x += 1;", "Colbert has no compound assignment '+='", 1, 3),
    ("x <<= 1;", "Colbert has no compound assignment '<<='", 1, 3),
    ("x++;", "Colbert has no '++' operator", 1, 2),
    ("--x;", "Colbert has no '--' operator", 1, 1),
    ("x = 1 << 2;", "Colbert has no shift operators ('<<')", 1, 7),
    ("y = x >> 2;", "Colbert has no shift operators ('>>')", 1, 7),
    ("y = (float) x;", "Colbert has no explicit casts", 1, 5),
    ("p = (robot *) q;", "Colbert has no explicit casts", 1, 5),
    ("int a[10];", "Colbert has no arrays", 1, 6),
    ("y = a[3];", "Colbert has no arrays", 1, 6),
    ("y = *(p + 1);", "Colbert has no pointer arithmetic", 1, 5),
    ("int a = 3;", "Colbert has no initializers in declarations", 1, 7),
    ("for (i = 0; i < 3; i = i + 1) move(100);", "Colbert has no 'for' loop", 1, 1),
    ("do move(1); while (x);", "Colbert has no 'do' loop", 1, 1),
    ("switch (x) { }", "Colbert has no 'switch'", 1, 1),
    ("act a { while (1) { break; } }", "Colbert has no 'break'", 1, 21),
    ("act a { return; }", "Colbert has no 'return'", 1, 9),
    ("double d;", "Colbert has no 'double'", 1, 1),
    ("char *s;", "Colbert has no 'char' type", 1, 1),
    ("struct foo { int x; };", "Colbert cannot define structs", 1, 1),
    ("typedef int myint;", "Colbert has no 'typedef'", 1, 1),
    ("const int x;", "Colbert has no type modifiers", 1, 1),
    ("static int x;", "Colbert has no storage classes", 1, 1),
    ("x = 'a';", "Colbert has no character literals", 1, 5),
    ("#include <stdio.h>", "Colbert has no preprocessor", 1, 1),
    ("int speed;", "'speed' is a Colbert keyword and cannot be used as a name", 1, 5),
    ("act move { }", "'move' is a Colbert keyword and cannot be used as a name", 1, 5),
    ("stop = 3;", "'stop' is a Colbert keyword and cannot be used as a variable name", 1, 1),
    ("act a { if (x) { here: move(1); } }", "labels are allowed only at the top level of an act body", 1, 18),
    ("here: x = 1;", "labels are allowed only at the top level of an act body", 1, 1),
    ("act a { goto nowhere; }", "no label 'nowhere' at the top level of this act", 1, 9),
    ("act a { x: ; x: ; }", "label 'x' is defined twice", 1, 14),
    ("goto x;", "'goto' is allowed only inside an act", 1, 1),
    ("update x = 1;", "'update' is allowed only in an act", 1, 1),
    ("act a { x = 1; update x = 2; }", "'update' must come right after the act's local declarations", 1, 16),
    ("act a { update x = 1; update x = 2; }", "an act has at most one 'update' statement", 1, 23),
    ("act a { update while (x) x = 1; }", "iteration ('while') is not allowed in an update statement", 1, 16),
    ("act a { update if (x) goto l; l: ; }", "'goto' is not allowed in an update statement", 1, 23),
    ("act a { x = 1; int b; }", "local variables must be declared at the start of the act", 1, 20),
    ("act a { if (x) { int b; } }", "variables can be declared only at the top level or at the start of an act", 1, 22),
    ("act a { act b { } }", "act definitions are allowed only at the top level", 1, 9),
    ("void v;", "variable 'v' cannot have type 'void'", 1, 6),
    ("3 = x;", "cannot assign to this expression", 1, 1),
    ("start foo timeout 3 timeout 4;", "'timeout' is given twice in this start statement", 1, 21),
    ("move(1) timeout 3 timeout 4;", "'timeout' is given twice in this motion statement", 1, 19),
    ("connect foo", "'connect' expects serial, local or server, not 'foo'", 1, 9),
    ("connect", "'connect' needs serial, local or server", 1, 1),
    ("set colour red", "'set' expects serial, baud, local or server, not 'colour'", 1, 5),
    ("pwd now", "'pwd' takes no arguments", 1, 5),
    ("load a.act b.act", "'load' takes at most 1 argument", 1, 12),
    ("cd", "'cd' needs a directory", 1, 1),
    ("x = 09;", "invalid octal number 09", 1, 5),
    ('s = "abc;', "unterminated string", 1, 5),
    ("x = 1; /* never closed", "unterminated comment", 1, 8),
    ("x = 1\ny = 2;", "missing ';' after '1' (found 'y' on line 2)", 1, 6),
    ("act a { move(1) }", "missing ';' after ')'", 1, 16),
    ("if (x) ; else ; else ;", "'else' must directly follow the statement of an 'if'", 1, 17),
    ("act a { update: x = 1; }", "'update' takes a statement, not a colon", 1, 15),
]


@pytest.mark.parametrize(("source", "fragment", "line", "column"), REJECTED)
def test_constructs_colbert_lacks_are_refused_precisely(source: str, fragment: str, line: int, column: int) -> None:
    error = error_of(source)
    assert fragment in error.message
    assert (error.file, error.line, error.column) == ("t.act", line, column)
    assert error.source_line == source.split("\n")[line - 1]


def test_pretty_shows_file_line_column_the_line_and_a_caret() -> None:
    error = error_of("act a\n{ int x;\n  x = 1 +;\n}\n")
    assert error.pretty() == ("t.act:3:10: unexpected ';'; expected an expression\n      x = 1 +;\n             ^")
    assert str(error) == "t.act:3:10: unexpected ';'; expected an expression"
    assert error.expected == ("an expression",)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("act foo(int) {}", "unexpected ')'; expected '*' or a name"),
        ("act foo { ) }", "unexpected ')'; expected '}', a statement or a declaration"),
        ("x = a b;", "unexpected 'b'; expected '(', ';' or an operator"),
        (
            "mystruct m;",
            "unexpected 'm'; expected '(', ':', ';' or an operator "
            "(if 'mystruct' is a struct type, it must be imported before it is used)",
        ),
        ("while x {}", "unexpected 'x'; expected '('"),
        ("start;", "unexpected ';'; expected a name"),
        ("act a { x = 1;", "unexpected end of input; expected '}', a statement or a declaration"),
        ("}", "unexpected '}'; expected end of input, a statement or a declaration"),
        ("x = f(1,;", "unexpected ';'; expected an expression"),
        ("x = 1 @ 2;", "unexpected character '@'; expected ';' or an operator"),
    ],
)
def test_expected_tokens_are_named_in_human_terms(source: str, message: str) -> None:
    error = error_of(source)
    assert error.message == message
    assert not re.search(r"\b(SEMICOLON|RPAR|LPAR|NAME|__ANON\w*|RBRACE|STAR)\b", error.message)


# ---- several errors in one file ---------------------------------------------------------------------

THREE_ERRORS = """\
act first
{ int x;
  x = 1 +;
  move(x);
}

act second(int n)
{ while (n > 0) { n = n - 1 } }

start first timeout 10;
sfSMessage("%d", 1)
start second(3);
"""


def test_three_independent_errors_are_all_reported() -> None:
    errors = parse_all_errors(THREE_ERRORS, "three.act")
    assert [(e.line, e.column) for e in errors] == [(3, 10), (8, 28), (11, 20)]
    assert [e.message for e in errors] == [
        "unexpected ';'; expected an expression",
        "missing ';' after '1'",
        "missing ';' after ')' (found keyword 'start' on line 12)",
    ]
    assert all(e.file == "three.act" for e in errors)
    assert errors[1].source_line == "{ while (n > 0) { n = n - 1 } }"


def test_reported_errors_and_stopping_errors_are_collected_in_order() -> None:
    text = "int a = 3;\nx = 1 << 2;\nact b { y = ; }\nz = (1, 2);\nw = 3\n"
    errors = parse_all_errors(text, "mix.act")
    assert [(e.line, e.column) for e in errors] == [(1, 7), (2, 7), (3, 13), (4, 7), (5, 6)]
    assert "initializers" in errors[0].message and "shift" in errors[1].message and "comma" in errors[3].message


def test_a_clean_file_has_no_errors() -> None:
    for name, text in ALL_PROGRAMS.items():
        assert parse_all_errors(text, name) == []


def test_an_unterminated_comment_ends_the_search() -> None:
    errors = parse_all_errors("x = ;\n/* never closed\ny = 2;\n", "c.act")
    assert [(e.line, e.column, e.message) for e in errors] == [
        (1, 5, "unexpected ';'; expected an expression"),
        (2, 1, "unterminated comment: this '/*' has no matching '*/'"),
    ]


# ---- the compiled-table cache -----------------------------------------------------------------------


def test_tables_are_cached_in_the_user_cache_directory(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    grammar_text = GRAMMAR_FILE.read_text(encoding="utf-8")
    first = CompiledGrammar(grammar_text, "program", ColbertAstBuilder(), "program")
    cached = list((tmp_path / "saphira").iterdir())  # type: ignore[operator]
    assert len(cached) == 1 and cached[0].stat().st_size > 0
    second = CompiledGrammar(grammar_text, "program", ColbertAstBuilder(), "program")
    reset = CURRENT_SESSION.set(ParseSession("d.act", [], frozenset({"robot", "point"})))
    try:
        assert first.fast.parse(DEMO_ACT) == second.fast.parse(DEMO_ACT) == second.lark.parse(DEMO_ACT)
    finally:
        CURRENT_SESSION.reset(reset)


def test_an_unusable_cache_directory_only_costs_time(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-directory"  # type: ignore[operator]
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    grammar = CompiledGrammar(GRAMMAR_FILE.read_text(encoding="utf-8"), "program", ColbertAstBuilder(), "program")
    reset = CURRENT_SESSION.set(ParseSession("a.act", [], frozenset()))
    try:
        assert isinstance(grammar.fast.parse(APPROACH), ast.Program)
    finally:
        CURRENT_SESSION.reset(reset)


def test_long_runs_of_blanks_before_an_error_do_not_slow_the_lexer() -> None:
    # A regular expression that gave blanks back would take exponential time here.
    errors = parse_all_errors("x = 1;" + " " * 5000 + "\n" * 500 + "@", "blank.act")
    assert [(e.line, e.column, e.message) for e in errors] == [
        (501, 1, "unexpected character '@'; expected end of input, a statement or a declaration")
    ]


def test_windows_line_ends_and_a_byte_order_mark() -> None:
    program = parse("\ufeffint a;\r\nact f\r\n{ a = 1; }\r\n", "win.act")
    decl, act = program.items
    assert decl == ast.VarDecl("a", ast.TypeRef("int", 0, ast.Pos(1, 2)), ast.Pos(1, 6))
    assert isinstance(act, ast.ActDef) and act.body[0].pos == ast.Pos(3, 3)
    error = error_of("x = 1;\r\ny = ;\r\n")
    assert (error.line, error.column, error.source_line) == (2, 5, "y = ;")


def test_damaged_programs_give_errors_never_tracebacks() -> None:
    """Seeded random edits of the manual's programs: parse() either succeeds or raises a positioned
    ColbertSyntaxError, and parse_all_errors() starts with that same error (or finds none)."""
    rng = random.Random(20240611)
    pieces = [
        *"(){};:,.=+-*/%<>!&|^~?'\"#@[]\\ \n",
        "if",
        "else",
        "while",
        "act",
        "update",
        "oninterrupt:",
        "/*",
        "load",
    ]
    texts = list(ALL_PROGRAMS.values())
    for _ in range(150):
        text = rng.choice(texts)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(text) + 1)
            text = text[:at] + rng.choice(pieces) + text[at + rng.randint(0, 1) :]
        try:
            parse(text, "damaged.act")
            first = None
        except ColbertSyntaxError as error:
            assert error.line >= 1 and error.column >= 1 and error.message
            first = (error.line, error.column, error.message)
        errors = parse_all_errors(text, "damaged.act")
        found = (errors[0].line, errors[0].column, errors[0].message) if errors else None
        assert found == first, text
