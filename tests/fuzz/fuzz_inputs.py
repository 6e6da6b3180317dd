"""Hypothesis strategies shared by the fuzz tests: what a child can hand the parent (arbitrary
bytes, invalid UTF-8, NUL, surrogates, number-like tokens, JSON of any shape) and the bounds
every answer must keep."""

from __future__ import annotations

import json
import math

from hypothesis import strategies as st

from evaluator.problem import Verdict

# Every character, lone surrogates included (hypothesis leaves category Cs out by default).
ANY_CHAR = st.characters(exclude_categories=())
ANY_TEXT = st.text(ANY_CHAR, max_size=80)

# Output bytes as the stdin harness reads them: UTF-8 with surrogate escapes for the rest.
OUTPUT_BYTES = st.binary(max_size=120)
DECODED_OUTPUT = OUTPUT_BYTES.map(lambda raw: raw.decode("utf-8", "surrogateescape"))

# Tokens that reach the numeric paths of the float, lcb and lenient judges.
_TOKEN = st.one_of(
    st.sampled_from(
        [
            "0",
            "-0",
            "+5",
            "1e999",
            "-1e-999",
            "nan",
            "-NaN",
            "inf",
            "Infinity",
            "1_000",
            ".5",
            "2.",
            "1e",
            "e5",
            "0x10",
            "١٢",
            "½",
            "yes",
            "NO",
            "\x00",
            "\udcff",
            "\ud800",
            "[1,",
            "]",
        ]
    ),  # fmt: skip
    st.integers().map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(st.sampled_from("0123456789.eE+-"), min_size=1, max_size=12),
)
_SPACE = st.sampled_from([" ", "\n", "\t", "\r\n", "\x0b", "\xa0", "  ", "\n\n", "\x1c"])
TOKEN_TEXT = st.lists(st.tuples(_TOKEN, _SPACE), max_size=8).map(
    lambda pairs: "".join(token + space for token, space in pairs)
)

# What a judge may be handed: arbitrary text, decoded bytes, or token soup.
JUDGE_TEXT = st.one_of(ANY_TEXT, DECODED_OUTPUT, TOKEN_TEXT)

# Plain JSON data, floats with NaN and infinities, integers past 64 bits.
JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.floats(allow_nan=True, allow_infinity=True),
    ANY_TEXT,
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(ANY_TEXT, inner, max_size=5)
    ),
    max_leaves=25,
)


def json_text(value: object) -> str:
    """``value`` as the child's strict encoder writes it (NaN and Infinity allowed)."""
    return json.dumps(value, allow_nan=True, separators=(",", ":"))


# A valid JSON text with a few characters changed: near-misses for the decoders.
MUTATED_JSON = st.tuples(
    JSON_VALUES.map(json_text),
    st.lists(
        st.tuples(st.integers(min_value=0), st.sampled_from(list('[]{},:"\\ 0-.eEntfNI\x00'))),
        max_size=3,
    ),
    st.booleans(),
).map(lambda args: _mutate(*args))


def _mutate(text: str, edits: list[tuple[int, str]], delete: bool) -> str:
    for position, char in edits:
        at = position % (len(text) + 1)
        text = text[:at] + ("" if delete else char) + text[at + delete :]
    return text


MESSAGE_BOUND = 300  # every verdict message, whatever the input


def assert_outcome(outcome: object) -> None:
    """A harness answer: exactly a (Verdict, str) pair with a bounded message."""
    assert type(outcome) is tuple and len(outcome) == 2, outcome
    verdict, message = outcome
    assert isinstance(verdict, Verdict)
    assert type(message) is str
    assert len(message) <= MESSAGE_BOUND, len(message)


def same_json(a: object, b: object) -> bool:
    """Structural equality with NaN equal to NaN and types exact (``1`` is not ``1.0``)."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if type(x) is list:
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y, strict=True))
        elif type(x) is dict:
            if list(x) != list(y):
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif type(x) is float:
            if not (x == y or (math.isnan(x) and math.isnan(y))):
                return False
        elif x != y:
            return False
    return True
