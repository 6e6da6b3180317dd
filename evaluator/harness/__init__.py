"""How a test is fed and read: stdin/stdout, call-based, assertion. ``child`` is the half that
runs inside the sandbox; the other modules build jobs and judge their runs in the grader."""
