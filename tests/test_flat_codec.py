"""The Flat4 codec: every example form of the seed "Using a Controller with Flat4", parsed and printed back.

The seed gives the forms with placeholders (``n1 … n12``, ``x y r numPoints``); each case below is that
form with numbers filled in, read by :func:`parse_reply` / :func:`parse_input` and printed again.
"""

from __future__ import annotations

import pytest

from saphira.flat.codec import (
    LASER_READINGS,
    Blob,
    BlobQuery,
    BlobReply,
    CodecError,
    Control,
    DefaultQuery,
    Doorway,
    DoorwayQuery,
    DoorwaysReply,
    Jump,
    JumpQuery,
    JumpsReply,
    LaserQuery,
    LaserReading,
    LaserReply,
    MapChanged,
    MapQuery,
    OpenSpaceQuery,
    OpenSpaceReply,
    Reading,
    Segment,
    SegmentQuery,
    SegmentsReply,
    StepOutput,
    TransitionQuery,
    format_input,
    format_reply,
    parse_input,
    parse_reply,
)

SONAR = "(1200 850.5 5000 5000 3100 2200 900 640 5000 5000 1800 1500)"
RANGES = " ".join(str(1000 + k) for k in range(LASER_READINGS))

# (text as Flat prints it, what it means)
REPLIES = [
    # ( ([n1 n2 ... n12]) (X Y theta) simulation-time ( [laser-data] ) ) -- sonars, no lasers
    (
        f"({SONAR} (4000 2000 90.5) 1200 ())",
        StepOutput((1200, 850.5, 5000, 5000, 3100, 2200, 900, 640, 5000, 5000, 1800, 1500), (4000, 2000, 90.5), 1200),
    ),
    # sonars not used: the list is empty "but the surrounding parentheses are still there"; one TOP laser
    (
        f"(() (-150.2 30 -45) 0 ((TOP 0 {RANGES})))",
        StepOutput((), (-150.2, 30, -45), 0, (LaserReading("TOP", 0, tuple(float(1000 + k) for k in range(180))),)),
    ),
    # two lasers: LEFT at -45, RIGHT at 45
    (f"({SONAR} (0 0 0) 100 ((LEFT -45 {RANGES}) (RIGHT 45 {RANGES})))", None),
    # (time :BLOB (x y r numPoints) (x y r numPoints) ...)
    (
        "(1300 :BLOB (120 1500 80 12) (-400.5 2200 150 30))",
        BlobReply(1300, (Blob(120, 1500, 80, 12), Blob(-400.5, 2200, 150, 30))),
    ),
    ("(1300 :BLOB)", BlobReply(1300, ())),
    # (time :DOORWAYS door1 door2 ...), each (theta jump-size)
    ("(1400 :DOORWAYS (85.5 1200) (120 900))", DoorwaysReply(1400, (Doorway(85.5, 1200), Doorway(120, 900)))),
    # (time :JUMPS jump1 jump2 ...), each (jump-size (angle1 value1) (angle2 value2))
    (
        "(1500 :JUMPS (1200 (80.5 1000) (81.5 2200)) (-900 (100.5 3000) (101.5 2100)))",
        JumpsReply(1500, (Jump(1200, 80.5, 1000, 81.5, 2200), Jump(-900, 100.5, 3000, 101.5, 2100))),
    ),
    # (time (:LEFT reading1 reading2 ...) (:RIGHT reading1 reading2 ...)), each (x y r theta)
    (
        "(1600 (:LEFT (-500 500 707.1 135) (-400 900 984.9 114)) (:RIGHT (500 500 707.1 45)))",
        LaserReply(
            1600,
            (
                ("LEFT", (Reading(-500, 500, 707.1, 135), Reading(-400, 900, 984.9, 114))),
                ("RIGHT", (Reading(500, 500, 707.1, 45),)),
            ),
        ),
    ),
    # (time :MAP-CHANGED new-map-file)
    (
        "(1700 :MAP-CHANGED /u/robot/flat-root/flat5/env/taylor-3.env)",
        MapChanged(1700, "/u/robot/flat-root/flat5/env/taylor-3.env"),
    ),
    # (time :MAP-CHANGED :NO-TRANSITION-MATCH)
    ("(1800 :MAP-CHANGED :NO-TRANSITION-MATCH)", MapChanged(1800, None)),
    # (time :OPEN-SPACE 1|0)
    ("(1900 :OPEN-SPACE 1)", OpenSpaceReply(1900, True)),
    ("(1900 :OPEN-SPACE 0)", OpenSpaceReply(1900, False)),
    # (time seg1 seg2 ...), each ((x1 y1) (x2 y2))
    (
        "(2000 ((-1000 2000) (1000 2000)) ((1500 -200) (1500 1800.5)))",
        SegmentsReply(2000, (Segment(-1000, 2000, 1000, 2000), Segment(1500, -200, 1500, 1800.5))),
    ),
    ("(2000)", SegmentsReply(2000, ())),
]


@pytest.mark.parametrize(("text", "meaning"), REPLIES, ids=[t[:30] for t, _ in REPLIES])
def test_every_reply_form_of_the_seed_reads_and_prints_back(text: str, meaning: object) -> None:
    reply = parse_reply(text)
    if meaning is not None:
        assert reply == meaning
    assert format_reply(reply) == text
    assert parse_reply(format_reply(reply)) == reply


def test_two_lasers_are_named_left_and_right_with_their_angles() -> None:
    reply = parse_reply(REPLIES[2][0])
    assert isinstance(reply, StepOutput)
    assert [(s.name, s.angle, len(s.ranges)) for s in reply.lasers] == [("LEFT", -45, 180), ("RIGHT", 45, 180)]


INPUTS = [
    ("c 300 -10.5 1 hello", Control("c", 300, -10.5, 1, "hello")),
    ("e 0 0 0", Control("e", 0, 0, 0, "")),
    ("b 300 100 4000 3 60", BlobQuery(300, 100, 4000, 3, 60)),
    ("d 45 135 500", DoorwayQuery(45, 135, 500)),
    ("j 300", JumpQuery(300)),
    ("l", LaserQuery()),
    (
        "m /u/robot/flat-root/flat5/env/taylor-4.env 29800 9700 90",
        MapQuery("/u/robot/flat-root/flat5/env/taylor-4.env", 29800, 9700, 90),
    ),
    ("o 60 120 2000 800", OpenSpaceQuery(60, 120, 2000, 800)),
    ("t GOTO-3", TransitionQuery("GOTO-3")),
    ("s 0 180 8000 300 5 1.5 30 5 200 300 1 3", SegmentQuery(0, 180, 8000, 300, 5, 1.5, 30, 5, 200, 300, 1, 3)),
    ("x", DefaultQuery()),
]


@pytest.mark.parametrize(("text", "meaning"), INPUTS, ids=[t[:12] for t, _ in INPUTS])
def test_every_controller_line_reads_and_prints_back(text: str, meaning: object) -> None:
    assert parse_input(text + "\n") == meaning
    assert format_input(parse_input(text)) == text


def test_control_lines_read_like_sscanf() -> None:
    assert parse_input("e") == Control("e", 0.0, 0.0, 1.0, "")
    assert parse_input("c 200") == Control("c", 200.0, 0.0, 1.0, "")
    assert parse_input("c 200 5 0.5 two words") == Control("c", 200.0, 5.0, 0.5, "two")  # %s stops at the blank
    assert format_input(Control("c", 1, 2, 1, "backing off now")) == "c 1 2 1 backing_off_now"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("c fast 0 1", "expected a number, not 'fast', at column 3 of 'c fast 0 1'"),
        ("q 1 2", "unknown command 'q'"),
        ("b 300 100 4000 3", "'b' needs 5 arguments, got 4"),
        ("j 300 400", "unexpected '400' at column 7"),
        ("o 60 120 2000 8.5", "expected an integer, not '8.5', at column 15"),
        ("", "empty line"),
    ],
)
def test_bad_controller_lines_name_the_offending_text(text: str, fragment: str) -> None:
    with pytest.raises(CodecError) as err:
        parse_input(text)
    assert fragment in str(err.value)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("(1300 :BLOB (1 2 3))", "expected a list of 4, got 3 items, at column 13"),
        ("(1300 :OPEN-SPACE 2)", "takes 1 or 0"),
        ("(1300 :WHAT 1)", "unknown reply keyword ':WHAT' at column 7"),
        ("((1 2) (0 0 0) 100 ())", "expected 12 sonar readings or none, got 2, at column 2"),
        ("(() (0 0 0) 100 ((TOP 0 1 2 3)))", "laser TOP has 3 readings, not 180"),
        ("(() (0 0) 100 ())", "expected a list of 3, got 2 items, at column 5"),
        ("(1300 :BLOB", "unclosed '(' at column 1"),
        ("(1300) extra", "text after the end of the form at column 8"),
        ("1300 :BLOB", "'1300' outside a list at column 1"),
        ("(1300 :JUMPS (5 (1 x) (2 3)))", "expected a number, not 'x', at column 20"),
    ],
)
def test_bad_forms_name_the_offending_text(text: str, fragment: str) -> None:
    with pytest.raises(CodecError) as err:
        parse_reply(text)
    assert fragment in str(err.value)
