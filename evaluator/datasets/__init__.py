"""Dataset tools: convert problem sets into LiveCodeBench's schema, check their tests, measure
test strength, calibrate time limits and filter (``mcevaluate dataset ...``)."""

from .convert import REFERENCE_FIELD, Skipped, leetcode_to_lcb, parse_call_input

__all__ = ["REFERENCE_FIELD", "Skipped", "leetcode_to_lcb", "parse_call_input"]
