"""R programs run by ``Rscript main.R`` plainly and in the sandbox (R's own executable, with
the variables its script sets) agree (verdict, stdout, exit status): stdin by ``scan``,
``readLines`` and ``readline``-free connections; every way to print (``cat``, ``print``,
``sprintf``, ``message`` on stderr, ``write``); every exit path (``quit`` with a status,
``stop``, a syntax error, an error inside a function); the default packages (utils, stats:
they load in the sandbox, see ``evaluator/languages/profiles/r_site_profile.R``);
recursion past R's expression limit; limits."""

from __future__ import annotations

from tests.languages.runtime_plain import SUM_INPUT, conformance_test, needs_runtime

pytestmark = needs_runtime("r")

CASES = [
    (
        "scan_numbers",
        'x <- scan(file("stdin"), quiet = TRUE)\nn <- x[1]\nfor (i in seq_len(n)) cat(x[2 * i] + x[2 * i + 1], "\\n")',
        SUM_INPUT,
    ),
    (
        "read_lines",
        'l <- readLines(file("stdin"))\nfor (s in l[-1]) { v <- as.integer(strsplit(s, " ")[[1]]); cat(prod(v), "\\n", sep = "") }',
        SUM_INPUT,
    ),
    (
        "print_forms",
        'print(1:3); print(c(a = 1.5, b = 2)); cat(sprintf("%05.1f|%-3s|\\n", pi, "x"))\n'
        'write(c(1, 2, 3), stdout()); print(list(x = 1, y = "s")); message("to stderr")\n'
        'print(matrix(1:4, 2)); print(TRUE); print(NULL); print(factor(c("a", "b")))',
        b"",
    ),
    (
        "default_packages",
        'cat(median(c(5, 1, 3)), sd(c(1, 2, 3)), head(letters, 3), tail(1:10, 2), "\\n")\n'
        "print(utils::head(data.frame(a = 1:3, b = 4:6), 2)); print(stats::quantile(1:9))",
        b"",
    ),
    ("quit_status", 'cat("x\\n")\nquit(status = 3)', b""),
    ("quit_save_no", 'cat("x\\n")\nq("no")', b""),
    ("stop", 'cat("before\\n")\nstop("boom")', b""),
    ("error_in_function", 'f <- function(x) log(-1) + undefined_thing\ncat("a\\n")\nf(1)', b""),
    ("syntax_error", "x <- (1 + \n", b""),
    ("warning_only", 'x <- as.integer("a")\ncat(is.na(x), "\\n")', b""),
    (
        "deep_recursion",
        'f <- function(n) if (n == 0) 0 else 1 + f(n - 1)\ncat(f(1000), "\\n")',
        b"",
    ),
    ("too_deep", 'f <- function(n) 1 + f(n + 1)\ncat(f(1), "\\n")', b""),
    ("infinite_loop", "x <- 0\nrepeat { x <- x + 1 }", b""),
    ("memory_hog", "l <- list()\nrepeat { l[[length(l) + 1]] <- numeric(1e6) }", b""),
    ("big_output", 'for (i in 1:50000) cat(i, "\\n")', b""),
    (
        "write_file_in_cwd",
        'writeLines("hi", "x.txt")\ncat(readLines("x.txt"), "\\n")\ntf <- tempfile(); writeLines("t", tf); cat(readLines(tf), "\\n")',
        b"",
    ),
    (
        "environment_functions",
        'cat(nchar(Sys.getenv("HOME")) > 0, is.character(R.version.string), "\\n")',
        b"",
    ),
]

test_sandbox_agrees_with_a_plain_run = conformance_test("r", CASES)
