"""MultiPL-E read as it ships (``tests/data/multipl_e``: HumanEval's first problems in every
language graded here, and one in Bash) and graded as its ``eval_<lang>.py`` runs each
language: a right completion of ``has_close_elements`` passes in all nineteen, a wrong one
("always false") fails (Java's asserts count: ``java -ea``; C#'s ``Debug.Assert`` reported
on stderr, where mono exits 0; D's ``unittest`` blocks, ``gdc -funittest``), Rust builds with its default edition (2015), Perl's ``ERROR`` rule
and Racket's and Scala's stderr rule hold, and a language not graded here is ``UNSUPPORTED``, per sample."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from evaluator.cli import main
from evaluator.formats import InputError, read_problems
from evaluator.formats.sources.multipl_e import FORMAT
from evaluator.problem import Verdict

# A right completion of HumanEval_0 (has_close_elements) per file, and a wrong one: each
# continues its prompt up to where the file's tests start (C++, Java and Rust tests close
# the function themselves; D's prompt stops before the function's body).
RIGHT = {
    "cpp": (
        "    for (size_t i = 0; i < numbers.size(); i++)\n"
        "        for (size_t j = i + 1; j < numbers.size(); j++)\n"
        "            if (std::abs(numbers[i] - numbers[j]) < threshold) return true;\n"
        "    return false;\n"
    ),
    # their C# prompt ends with the signature commented out: the completion writes it
    "cs": (
        "    public static bool HasCloseElements(List<float> numbers, float threshold) {\n"
        "        for (int i = 0; i < numbers.Count; i++)\n"
        "            for (int j = i + 1; j < numbers.Count; j++)\n"
        "                if (Math.Abs(numbers[i] - numbers[j]) < threshold) return true;\n"
        "        return false;\n"
    ),
    "d": (
        "{\n    foreach (i; 0 .. numbers.length)\n        foreach (j; i + 1 .. numbers.length)\n"
        "            if (abs(numbers[i] - numbers[j]) < threshold) return true;\n"
        "    return false;\n}\n\n"
    ),
    "elixir": (
        "    Enum.with_index(numbers)\n"
        "    |> Enum.any?(fn {a, i} ->\n"
        "      Enum.with_index(numbers) |> Enum.any?(fn {b, j} -> i < j and abs(a - b) < threshold end)\n"
        "    end)\n  end\nend\n\n"
    ),
    "go": (
        "    for i := range numbers {\n        for j := i + 1; j < len(numbers); j++ {\n"
        "            d := numbers[i] - numbers[j]\n            if d < 0 { d = -d }\n"
        "            if d < threshold { return true }\n        }\n    }\n    return false\n}\n\n"
    ),
    "hs": (
        "  or [abs (a - b) < threshold | (i, a) <- zip [0 :: Int ..] numbers,\n"
        "                                (j, b) <- zip [0 ..] numbers, i < j]\n"
    ),
    "java": (
        "        for (int i = 0; i < numbers.size(); i++)\n"
        "            for (int j = i + 1; j < numbers.size(); j++)\n"
        "                if (Math.abs(numbers.get(i) - numbers.get(j)) < threshold) return true;\n"
        "        return false;\n"
    ),
    "js": (
        "  for (let i = 0; i < numbers.length; i++)\n"
        "    for (let j = i + 1; j < numbers.length; j++)\n"
        "      if (Math.abs(numbers[i] - numbers[j]) < threshold) return true;\n"
        "  return false;\n}\n\n"
    ),
    "lua": (
        "    for i = 1, #numbers do\n        for j = i + 1, #numbers do\n"
        "            if math.abs(numbers[i] - numbers[j]) < threshold then return true end\n"
        "        end\n    end\n    return false\nend\n\n"
    ),
    "ml": (
        "  let rec close = function\n"
        "    | [] -> false\n"
        "    | x :: rest -> List.exists (fun y -> abs_float (x -. y) < threshold) rest || close rest\n"
        "  in close numbers\n"
    ),
    "php": (
        "    $n = count($numbers);\n    for ($i = 0; $i < $n; $i++)\n"
        "        for ($j = $i + 1; $j < $n; $j++)\n"
        "            if (abs($numbers[$i] - $numbers[$j]) < $threshold) return true;\n"
        "    return false;\n}\n\n"
    ),
    "pl": (
        "    for my $i (0 .. $#$numbers) {\n        for my $j ($i + 1 .. $#$numbers) {\n"
        "            return 1 if abs($numbers->[$i] - $numbers->[$j]) < $threshold;\n"
        '        }\n    }\n    return "";\n}\n\n'
    ),
    "py": (
        "    for i in range(len(numbers)):\n        for j in range(i + 1, len(numbers)):\n"
        "            if abs(numbers[i] - numbers[j]) < threshold:\n                return True\n"
        "    return False\n\n"
    ),
    "r": (
        "    d <- abs(outer(numbers, numbers, `-`))\n    any(d[upper.tri(d)] < threshold)\n}\n\n"
    ),
    "rb": "  numbers.combination(2).any? { |a, b| (a - b).abs < threshold }\nend\n\n",
    "rkt": (
        "  (for*/or ([i (in-range (length numbers))] [j (in-range (add1 i) (length numbers))])\n"
        "    (< (abs (- (list-ref numbers i) (list-ref numbers j))) threshold)))\n\n"
    ),
    "rs": (
        "    for i in 0..numbers.len() {\n        for j in (i + 1)..numbers.len() {\n"
        "            if (numbers[i] - numbers[j]).abs() < threshold {\n"
        "                return true;\n            }\n        }\n    }\n    false\n"
    ),
    "scala": (
        "        numbers.combinations(2).exists { case List(a, b) => (a - b).abs < threshold }\n"
    ),
}
RIGHT["ts"] = RIGHT["js"]
WRONG = {
    "cpp": "    return false;\n",
    "cs": (
        "    public static bool HasCloseElements(List<float> numbers, float threshold) {\n"
        "        return false;\n"
    ),
    "d": "{\n    return false;\n}\n\n",
    "elixir": "    false\n  end\nend\n\n",
    "go": "    return false\n}\n\n",
    "hs": "  const (const False) numbers threshold\n",
    "java": "        return false;\n",
    "js": "  return false;\n}\n\n",
    "ts": "  return false;\n}\n\n",
    "lua": "    return false\nend\n\n",
    "ml": "  ignore numbers; ignore threshold; false\n",
    "php": "    return false;\n}\n\n",
    "pl": '    return "";\n}\n\n',
    "py": "    return False\n\n",
    "r": "    FALSE\n}\n\n",
    "rb": "  false\nend\n\n",
    "rkt": "  #f)\n\n",
    "rs": "    false\n",
    "scala": "        false\n",
}
LANGUAGES = {"cpp": "cpp", "cs": "csharp_assert", "d": "d_unittest", "elixir": "elixir", "go": "go_test", "hs": "haskell",
             "java": "java_assert",
             "js": "javascript", "lua": "lua", "ml": "ocaml", "php": "php", "pl": "perl",
             "py": "python", "r": "r", "rb": "ruby", "rkt": "racket", "rs": "rust",
             "scala": "scala", "ts": "typescript"}  # fmt: skip


def _problem(data_dir, tag: str):
    return read_problems(data_dir / "multipl_e" / f"humaneval-{tag}-reworded.jsonl")[0]


@pytest.mark.parametrize("tag", list(LANGUAGES))
def test_a_right_completion_passes_and_a_wrong_one_fails(data_dir, languages_grader, tag):
    problem = _problem(data_dir, tag)  # detected as MultiPL-E
    language = LANGUAGES[tag]
    assert problem.id == "HumanEval_0_has_close_elements"
    assert problem.metadata["language"] == language
    right = languages_grader.submit(problem, RIGHT[tag], language)
    wrong = languages_grader.submit(problem, WRONG[tag], language)
    assert right.result().verdict is Verdict.AC, right.result()
    assert wrong.result().verdict not in (Verdict.AC, Verdict.CE), wrong.result()


def test_rust_builds_with_the_default_edition_as_their_rustc_does(data_dir, languages_grader):
    problem = _problem(data_dir, "rs")
    assert problem.metadata["rust_flags"] == ["--edition=2015"]
    # ``async`` is a name in Rust 2015 and a keyword from 2018 on
    code = RIGHT["rs"].replace("    false\n", "    let async = false;\n    async\n")
    assert languages_grader.grade(problem, code, "rust").verdict is Verdict.AC


def test_perl_fails_a_run_that_prints_error_as_their_rule_does(data_dir, languages_grader):
    problem = _problem(data_dir, "pl")
    assert problem.judge == "no_error"
    code = RIGHT["pl"].replace(
        "    for my $i", '    print STDERR "ERROR seen\\n";\n    for my $i', 1
    )
    result = languages_grader.grade(problem, code, "perl")
    assert result.verdict is Verdict.WA and "ERROR seen" in result.message


def test_racket_fails_a_run_that_writes_on_stderr_as_their_rule_does(data_dir, languages_grader):
    """rackunit reports a failed check on stderr and racket exits 0: their rule (and ours,
    ``quiet_stderr``) fails it; what the program prints on stdout does not matter."""
    problem = _problem(data_dir, "rkt")
    assert problem.judge == "quiet_stderr"
    result = languages_grader.grade(problem, WRONG["rkt"], "racket")
    assert result.verdict is Verdict.WA and "FAILURE" in result.message, result
    chatty = '  (displayln "to stdout")\n' + RIGHT["rkt"]
    assert languages_grader.grade(problem, chatty, "racket").verdict is Verdict.AC


def test_scala_fails_a_clean_exit_that_wrote_on_stderr(data_dir, languages_grader):
    problem = _problem(data_dir, "scala")
    assert problem.judge == "quiet_stderr"
    noisy = '        System.err.println("debug")\n' + RIGHT["scala"]
    result = languages_grader.grade(problem, noisy, "scala")
    assert result.verdict is Verdict.WA and "'debug' on stderr" in result.message, result


def _grade_cli(problems, rows, tmp_path) -> dict:
    samples = tmp_path / f"{problems.stem}.completions.jsonl"
    samples.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / f"{problems.stem}.results.json"
    args = ["grade", "--problems", str(problems), "--samples", str(samples), "-o", str(out)]
    result = CliRunner().invoke(main, [*args, "-q", "--workers", "2"])
    assert result.exit_code == 0, result.output
    [graded] = json.loads(out.read_text())
    return graded


def test_completion_files_grade_through_the_cli(data_dir, tmp_path):
    """Their generation files (``{"name", "language", "completions"}``), graded in the
    problem's language: their ``language`` tag (``sh``: no tag of ours) is not read; a
    language not graded here (Bash) is ``UNSUPPORTED``, naming it."""
    name = "HumanEval_0_has_close_elements"
    row = {"name": name, "language": "py", "completions": [RIGHT["py"], WRONG["py"]]}
    graded = _grade_cli(data_dir / "multipl_e/humaneval-py-reworded.jsonl", [row], tmp_path)
    assert graded["graded_list"] == [True, False]
    row = {"name": name, "language": "sh", "completions": ['  echo "true"\n']}
    graded = _grade_cli(data_dir / "multipl_e/humaneval-sh-reworded.jsonl", [row], tmp_path)
    [detail] = graded["details"]
    assert detail["verdict"] == "UNSUPPORTED"
    assert detail["message"].startswith("bash programs are not graded here")


def test_an_unknown_language_tag_is_refused_naming_theirs():
    record = {"name": "x", "language": "cobol", "prompt": "", "tests": "t", "stop_tokens": []}
    with pytest.raises(InputError, match="go_test.go, hs, java"):
        FORMAT.problem(record)


def test_csharp_fails_a_failed_debug_assert_although_mono_exits_0(data_dir, languages_grader):
    problem = _problem(data_dir, "cs")
    assert problem.judge == "debug_asserts"
    result = languages_grader.grade(problem, WRONG["cs"], "csharp_assert")
    assert result.verdict is Verdict.WA, result
    assert "DefaultTraceListener.Fail" in result.message
    assert "at Problem.Main" in result.tests[0].stderr  # the assert's trace, as mono wrote it
