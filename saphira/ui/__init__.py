"""The live view: Saphira's client window as a web page.

* :mod:`saphira.display.state` — the display state (``sfSetDisplayState``), key/mouse hooks, the view.
* :mod:`saphira.display.drawing` — the drawing and colour API user tasks draw in the LPS with.
* :mod:`saphira.ui.snapshot` — what a page gets per display period, captured at a cycle boundary.
* :mod:`saphira.ui.liveview` — the glue: the display task, the page's commands, the keyboard drive.
* :mod:`saphira.ui.server` — HTTP and WebSocket (aiohttp) in its own thread, behind a secret token.
* :mod:`saphira.ui.access` — only the view's own page may reach it; the headers of every answer.
* :mod:`saphira.ui.requests` — the fields of a page's request, checked where it arrives.
* :mod:`saphira.ui.simview` — ``saphira sim --ui``: the true world with every robot.

Only :mod:`saphira.ui.server` needs aiohttp; the rest (and the Colbert bindings built on it) do not.
"""
