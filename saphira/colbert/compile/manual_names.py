"""Names the manual writes that Colbert lacks on purpose, and what to write instead.

Some of the manual's names are C-only ("not in Colbert": callbacks, ``sfPause``,
the ``sfAddEval*`` registration calls) or are Saphira 5.3 API that 6.x dropped. Using one of them is
refused with what to write instead, rather than "unknown function": :data:`NOT_IN_COLBERT`.
Names that are bound (see :mod:`saphira.colbert.bindings.table`) always win over this table. The compiler
refuses a call of one with :func:`not_in_colbert`'s text, and ``help`` shows it.
"""

from __future__ import annotations

_CALLBACK = (
    "is a C callback registration, not in Colbert; put the code at the top level of a file (it runs when "
    "the file is loaded, e.g. init.act) or, from Python, subscribe to robot.scheduler.on_connect/on_disconnect"
)
_ADD_EVAL = (
    "registers names from C and is not callable from Colbert; in a Python plugin's load_init(env) call "
    "env.add_function, env.add_variable, env.add_constant or env.add_struct"
)
_OLD_BEHAVIORS = (
    "is Saphira 5.3 API, gone in 6.x; start a behavior with 'start NAME(args) priority P' and control it "
    "with signals (suspend, resume, remove NAME)"
)
_INPUT_CALLBACK = "registers a C key or mouse callback and is not in Colbert; there is no replacement in Colbert"

NOT_IN_COLBERT: dict[str, str] = {
    "sfPause": (
        "is C's way to let the OS run and is not in Colbert; in an act write 'waitfor 0 timeout N;' to wait "
        "N cycles of 100 ms, or 'waitfor CONDITION;'"
    ),
    "sfStartup": "starts the C client and is not in Colbert; 'saphira run' and 'saphira shell' start the OS",
    "sfInitProcess": (
        "takes a C function and is not in Colbert; define an 'act' and 'start' it (or add a task from Python "
        "with robot.scheduler.add)"
    ),
    "sfOnStartupFn": _CALLBACK,
    "sfOnConnectFn": _CALLBACK,
    "sfOnDisconnectFn": _CALLBACK,
    "sfKeyProcFn": _INPUT_CALLBACK,
    "sfProcessKey": _INPUT_CALLBACK,
    "sfButtonProcFn": _INPUT_CALLBACK,
    "sfAddEvalFn": _ADD_EVAL,
    "sfAddEvalVar": _ADD_EVAL,
    "sfAddEvalConst": _ADD_EVAL,
    "sfAddEvalStruct": _ADD_EVAL,
    "sfInitBehavior": _OLD_BEHAVIORS,
    "sfInitBehaviorDup": _OLD_BEHAVIORS,
    "sfKillBehavior": _OLD_BEHAVIORS,
    "sfBehaviorOn": _OLD_BEHAVIORS,
    "sfBehaviorOff": _OLD_BEHAVIORS,
    "sfSetBehaviorState": _OLD_BEHAVIORS,
    "sfFindBehavior": _OLD_BEHAVIORS,
    "sfInitIntendBeh": _OLD_BEHAVIORS,
    "intend_beh": _OLD_BEHAVIORS,
    "sfInitActivity": "is Saphira 5.3 API, gone in 6.x; start an activity with 'start NAME(args)'",
    "sbucket": "is a C array and Colbert has no arrays; read one sonar with sfSonarRange(i)",
}


def not_in_colbert(name: str) -> str | None:
    """Why ``name`` is refused and what to use instead, or None when it is not a name the manual keeps from Colbert."""
    reason = NOT_IN_COLBERT.get(name)
    return None if reason is None else f"'{name}' {reason}"
