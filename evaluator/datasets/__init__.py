"""Dataset tools: convert problem sets into LiveCodeBench's schema, check their tests, measure
test strength, calibrate time limits and filter (``mcevaluate dataset ...``)."""

from .convert import REFERENCE_FIELD, Skipped, leetcode_to_lcb, parse_call_input
from .entries import Entry, read_entries, write_records
from .filter import filter_entries

__all__ = [
    "REFERENCE_FIELD",
    "Entry",
    "Skipped",
    "filter_entries",
    "leetcode_to_lcb",
    "parse_call_input",
    "read_entries",
    "write_records",
]
