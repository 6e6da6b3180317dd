"""C programs built with gcc and run plainly and in the sandbox agree (verdict, stdout, exit
status): scanf/printf, getchar, fread; every exit path (return, exit, _exit after unflushed
output, abort, a failed assert, a segfault, division by zero); deep recursion on the main
thread's stack; threads; limits; libm linked; the build failing. The plain run:
``tests/languages/runtime_plain.py``."""

from __future__ import annotations

from tests.languages.runtime_plain import SUM_INPUT, conformance_test

CASES = [
    (
        "scanf_printf",
        """
#include <stdio.h>
int main(void) { int n; scanf("%d", &n); while (n--) { long a, b; scanf("%ld %ld", &a, &b); printf("%ld\\n", a + b); } return 0; }
""",
        SUM_INPUT,
    ),
    (
        "getchar_count",
        """
#include <stdio.h>
int main(void) { int c, lines = 0; while ((c = getchar()) != EOF) lines += c == '\\n'; printf("%d\\n", lines); }
""",
        SUM_INPUT,
    ),
    (
        "fread_whole",
        """
#include <stdio.h>
int main(void) { static char buf[1 << 16]; size_t n = fread(buf, 1, sizeof buf, stdin); printf("%zu\\n", n); }
""",
        SUM_INPUT,
    ),
    (
        "libm",
        """
#include <math.h>
#include <stdio.h>
int main(void) { printf("%.6f %.6f\\n", sqrt(2.0), pow(2.0, 0.5) * exp(log(3.0))); }
""",
        b"",
    ),
    ("return_code", '#include <stdio.h>\nint main(void) { puts("x"); return 3; }', b""),
    (
        "exit_code",
        '#include <stdio.h>\n#include <stdlib.h>\nint main(void) { printf("y\\n"); exit(4); }',
        b"",
    ),
    (
        "underscore_exit_unflushed",
        '#include <stdio.h>\n#include <unistd.h>\nint main(void) { printf("lost"); _exit(0); }',
        b"",
    ),
    ("abort", "#include <stdlib.h>\nint main(void) { abort(); }", b""),
    (
        "failed_assert",
        "#include <assert.h>\nint main(int argc, char **argv) { assert(argc == 7); return 0; }",
        b"",
    ),
    ("segfault", "int main(void) { volatile int *p = 0; return *p; }", b""),
    (
        "divide_by_zero",
        '#include <stdio.h>\nint main(int argc, char **argv) { int z = argc - 1; printf("%d\\n", 1 / z); }',
        b"",
    ),
    (
        "deep_recursion",
        """
#include <stdio.h>
static int f(int n) { volatile char pad[64]; pad[0] = (char)n; return n == 0 ? 0 : 1 + f(n - 1) + pad[0] * 0; }
int main(void) { printf("%d\\n", f(1000000)); }
""",
        b"",
    ),
    (
        "threads",
        """
#include <pthread.h>
#include <stdio.h>
static void *work(void *arg) { long *x = arg; *x *= 6; return NULL; }
int main(void) { pthread_t t[8]; long v[8]; for (int i = 0; i < 8; i++) { v[i] = i; pthread_create(&t[i], NULL, work, &v[i]); }
  long s = 0; for (int i = 0; i < 8; i++) { pthread_join(t[i], NULL); s += v[i]; } printf("%ld\\n", s); }
""",
        b"",
    ),
    ("infinite_loop", "int main(void) { volatile unsigned long x = 0; for (;;) x++; }", b""),
    (
        "memory_hog",
        """
#include <stdlib.h>
#include <string.h>
int main(void) { for (;;) { char *p = malloc(1 << 20); if (!p) return 9; memset(p, 1, 1 << 20); } }
""",
        b"",
    ),
    ("compile_error", "int main(void) { return missing; }", b""),
]


test_sandbox_agrees_with_a_plain_run = conformance_test("c", CASES)
