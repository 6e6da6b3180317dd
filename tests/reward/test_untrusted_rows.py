"""CodeReward on dataset rows built to take the trainer's memory or to break its limits (issue
51): the call raises :class:`ProblemError` naming the row and field, before anything runs,
never a silent 0. Before, a bomb row was inflated whole and graded (a correct program WA
against a 300 MB expected output); ``time_limit: 1e300`` gave it RE "exit status 70"."""

from __future__ import annotations

import pytest

from evaluator import CodeReward
from evaluator.reward import ProblemError
from tests.bombs import MB, lcb_bomb_row

RIGHT = "```python\nprint(input())\n```"


def _columns(rows: list[dict]) -> dict[str, list]:
    names = sorted({name for row in rows for name in row})
    return {name: [row.get(name) for row in rows] for name in names}


@pytest.fixture
def reward(pool):
    with CodeReward(pool=pool) as made:
        yield made


def test_a_bomb_row_raises_naming_its_row_and_field(reward):
    rows = [lcb_bomb_row("fine", inflated=MB), lcb_bomb_row("bomb", inflated=300 * MB)]
    with pytest.raises(ProblemError) as info:
        reward(None, [RIGHT, RIGHT], **_columns(rows))
    message = str(info.value)
    assert message.startswith("row 1 of the batch: ")
    assert "field 'private_test_cases': LiveCodeBench's compressed form inflates past" in message
    assert reward.last_verdicts == []  # nothing ran


@pytest.mark.parametrize(
    ("field", "value"),
    [("time_limit", float("inf")), ("time_limit", 1e300), ("memory_limit", 10**12)],
)
def test_a_limit_out_of_bounds_raises_naming_its_field(reward, field, value):
    row = {**lcb_bomb_row("fine", inflated=1), field: value}
    with pytest.raises(ProblemError, match=rf"row 0 of the batch: .*field '{field}': at most"):
        reward(None, [RIGHT], **_columns([row]))
