"""TypeScript programs compiled by tsc and run by node, plainly and in the sandbox, agree
(verdict, stdout, exit status): node's modules typed by @types/node, ES modules' import
syntax compiled to CommonJS, classes and generics, every exit path, limits, and a type
error, which fails the build as in AtCoder's and MultiPL-E's rule. The plain run:
``tests/languages/runtime_plain.py``."""

from __future__ import annotations

from tests.languages.runtime_plain import SUM_INPUT, conformance_test

CASES = [
    (
        "require_fs",
        """
const lines: string[] = require("fs").readFileSync(0, "utf8").trim().split("\\n");
for (const line of lines.slice(1)) { const [a, b] = line.split(" ").map(Number); console.log(a + b); }
""",
        SUM_INPUT,
    ),
    (
        "import_syntax_and_generics",
        """
import * as fs from "fs";
class Stack<T> { private items: T[] = []; push(x: T): void { this.items.push(x); } size(): number { return this.items.length; } }
const s = new Stack<string>();
for (const w of fs.readFileSync(0, "utf8").split(/\\s+/).filter((w) => w.length > 0)) s.push(w);
console.log(s.size());
""",
        SUM_INPUT,
    ),
    (
        "readline_interface",
        """
import * as readline from "readline";
const rl = readline.createInterface({ input: process.stdin });
let total = 0; rl.on("line", (l: string) => { for (const n of l.split(" ")) total += Number(n); });
rl.on("close", () => console.log(total));
""",
        SUM_INPUT,
    ),
    ("exit_code", 'console.log("x"); process.exit(3);', b""),
    (
        "thrown_error",
        'const f = (n: number): number => { throw new Error("boom " + n); }; f(1);',
        b"",
    ),
    ("infinite_loop", "let x: number = 0; for (;;) { x++; }", b""),
    ("type_error", 'let x: number = "a"; console.log(x);', b""),
    ("syntax_error", "function (", b""),
]

test_sandbox_agrees_with_a_plain_run = conformance_test("typescript", CASES)
