"""The code that runs inside a sandboxed child, after its limits and confinement are in place.

Imported by the fork template at start-up, so every child has it without importing anything;
it must stay small and import nothing heavy, and nothing here decides a verdict: the child
runs the program and reports what happened (comparing with expected outputs happens in the
grader, outside the sandbox).

- :mod:`.interpreter`: a plain run (``python3 solution.py < input > output``) rebuilt in a
  forked child: its streams, ``__main__``, exit path;
- :mod:`.harness`: one test (stdin, call-based or assertion) and its report;
- :mod:`.batch`: a batch child's loop over a submission's tests, each input received when its
  test starts;
- :mod:`.state`: what a stdin test may leave behind (adaptive isolation's check), and
  :mod:`.process`, its half that reads what the kernel keeps for the process;
- :mod:`.split` and :mod:`.plain`: a split assertion test's two processes and the plain data
  they exchange.
"""
