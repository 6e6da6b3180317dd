"""Reading problems and samples in the formats people have, and writing results.

Problem records: one module of :mod:`.sources` per source defines its ``FORMAT`` (how a
record is recognised and read, by the source's own grading rule), found by :mod:`.registry`;
:func:`read_problems` and every other entry point ask the registry. The modules beside
``sources/`` are the machinery the sources share: record files, fields, errors, limits, test
lists, the shared rules and decoders (:mod:`.source_rules`, :mod:`.assert_lists`), our own
schema (:mod:`.schema`), problem and sample files, results. Everything a user can get wrong
in an input file surfaces as :class:`InputError`, whose ``str`` names the file, line and
field in one line.
"""

from .errors import BadProblem, InputError
from .extract import extract_code, extract_program, strip_reasoning
from .problems import iter_problems, problems_from_records, read_problem_files, read_problems
from .record_files import read_records
from .registry import Format, detect_format, formats, get_format, problem_from_record
from .results import write_lcb_results
from .samples import (
    Samples,
    read_samples,
    sample_format,
    samples_from_record,
    samples_from_records,
)
from .schema import problem_to_ours
from .sources.humaneval import problem_from_humaneval
from .sources.livecodebench import decode_test_cases, encode_private_tests, problem_from_lcb
from .sources.ours import problem_from_ours

__all__ = [
    "BadProblem",
    "Format",
    "InputError",
    "Samples",
    "decode_test_cases",
    "detect_format",
    "encode_private_tests",
    "extract_code",
    "extract_program",
    "formats",
    "get_format",
    "iter_problems",
    "problem_from_humaneval",
    "problem_from_lcb",
    "problem_from_ours",
    "problem_from_record",
    "problem_to_ours",
    "problems_from_records",
    "read_problem_files",
    "read_problems",
    "read_records",
    "read_samples",
    "samples_from_records",
    "sample_format",
    "samples_from_record",
    "strip_reasoning",
    "write_lcb_results",
]
