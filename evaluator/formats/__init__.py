"""Reading problems and samples in the formats people have, and writing results.

Everything a user can get wrong in an input file surfaces as :class:`InputError`, whose
``str`` names the file, line and field in one line.
"""

from .errors import BadProblem, InputError
from .extract import extract_code, extract_program, strip_reasoning
from .humaneval import problem_from_humaneval
from .livecodebench import (
    Samples,
    decode_test_cases,
    encode_private_tests,
    problem_from_lcb,
    problems_from_records,
    read_problem_files,
    read_problems,
    read_samples,
    sample_format,
    samples_from_record,
    samples_from_records,
    write_lcb_results,
)
from .ours import problem_from_ours, problem_to_ours
from .passk import pass_at_k
from .records import read_records

__all__ = [
    "BadProblem",
    "InputError",
    "Samples",
    "decode_test_cases",
    "encode_private_tests",
    "extract_code",
    "extract_program",
    "pass_at_k",
    "problem_from_humaneval",
    "problem_from_lcb",
    "problem_from_ours",
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
