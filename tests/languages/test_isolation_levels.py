"""A program file (every language but Python) runs as a judge runs it, once per input: a
fresh process on an emptied run directory for each test, whatever isolation level the
grading asks (the levels choose among Python's ways of running tests: ``docs/plain-run.md``,
"Isolation levels"). A program that counts its runs in a file and in its memory prints 1 on
every test, at every level, in a native language and on a runtime."""

from __future__ import annotations

import pytest

from evaluator.problem import Harness, Problem, TestCase, Verdict
from evaluator.runner import GradeOptions, Grader
from evaluator.sandbox import Isolation

C_COUNTER = r"""#include <stdio.h>
int main(void) {
    int n = 0; FILE *f = fopen("count.txt", "r");
    if (f) { fscanf(f, "%d", &n); fclose(f); }
    f = fopen("count.txt", "w"); fprintf(f, "%d\n", n + 1); fclose(f);
    printf("%d\n", n + 1); return 0;
}
"""
JS_COUNTER = """const fs = require("fs");
let n = 0; try { n = Number(fs.readFileSync("count.txt", "utf8")); } catch (e) {}
globalThis.runs = (globalThis.runs || 0) + 1;
fs.writeFileSync("count.txt", String(n + 1));
console.log(n + globalThis.runs);
"""
PROBLEM = Problem("counter", Harness.STDIN, [TestCase("", "1\n")] * 3, time_limit=2.0)


@pytest.mark.parametrize("isolation", list(Isolation))
def test_every_test_of_a_program_file_is_a_fresh_run(isolation):
    with Grader(GradeOptions(isolation=isolation), workers=1) as grader:
        for language, code in (("c", C_COUNTER), ("javascript", JS_COUNTER)):
            result = grader.grade(PROBLEM, code, language=language)
            # every test expects "1": a file or a global kept from an earlier test prints 2
            assert result.verdict is Verdict.AC, (language, result)
            assert len(result.tests) == 3
