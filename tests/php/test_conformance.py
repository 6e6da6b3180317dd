"""PHP programs run by the PHP CLI plainly and in the sandbox agree (verdict, stdout, exit
status): stdin by ``fgets``, ``fscanf``, slurped and by ``file("php://stdin")``; every way to
write (text outside the tags included); every exit path (``exit``, an uncaught exception's and
a fatal error's 255, a parse error's 255); deep recursion; limits. The plain run:
``tests/languages/runtime_plain.py``."""

from __future__ import annotations

from tests.languages.runtime_plain import (
    SUM_INPUT,
    conformance_test,
    needs_runtime,
)

pytestmark = needs_runtime("php")

CASES = [
    (
        "fgets_lines",
        '<?php $n = (int) fgets(STDIN);\nfor ($i = 0; $i < $n; $i++) { [$a, $b] = explode(" ", trim(fgets(STDIN))); echo $a + $b, "\\n"; }',
        SUM_INPUT,
    ),
    (
        "fscanf",
        '<?php fscanf(STDIN, "%d", $n);\nwhile ($n-- > 0) { fscanf(STDIN, "%d %d", $a, $b); printf("%d\\n", $a * $b); }',
        SUM_INPUT,
    ),
    (
        "slurp_and_builtins",
        """<?php
$nums = array_map("intval", preg_split("/\\\\s+/", trim(stream_get_contents(STDIN))));
sort($nums); echo array_sum($nums), " ", max($nums), " ", intdiv(7, 2), " ", implode(",", array_unique($nums)), "\\n";
echo json_encode(["k" => $nums[0]]), " ", str_pad(dechex(255), 4, "0", STR_PAD_LEFT), " ", PHP_INT_MAX, "\\n";
""",
        SUM_INPUT,
    ),
    (
        "file_php_stdin",
        '<?php $lines = file("php://stdin", FILE_IGNORE_NEW_LINES);\necho count($lines), " ", end($lines), "\\n";',
        SUM_INPUT,
    ),
    (
        "write_forms",
        """text before the tag
<?php echo "a", "b"; print "c\\n"; printf("%05.1f|%-3s|\\n", 3.14159, "x"); fwrite(STDOUT, "w\\n");
fputs(STDOUT, "p\\n"); var_dump([1, "s"]); print_r(["k" => 1.5]); fwrite(STDERR, "to stderr\\n"); ?>
text after
""",
        b"",
    ),
    ("exit_code", '<?php echo "x\\n"; exit(3);', b""),
    ("exit_message", '<?php echo "x\\n"; exit("bye\\n");', b""),
    ("uncaught_exception", '<?php echo "before\\n"; throw new RuntimeException("boom");', b""),
    ("fatal_error", '<?php echo "before\\n"; undefined_function();', b""),
    (
        "warning_goes_on",
        '<?php $a = []; echo $a["missing"] ?? "default", "\\n"; echo 1 / 3, "\\n";',
        b"",
    ),
    ("parse_error", "<?php $x = ;", b""),
    (
        "deep_recursion",
        '<?php function f($n) { return $n == 0 ? 0 : 1 + f($n - 1); } echo f(100000), "\\n";',
        b"",
    ),
    ("infinite_loop", "<?php $x = 0; while (true) { $x++; }", b""),
    ("memory_hog", '<?php $a = []; while (true) { $a[] = str_repeat("x", 1000000); }', b""),
    ("big_output", '<?php for ($i = 0; $i < 100000; $i++) { echo $i, "\\n"; }', b""),
    (
        "write_file_in_cwd",
        '<?php file_put_contents("x.txt", "hi"); echo file_get_contents("x.txt"), "\\n";',
        b"",
    ),
    # an extension Debian loads from conf.d, which PHP lists
    (
        "conf_d_extension",
        '<?php var_dump(ctype_digit("12"), function_exists("posix_getpid"));',
        b"",
    ),
]

test_sandbox_agrees_with_a_plain_run = conformance_test("php", CASES)
