"""Dataset tools: convert problem sets into LiveCodeBench's schema, check their tests, measure
test strength, calibrate time limits and filter (``mcevaluate dataset ...``)."""

from .convert import REFERENCE_FIELD, Skipped, leetcode_to_lcb, parse_call_input
from .filter import filter_entries
from .records import Entry, read_entries, write_records

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
