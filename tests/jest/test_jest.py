"""Jest test files (``jest``: SandboxFusion's tag) run by Jest plainly (its command line in a
fresh directory) and in the sandbox agree (verdict, stdout, exit status): passing and failing
tests, TypeScript through Babel, ``@jest/globals`` and the npm packages, async tests, a test
file that does not compile or throws as it loads; and the security battery in a test."""

from __future__ import annotations

import pytest

from tests.languages.runtime_plain import assert_agrees, assert_refused, needs_runtime

pytestmark = needs_runtime("jest")

SUM = "function sum(a: number, b: number): number { return a + b; }\n"
CASES = [
    (
        "passes_with_globals",
        "import { describe, expect, test } from '@jest/globals';\n"
        + SUM
        + "describe('sum', () => {\n  test('adds', () => { expect(sum(1, 2)).toBe(3); });\n"
        "  test('zero', () => { expect(sum(0, 0)).toBe(0); });\n});\n",
    ),
    (
        "fails_one_of_two",
        SUM + "test('a', () => expect(sum(1, 2)).toBe(3));\n"
        "test('b', () => expect(sum(1, 2)).toBe(4));\n",
    ),
    (
        "lodash_and_md5",
        "import _ from 'lodash';\nconst md5 = require('js-md5');\n"
        "test('packages', () => { expect(_.chunk([1, 2, 3], 2)).toEqual([[1, 2], [3]]);\n"
        "  expect(md5('')).toBe('d41d8cd98f00b204e9800998ecf8427e'); });\n",
    ),
    (
        "async_test",
        "test('waits', async () => {\n  const v = await new Promise<number>(r => "
        "setTimeout(() => r(7), 10));\n  expect(v).toBe(7);\n});\n",
    ),
    ("console_output", "test('logs', () => { console.log('seen'); expect(1).toBe(1); });\n"),
    ("does_not_compile", "test('x', () => { const x: number = ; });\n"),
    ("throws_while_loading", "throw new Error('at load');\ntest('never', () => {});\n"),
    ("no_tests", "const x: number = 1;\n"),
]


@pytest.mark.parametrize(("name", "source"), CASES, ids=[c[0] for c in CASES])
def test_sandbox_agrees_with_a_plain_run(languages_grader, name, source):
    assert_agrees(languages_grader, "jest", name, source, b"")


JEST_PROBES = """
const fs = require('fs');
const child = require('child_process');
const net = require('net');
function probe(what: string, act: () => any) {
  try { const r = act(); process.stdout.write(what + ' ' + (r ?? 'done') + '\\n'); }
  catch (e) { process.stdout.write(what + ' refused\\n'); }
}
test('probes', () => {
  probe('exec_sync', () => child.execSync('echo hi').toString().trim());
  probe('spawn_sync', () => { const r = child.spawnSync('/bin/true'); if (r.error) throw r.error; return r.status; });
  probe('read_passwd', () => fs.readFileSync('/etc/passwd', 'utf8').length);
  probe('write_var_tmp', () => fs.writeFileSync('/var/tmp/mcprobe', 'x'));
  probe('proc_parent', () => fs.readFileSync('/proc/1/cmdline', 'utf8'));
  probe('own_file', () => { fs.writeFileSync('mine.txt', 'ok'); return fs.readFileSync('mine.txt', 'utf8'); });
});
"""


def test_a_jest_test_reaches_nothing_past_the_program(languages_grader):
    refused = ["exec_sync", "spawn_sync", "read_passwd", "write_var_tmp", "proc_parent"]
    assert_refused(languages_grader, "jest", JEST_PROBES, refused, ["own_file ok"])
