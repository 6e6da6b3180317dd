"""Rust programs built with rustc and run plainly and in the sandbox agree (verdict, stdout,
exit status): stdin read whole, by lines and locked; every exit path (process::exit, a
panic's 101, an explicit abort, an overflow caught in debug-free release arithmetic); deep
recursion on the main thread's stack; threads; limits; the build failing. The plain run:
``tests/languages/runtime_plain.py``."""

from __future__ import annotations

from tests.languages.runtime_plain import SUM_INPUT, conformance_test

CASES = [
    (
        "read_to_string",
        """
use std::io::Read;
fn main() { let mut s = String::new(); std::io::stdin().read_to_string(&mut s).unwrap();
  let v: Vec<i64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();
  for p in v[1..].chunks(2) { println!("{}", p[0] + p[1]); } }
""",
        SUM_INPUT,
    ),
    (
        "lines_locked_buffered_out",
        """
use std::io::{BufRead, BufWriter, Write};
fn main() { let stdin = std::io::stdin(); let out = std::io::stdout(); let mut w = BufWriter::new(out.lock());
  for line in stdin.lock().lines().skip(1) { let line = line.unwrap(); let mut it = line.split(' ');
    let a: i64 = it.next().unwrap().parse().unwrap(); let b: i64 = it.next().unwrap().parse().unwrap();
    writeln!(w, "{}", a * b).unwrap(); } }
""",
        SUM_INPUT,
    ),
    ("process_exit", 'fn main() { println!("x"); std::process::exit(3); }', b""),
    (
        "panic",
        'fn main() { println!("before"); let v: Vec<i32> = vec![]; println!("{}", v[1]); }',
        b"",
    ),
    ("abort", "fn main() { std::process::abort(); }", b""),
    ("unwrap_none", "fn main() { let x: Option<i32> = None; x.unwrap(); }", b""),
    (
        "deep_recursion",
        """
fn f(n: u64) -> u64 { if n == 0 { 0 } else { 1 + f(n - 1) } }
fn main() { let n = std::env::args().count() as u64 * 1_000_000; println!("{}", f(n)); }
""",
        b"",
    ),
    (
        "threads",
        """
fn main() { let handles: Vec<_> = (0..8u64).map(|i| std::thread::spawn(move || i * 6)).collect();
  println!("{}", handles.into_iter().map(|h| h.join().unwrap()).sum::<u64>()); }
""",
        b"",
    ),
    (
        "infinite_loop",
        "fn main() { let mut x: u64 = 0; loop { x = std::hint::black_box(x + 1); } }",
        b"",
    ),
    (
        "memory_hog",
        "fn main() { let mut v: Vec<Vec<u8>> = Vec::new(); loop { v.push(vec![1u8; 1 << 20]); } }",
        b"",
    ),
    ("compile_error", 'fn main() { let x: i32 = "a"; }', b""),
]


test_sandbox_agrees_with_a_plain_run = conformance_test("rust", CASES)
