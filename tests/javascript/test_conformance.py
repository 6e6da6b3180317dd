"""JavaScript programs run by node plainly and in the sandbox agree (verdict, stdout, exit
status): stdin read whole, by lines and by events; every exit path; thrown errors and
rejected promises; stack and memory limits; timers; worker threads; files in the run
directory. The plain run: ``tests/languages/runtime_plain.py``."""

from __future__ import annotations

from tests.languages.runtime_plain import SUM_INPUT, conformance_test

CASES = [
    (
        "packages_from_npm",
        'const _ = require("lodash"), md5 = require("js-md5"), seed = require("seedrandom");\n'
        'console.log(_.chunk([1, 2, 3], 2), md5("abc"), seed("x")() === seed("x")());',
        b"",
    ),
    (
        "read_all_fd0",
        """
const lines = require("fs").readFileSync(0, "utf8").trim().split("\\n");
for (const line of lines.slice(1)) { const [a, b] = line.split(" ").map(Number); console.log(a + b); }
""",
        SUM_INPUT,
    ),
    (
        "readline_events",
        """
const rl = require("readline").createInterface({ input: process.stdin });
const got = []; rl.on("line", (l) => got.push(l));
rl.on("close", () => { for (const l of got.slice(1)) { const [a, b] = l.split(" ").map(Number); console.log(a * b); } });
""",
        SUM_INPUT,
    ),
    (
        "stdin_data_events",
        """
let data = ""; process.stdin.setEncoding("utf8");
process.stdin.on("data", (c) => (data += c));
process.stdin.on("end", () => process.stdout.write(String(data.length) + "\\n"));
""",
        SUM_INPUT,
    ),
    ("write_then_exit_code", 'process.stdout.write("partial\\n"); process.exit(3);', b""),
    ("exit_code_property", 'console.log("x"); process.exitCode = 4;', b""),
    ("uncaught_throw", 'console.log("before"); throw new Error("boom");', b""),
    ("syntax_error", "function (", b""),
    ("rejected_promise", 'Promise.reject(new Error("no"));', b""),
    (
        "deep_recursion_range_error",
        "function f(n) { return n === 0 ? 0 : 1 + f(n - 1); } console.log(f(1e6));",
        b"",
    ),
    (
        "recursion_within_stack",
        "function f(n) { return n === 0 ? 0 : 1 + f(n - 1); } console.log(f(5000));",
        b"",
    ),
    ("infinite_loop", "for (;;) {}", b""),
    ("memory_hog", "const a = []; for (;;) a.push(new Array(1e6).fill(1));", b""),
    (
        "big_output",
        'let s = ""; for (let i = 0; i < 100000; i++) s += i + "\\n"; process.stdout.write(s);',
        b"",
    ),
    ("stderr_only", 'console.error("to stderr"); console.log("ok");', b""),
    (
        "timers_and_promises",
        'setTimeout(() => console.log("later"), 10); Promise.resolve().then(() => console.log("micro")); console.log("now");',
        b"",
    ),
    ("bigint_math", "console.log((2n ** 200n).toString());", b""),
    (
        "worker_thread",
        """
const { Worker } = require("worker_threads");
const w = new Worker("const { parentPort } = require('worker_threads'); parentPort.postMessage(6 * 7);", { eval: true });
w.on("message", (m) => { console.log(m); w.terminate(); });
""",
        b"",
    ),
    (
        "write_file_in_cwd",
        'const fs = require("fs"); fs.writeFileSync("x.txt", "hi"); console.log(fs.readFileSync("x.txt", "utf8"));',
        b"",
    ),
]


test_sandbox_agrees_with_a_plain_run = conformance_test("javascript", CASES)
