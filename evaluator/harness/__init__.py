"""How a test is fed and read, on the grader's side: stdin/stdout, call-based, assertion. Each
module builds a problem's job for the sandbox and judges its runs; the half that runs inside
the sandboxed child is :mod:`evaluator.sandbox.inside`."""
