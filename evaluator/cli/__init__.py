"""``mcevaluate``: grade model outputs on LiveCodeBench, HumanEval/EvalPlus and our problem sets,
and look at the results.

One module per command group, so that a command's code is in one place:

* :mod:`.grade_commands`: ``grade``, ``demo``, ``lcb``; their shared options in :mod:`.options`, the
  run (journal, parallel grading, interruptions) in :mod:`.grade_driver`, what a run writes in
  :mod:`evaluator.runner.outputs`, the checks of where it writes in :mod:`.paths`;
* :mod:`.generate`: ``generate`` (samples from a local model);
* :mod:`.dataset`: ``dataset convert|check|strength|filter``; :mod:`.languages`: ``languages`` (the
  languages graded and their toolchains here); :mod:`.formats`: ``formats``
  (the problem formats read);
* :mod:`.report`: ``report`` (a run as one HTML page) and ``compare`` (two runs, paired);
* :mod:`.serve`: ``serve`` (the grader as an HTTP service, :mod:`evaluator.service`);
* :mod:`.terminal_tables`: the tables printed on the terminal.

Examples::

    mcevaluate demo
    mcevaluate grade --problems problems.jsonl --samples samples.jsonl --output results.json
    mcevaluate grade --problems HumanEval.jsonl.gz --samples samples.jsonl -o samples_results.jsonl
    mcevaluate lcb --samples samples.jsonl --release v6 --output results.json --resume
    mcevaluate report results.json --summary summary.json -o report.html
    mcevaluate compare a.json b.json -o compare.html
"""

from __future__ import annotations

import click

from evaluator.cli.dataset import dataset
from evaluator.cli.formats import formats
from evaluator.cli.generate import generate
from evaluator.cli.grade_commands import demo, grade, lcb
from evaluator.cli.languages import languages
from evaluator.cli.report import compare, report
from evaluator.cli.serve import serve

__all__ = ["main"]

_MAIN_HELP = """MicroCoder-Evaluator: grade LLM-written programs fast, safely and exactly.

\b
Examples:
  mcevaluate demo
  mcevaluate grade --problems problems.jsonl --samples samples.jsonl -o results.json
  mcevaluate lcb --samples samples.jsonl --release v6 -o results.json
  mcevaluate report results.json -o report.html
  mcevaluate compare a.json b.json -o compare.html
  mcevaluate serve --port 8080
  mcevaluate grade --help
"""


@click.group(context_settings={"help_option_names": ["-h", "--help"]}, help=_MAIN_HELP)
@click.version_option(package_name="microcoder")
def main() -> None:
    pass


for _command in (grade, demo, generate, lcb, dataset, formats, languages, report, compare, serve):
    main.add_command(_command)
