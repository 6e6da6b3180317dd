"""Go programs built with the go command, run plainly and in the sandbox, agree (verdict,
stdout, exit status): fmt.Scan, bufio, buffered output flushed or lost; every exit path
(os.Exit, a panic's status 2, a nil dereference, an index out of range); deep recursion on a
goroutine's growing stack; goroutines and channels; limits; the build failing. The plain
run: ``tests/languages/runtime_plain.py``."""

from __future__ import annotations

from tests.languages.runtime_plain import SUM_INPUT, conformance_test

CASES = [
    (
        "bufio_fscan",
        """
package main
import ("bufio"; "fmt"; "os")
func main() { r := bufio.NewReader(os.Stdin); w := bufio.NewWriter(os.Stdout); defer w.Flush()
  var n int; fmt.Fscan(r, &n); for i := 0; i < n; i++ { var a, b int64; fmt.Fscan(r, &a, &b); fmt.Fprintln(w, a+b) } }
""",
        SUM_INPUT,
    ),
    (
        "scanner_lines",
        """
package main
import ("bufio"; "fmt"; "os"; "strings")
func main() { s := bufio.NewScanner(os.Stdin); n := 0; for s.Scan() { n += len(strings.Fields(s.Text())) }; fmt.Println(n) }
""",
        SUM_INPUT,
    ),
    (
        "os_exit",
        'package main\nimport ("fmt"; "os")\nfunc main() { fmt.Println("x"); os.Exit(3) }',
        b"",
    ),
    (
        "exit_before_flush",
        """
package main
import ("bufio"; "os")
func main() { w := bufio.NewWriter(os.Stdout); w.WriteString("lost\\n"); os.Exit(0) }
""",
        b"",
    ),
    ("panic", 'package main\nfunc main() { panic("boom") }', b""),
    (
        "nil_dereference",
        'package main\nimport "fmt"\nfunc main() { var p *int; fmt.Println(*p) }',
        b"",
    ),
    (
        "index_out_of_range",
        'package main\nimport ("fmt"; "os")\nfunc main() { a := []int{1}; fmt.Println(a[len(os.Args)+3]) }',
        b"",
    ),
    (
        "deep_recursion",
        """
package main
import "fmt"
func f(n int) int { if n == 0 { return 0 }; return 1 + f(n-1) }
func main() { fmt.Println(f(1000000)) }
""",
        b"",
    ),
    (
        "goroutines_channels",
        """
package main
import ("fmt"; "sync")
func main() { var wg sync.WaitGroup; ch := make(chan int, 8)
  for i := 0; i < 8; i++ { wg.Add(1); go func(i int) { defer wg.Done(); ch <- i * 6 }(i) }
  wg.Wait(); close(ch); s := 0; for v := range ch { s += v }; fmt.Println(s) }
""",
        b"",
    ),
    ("infinite_loop", "package main\nfunc main() { x := 0; for { x++ } }", b""),
    (
        "memory_hog",
        "package main\nfunc main() { var keep [][]byte; for { b := make([]byte, 1<<20); for i := range b { b[i] = 1 }; keep = append(keep, b) } }",
        b"",
    ),
    ("compile_error", "package main\nfunc main() { x := 1 }", b""),
]

test_sandbox_agrees_with_a_plain_run = conformance_test("go", CASES)
