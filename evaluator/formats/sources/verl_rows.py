"""verl-style rows: PRIME-RL/Eurus-2-RL-Data's and any verl parquet file's::

    {"data_source": "taco", "prompt": [{"role": "system", ...}, {"role": "user", ...}],
     "ability": "code", "reward_model": {"style": "rule", "ground_truth": "<JSON text>"},
     "extra_info": {"split": "train", "index": 0}}

(Eurus-2-RL-Data's card lists these columns; PRIME's ``training/scripts/data_prepare.py``
writes them.) The problem is the ground truth's: ``reward_model.ground_truth`` (JSON text or
the value) is read by the format whose shape it has, found by the registry as for any record:
Eurus-2's and verl ``prime_code``'s ``{"inputs", "outputs", "fn_name"?}`` by the
``input_output`` format (:mod:`.taco`: APPS's rule, the ``float`` judge for stdin, a wrapped
call output also accepted bare), sandbox_fusion's ``{"fn_name"?, "assert_case": [...]}`` by
:mod:`.assert_case`, PrimeIntellect's ``{"language", "test_cases"}`` by :mod:`.primeintellect`,
a LiveCodeBench row by :mod:`.livecodebench`, and a bare list of tests by the generic
``tests`` format. Each is graded by the rule of the source its shape comes from; where verl's
own reward differs (``prime_code``'s ``np.allclose`` cascade, sandbox_fusion's text
comparison) ``notes/docs-rl-sources.md`` says how.

Errors name the ground truth's field under ``reward_model.ground_truth``
(``reward_model.ground_truth.inputs[3]``, ``reward_model.ground_truth[2].output``). A row
whose ground truth is not a code problem (Eurus-2's ``math`` rows: a number or a formula) is
an error naming its ``ability``. ``data_source`` becomes the problem's platform (unless the
ground truth names one), ``ability`` and ``extra_info.language`` (the language the row's
solutions must be in, when it says) are kept in the metadata. The rows name no id (verl's
``extra_info.index`` repeats across files and splits): a row is named by its position,
``verl_rows-<row>``, unless its ground truth names one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...problem import Problem
from ..errors import InputError
from ..fields import describe_type, expect_dict, require_field, user_text
from ..registry import Format, detect_format, get_format
from ..testlists import decode_text

__all__ = ["FORMAT"]

BASE = "reward_model.ground_truth"


def _relocated(exc: InputError, listed: bool) -> InputError:
    """``exc`` with its field named from the row: under ``reward_model.ground_truth``."""
    field = exc.field
    if field is None:
        where = BASE
    elif listed and field.startswith("tests"):
        where = BASE + field[len("tests") :]
    elif field == "ground_truth" or field.startswith(("ground_truth.", "ground_truth[")):
        where = "reward_model." + field
    else:
        where = f"{BASE}.{field}"
    return InputError(exc.message, field=where)


def _ability(record: Mapping[str, Any]) -> str:
    ability = record.get("ability")
    return f" (the row's ability is {ability!r})" if isinstance(ability, str) else ""


def _read(record: Mapping[str, Any], fallback_id: str | None) -> Problem:
    problem_id = fallback_id or "verl_rows"
    reward = expect_dict(
        decode_text(require_field(record, "reward_model"), "reward_model"), "reward_model"
    )
    if reward.get("ground_truth") is None:
        raise InputError("missing required field", field=BASE)
    try:
        truth = decode_text(reward["ground_truth"], BASE)
    except InputError as exc:
        raise InputError(exc.message + _ability(record), field=BASE) from None
    listed = isinstance(truth, list)
    try:
        if listed:
            fmt, inner = get_format("tests"), {"tests": truth}
        elif isinstance(truth, Mapping):
            fmt, inner = detect_format(truth), truth
        else:
            raise InputError(
                f"expected a code problem's tests (an object or a list), got "
                f"{describe_type(truth)}{_ability(record)}"
            )
        problem = fmt.read(inner, problem_id)
    except InputError as exc:
        raise _relocated(exc, listed) from None
    facts = dict(problem.metadata)
    source = record.get("data_source")
    if isinstance(source, str) and source.strip():
        facts.setdefault("platform", source)
    if isinstance(record.get("ability"), str):
        facts["ability"] = record["ability"]
    extra = record.get("extra_info")
    if isinstance(extra, Mapping) and isinstance(extra.get("language"), str):
        facts.setdefault("language", extra["language"].strip().lower())
    problem.metadata = facts
    return problem


def _statement(record: Mapping[str, Any]) -> str:
    return user_text(record.get("prompt"))


FORMAT = Format(
    name="verl_rows",
    title="verl rows (Eurus-2-RL-Data)",
    shape="'reward_model' (with 'ground_truth'), 'data_source', 'prompt'",
    recognise=lambda record: "reward_model" in record,
    read=_read,
    fields=("reward_model", "data_source", "ability", "extra_info"),
    rank=12,
    statement=_statement,
    aliases=("verl", "eurus-2-rl-data", "prime-rl/eurus-2-rl-data"),
)
