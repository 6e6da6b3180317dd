"""Racket programs run by racket plainly and in the sandbox agree (verdict, stdout, exit
status): stdin by ``read``, by lines and slurped; every way to write; every exit path
(``exit`` with a status, ``error``, a raised value that is no exception, a syntax error and
an unbound name, each racket's 1); deep recursion (Racket grows its stack on the heap);
green threads and a place; limits. The plain run: ``tests/languages/runtime_plain.py``."""

from __future__ import annotations

from tests.languages.runtime_plain import SUM_INPUT, conformance_test, needs_runtime

pytestmark = needs_runtime("racket")

CASES = [
    (
        "read_numbers",
        "#lang racket\n(for ([_ (in-range (read))]) (displayln (+ (read) (read))))",
        SUM_INPUT,
    ),
    (
        "read_lines",
        "#lang racket/base\n(define n (string->number (read-line)))\n"
        "(for ([_ (in-range n)])\n"
        '  (define ws (regexp-split #rx" " (read-line)))\n'
        "  (displayln (apply * (map string->number ws))))",
        SUM_INPUT,
    ),
    (
        "slurp_and_stdlib",
        "#lang racket\n(define xs (map string->number (string-split (port->string (current-input-port)))))\n"
        '(displayln (sort xs >))\n(printf "~a ~s ~v\\n" (apply max xs) "q" \'sym)\n'
        '(displayln (expt 2 100))\n(displayln (exact->inexact 1/3))\n(write (list 1 "a" #\\b))\n(newline)',
        SUM_INPUT,
    ),
    (
        "write_forms",
        '#lang racket\n(display "a") (write-string "b\\n") (print 1.5) (newline)\n'
        '(fprintf (current-error-port) "to stderr\\n")\n(write-bytes #"raw\\n")',
        b"",
    ),
    ("exit_code", '#lang racket\n(displayln "x")\n(exit 3)', b""),
    ("exit_true", '#lang racket\n(displayln "x")\n(exit #t)', b""),
    ("error", '#lang racket\n(displayln "before")\n(error "boom")', b""),
    ("raise_value", '#lang racket\n(displayln "before")\n(raise 42)', b""),
    ("syntax_error", "#lang racket\n(define (f x)", b""),
    ("unbound_name", "#lang racket\n(displayln (nope 1))", b""),
    (
        "deep_recursion",
        "#lang racket\n(define (f n) (if (zero? n) 0 (+ 1 (f (- n 1)))))\n(displayln (f 1000000))",
        b"",
    ),
    ("infinite_loop", "#lang racket\n(let loop () (loop))", b""),
    (
        "memory_hog",
        "#lang racket\n(let loop ([acc '()]) (loop (cons (make-bytes 1000000 65) acc)))",
        b"",
    ),
    ("big_output", "#lang racket\n(for ([i (in-range 100000)]) (displayln i))", b""),
    (
        "green_threads",
        "#lang racket\n(define c (make-channel))\n"
        "(for ([i 3]) (thread (lambda () (channel-put c (* i i)))))\n"
        "(displayln (sort (for/list ([_ 3]) (channel-get c)) <))",
        b"",
    ),
    (
        "futures",
        "#lang racket\n(require racket/future)\n"
        "(displayln (touch (future (lambda () (for/sum ([i 1000]) i)))))",
        b"",
    ),
    (
        "write_file_in_cwd",
        '#lang racket\n(with-output-to-file "x.txt" (lambda () (display "hi")))\n'
        '(displayln (file->string "x.txt"))',
        b"",
    ),
    ("hash_lang_base", '#lang racket/base\n(displayln "small")', b""),
]

test_sandbox_agrees_with_a_plain_run = conformance_test("racket", CASES)
