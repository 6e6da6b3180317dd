"""What a problem's statement says its judge accepts, read by rules a reviewer can audit.

A contest's judge is not the same for every problem of a source: the statement says when an
answer may differ from the jury's in what it prints ("your answer is considered correct if its
absolute or relative error does not exceed 10^{-6}", "you may print each letter in any case",
"if there are several answers, print any of them"). A source's fixed rule (TACO's 1e-6, a
line-by-line comparison) cannot know that; the statement does. Each rule here is a pattern over
the common phrasings of Codeforces, AtCoder, CodeChef and LeetCode statements, as they ship in
the datasets (LaTeX with its ``$...$``, ``10^{-6}`` rendered as ``10^-6``, ``10-6`` or
``10^{ - 6}`` where a scraper lost the superscript, ``1e-6``, ``0.000001``):

``tolerance``   "absolute or relative error ... 10^{-k}" (either order), "absolute error",
                "relative error", LeetCode's "answers within 10^-5 of the actual answer will be
                accepted": reals are compared within that error (the ``float`` judge; for a
                call, the value comparison's ``abs_tol``/``rel_tol``).
``any case``    "in any case", "any letter case", "case-insensitive", "upper or lower case":
                where the phrase speaks of a yes/no answer, ``yes``/``no`` in any case (the
                ``yesno`` judge, or ``float`` with ``yesno`` when a tolerance applies too);
                otherwise every word in any case (the ``words`` judge).
``any order``   "in any order", "the order does not matter", said of what is printed or
                returned: a one-line answer is compared as a multiset of tokens
                (``unordered_tokens``), a returned list as a multiset (``any_order``); a
                multi-line printed answer needs a checker (below).
``many answers`` "print any of them", "if there are several (multiple) answers/solutions ...
                any", "any valid/correct answer": the problem accepts answers the row's one
                expected output cannot stand for; it needs a checker. Without one it is
                graded by that output all the same, and said so (``needs_checker``), never
                silently. Not when the sentence picks one answer ("print the
                lexicographically smallest", "the minimum").

Only the statement's own words decide; each decision records the phrase that made it
(:attr:`Decision.reason`), shown with the problem's results as ``judge_reason``. An
explicit judge in the row wins over the statement, and the statement over the source's fixed
rule (:func:`judge_from_statement`). "Print the answer modulo 10^9+7" changes nothing: an
integer is compared exactly under every rule.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..problem import Harness, Problem

__all__ = [
    "Decision",
    "StatementRules",
    "apply_statement",
    "judge_from_statement",
    "read_statement",
]

_SHOWN = 90  # characters of a phrase quoted in a reason

# -- tolerance ------------------------------------------------------------------------------

_MINUS = r"[-\u2212\u2013\u2014]"  # "-", the minus sign, the dashes scrapers turn it into
# 10^{-6}, 10^-6, 10^{ - 6}, 10−6 (a lost superscript), 10<sup>-6</sup>
_POWER = re.compile(
    rf"(?:(?P<mantissa>\d+(?:\.\d+)?)\s*(?:\\cdot|\\times|[x\u00d7\u00b7*])\s*)?"
    rf"10\s*(?:\^|\*\*|<sup>)?\s*\{{?\s*{_MINUS}\s*(?P<power>\d{{1,2}})\s*\}}?",
)
_E_NOTATION = re.compile(
    rf"\b(?P<mantissa>\d+(?:\.\d+)?)\s*[eE]\s*{_MINUS}\s*(?P<power>\d{{1,2}})\b"
)
_DECIMAL = re.compile(r"(?<![\d.])0\.(?P<zeros>0{2,14})(?P<digit>[1-9])\b")
_ERROR_WORDS = re.compile(
    r"(?P<both>(?:absolute|abs\.?)\s+or\s+relative|relative\s+or\s+absolute)\s+(?:error|precision)"
    r"|(?P<absolute>absolute)\s+error"
    r"|(?P<relative>relative)\s+error"
    r"|(?P<within>within)\s+(?=\S{0,40}10|\S{0,40}\d[eE]|\S{0,12}0\.0)"
    # not "the absolute difference |10 - 1|": a difference is what problems compute
    r"|(?P<error>\b(?:error|precision|accura\w+|differs?\s+(?:from|by))\b)",
    re.IGNORECASE,
)
_COARSEST = 0.01  # a tolerance coarser than this is arithmetic ("|10 - 1|"), not an error bound
_TOLERANCE_REACH = 160  # characters after the phrase's words in which its number stands


def _number_after(text: str, start: int) -> tuple[float, int] | None:
    """The first tolerance written in ``text[start:start + reach]``: its value and end."""
    window = text[start : start + _TOLERANCE_REACH]
    found = []
    for pattern in (_POWER, _E_NOTATION):
        if match := pattern.search(window):
            mantissa = float(match.group("mantissa") or 1)
            found.append(
                (match.start(), mantissa * 10.0 ** -int(match.group("power")), match.end())
            )
    if match := _DECIMAL.search(window):
        value = int(match.group("digit")) * 10.0 ** -(len(match.group("zeros")) + 1)
        found.append((match.start(), value, match.end()))
    if not found:
        return None
    at, value, end = min(found)
    return (value, start + end) if 0 < value <= _COARSEST else None


# -- letter case, order, many answers -------------------------------------------------------

_ANY_CASE = re.compile(
    r"in\s+any\s+(?:letter\s+)?(?:case|register)"
    r"|any\s+letter\s+case\b"
    r"|case[\s-]+insensitive(?:ly)?"
    r"|in\s+(?:either\s+)?(?:upper|lower)\s*case\s+or\s+(?:upper|lower)\s*case",
    re.IGNORECASE,
)
# a case phrase counts in a sentence about what is printed ("you can output the answer in
# any case"), never in one about the input ("S consists of uppercase and lowercase letters")
_PRINT_VERB = re.compile(r"\b(?:print|output|answer|write|respon[sd])\w*", re.IGNORECASE)
_YES_NO = re.compile(r"\byes\b|positive\s+(?:answer|response)", re.IGNORECASE)
_YES_NO_REACH = 300  # characters either side of a case phrase where a yes/no answer is named
_ANY_ORDER = re.compile(
    r"in\s+(?:any|arbitrary)\s+order|order\s+(?:does\s+not|doesn't|do\s+not|don't)\s+matter"
    r"|order\s+(?:is\s+)?(?:not\s+important|irrelevant)",
    re.IGNORECASE,
)
# what an "any order" is said of: the answer, not the input ("the edges are given in any order")
_ANSWER_VERB = re.compile(r"\b(?:print|output|return|answer|write|report|list)\w*", re.IGNORECASE)
_INPUT_WORDS = re.compile(r"\b(?:given|input|follow|appear|listed\s+in\s+the\s+input)\w*", re.I)
_CHARSET_WORDS = re.compile(r"\b(?:consist|contain)\w*", re.I)  # what a string holds
_MANY = re.compile(
    r"(?:(?:print|output|return|find|choose)\w*\s+(?:any|either)\s+(?:one\s+)?(?:of\s+them|of\s+those"
    r"|of\s+these|such|valid|correct|possible|suitable|optimal)"
    r"|any\s+(?:valid|correct|possible|suitable|acceptable|optimal)\s+(?:answer|solution|output"
    r"|arrangement|sequence|permutation|string|array|one)"
    r"|(?:several|multiple|many|more\s+than\s+one)\s+(?:possible\s+|valid\s+|correct\s+|optimal\s+)?"
    r"(?:answers|solutions|ways|outputs)[^.]{0,80}?\bany\b"
    r"|any\s+of\s+them\s+(?:is|will\s+be)\s+(?:accepted|considered))",
    re.IGNORECASE,
)
# a sentence that names the one answer wanted
_ONE_PICKED = re.compile(
    r"lexicographically|smallest|largest|minimum|maximum|minimal|maximal|first|earliest|least",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class StatementRules:
    """What a statement says its judge accepts; each phrase as the statement writes it
    (empty: the statement does not say). ``tolerance``: (absolute, relative) errors allowed,
    either of which accepts a real value."""

    tolerance: tuple[float, float] | None = None
    tolerance_phrase: str = ""
    any_case_phrase: str = ""
    yes_no: bool = False  # the case phrase speaks of a yes/no answer
    any_order_phrase: str = ""
    many_answers_phrase: str = ""

    @property
    def says_anything(self) -> bool:
        return bool(
            self.tolerance_phrase
            or self.any_case_phrase
            or self.any_order_phrase
            or self.many_answers_phrase
        )


def _quote(text: str) -> str:
    flat = " ".join(text.split())
    return f'"{flat[:_SHOWN]}…"' if len(flat) > _SHOWN else f'"{flat}"'


def _sentence(text: str, start: int, end: int) -> str:
    """The sentence around ``text[start:end]`` (to the nearest ``.``/``!``/``?`` followed
    by a space, or a blank line)."""
    left = max(text.rfind(". ", 0, start), text.rfind("\n\n", 0, start), text.rfind("? ", 0, start))
    stops = [i for i in (text.find(". ", end), text.find("\n\n", end)) if i != -1]
    right = min(stops) if stops else len(text)
    return text[left + 1 if left != -1 else 0 : right + 1].strip()


def _tolerance(text: str) -> tuple[tuple[float, float], str] | None:
    for match in _ERROR_WORDS.finditer(text):
        found = _number_after(text, match.end())
        if found is None:
            continue
        value, end = found
        tolerance = {
            "absolute": (value, 0.0),
            "relative": (0.0, value),
            "within": (value, 0.0),  # LeetCode's "within 10^-5 of the actual answer"
        }.get(match.lastgroup or "", (value, value))
        return tolerance, text[match.start() : end]
    return None


def _any_case_phrase(text: str) -> tuple[re.Match[str] | None, str]:
    for match in _ANY_CASE.finditer(text):
        sentence = _sentence(text, match.start(), match.end())
        before = sentence[: max(0, sentence.find(match.group(0)))]
        said_of_input = _INPUT_WORDS.search(before) or _CHARSET_WORDS.search(before)
        if _PRINT_VERB.search(sentence) and not said_of_input:
            return match, sentence
    return None, ""


def _any_order(text: str) -> str:
    for match in _ANY_ORDER.finditer(text):
        sentence = _sentence(text, match.start(), match.end())
        before = sentence[: max(0, sentence.find(match.group(0)))]
        if _ANSWER_VERB.search(sentence) and not _INPUT_WORDS.search(before):
            return sentence
    return ""


def _many_answers(text: str) -> str:
    for match in _MANY.finditer(text):
        sentence = _sentence(text, match.start(), match.end())
        # "if there are several answers, print the lexicographically smallest": one answer
        if _ONE_PICKED.search(sentence) and "any" not in match.group(0).lower():
            continue
        return sentence
    return ""


_READ_CAP = 1 << 16  # characters of a statement read: real ones are a few thousand


def read_statement(text: str) -> StatementRules:
    """The rules ``text`` (a problem's statement, LaTeX and all) states: its first
    :data:`_READ_CAP` characters, which bound the time a crafted statement can take."""
    if not text:
        return StatementRules()
    text = text[:_READ_CAP]
    tolerance = _tolerance(text)
    case, case_sentence = _any_case_phrase(text)
    return StatementRules(
        tolerance=tolerance[0] if tolerance else None,
        tolerance_phrase=tolerance[1] if tolerance else "",
        any_case_phrase=case_sentence,
        yes_no=bool(
            case
            and _YES_NO.search(
                text, max(0, case.start() - _YES_NO_REACH), case.end() + _YES_NO_REACH
            )
        ),
        any_order_phrase=_any_order(text),
        many_answers_phrase=_many_answers(text),
    )


# -- the judge -------------------------------------------------------------------------------

# Source rules the statement may replace: comparisons of printed text, by name
_COMPARISONS = frozenset({None, "lines", "tokens", "float", "yesno", "exact", "words"})


@dataclass(frozen=True, slots=True)
class Decision:
    """The judge a problem gets (``judge``: a name or spec, None for the harness default),
    why (``reason``: empty when the statement said nothing that changed it), and whether
    its statement says it needs a checker it has not got (``needs_checker``)."""

    judge: Any
    reason: str = ""
    needs_checker: bool = False


def judge_from_statement(
    text: str,
    *,
    stdin: bool,
    source_judge: Any,
    explicit: bool,
    outputs: Sequence[str] = (),
) -> Decision:
    """The judge of a problem whose statement is ``text``: ``source_judge`` (the source's
    fixed rule, what its reader chose) changed as the statement says, unless the row named
    its judge itself (``explicit``: it wins) or the source's judge is a checker or a test
    program's exit (which the statement cannot refine). ``stdin``: the answer is printed
    (else returned by a call); ``outputs``: the expected outputs of its tests (a multi-line
    answer in any order needs a checker)."""
    if explicit:
        return Decision(source_judge)
    rules = read_statement(text)
    if not rules.says_anything:
        return Decision(source_judge)
    if stdin:
        return _printed(rules, source_judge, outputs)
    return _returned(rules, source_judge)


def _name(judge: Any) -> str | None:
    if isinstance(judge, dict):
        name = judge.get("type")
        return name if isinstance(name, str) else "?"
    return judge


def _printed(rules: StatementRules, source_judge: Any, outputs: Sequence[str]) -> Decision:
    if _name(source_judge) not in _COMPARISONS:  # a checker, a test program's exit
        return Decision(source_judge)
    judge, reasons, needs = source_judge, [], False
    if rules.any_order_phrase:
        if all(len([x for x in out.splitlines() if x.strip()]) <= 1 for out in outputs):
            judge = "unordered_tokens"
            reasons.append(f"any order (tokens as a multiset): {_quote(rules.any_order_phrase)}")
        else:
            needs = True
            reasons.append(
                f"any order, over several lines: needs a checker: {_quote(rules.any_order_phrase)}"
            )
    if rules.tolerance is not None and judge != "unordered_tokens":
        absolute, relative = rules.tolerance
        kept = judge if isinstance(judge, dict) and _name(judge) == "float" else {"type": "float"}
        judge = {**kept, "abs_tol": absolute, "rel_tol": relative}  # the source's other options
        reasons.append(
            f"reals within {_tolerance_words(rules.tolerance)}: {_quote(rules.tolerance_phrase)}"
        )
    if rules.any_case_phrase and judge != "unordered_tokens":
        judge, words = _any_case(rules, judge)
        reasons.append(f"{words} in any case: {_quote(rules.any_case_phrase)}")
    if rules.many_answers_phrase:
        needs = True
        reasons.append(f"many answers: needs a checker: {_quote(rules.many_answers_phrase)}")
    return Decision(judge, "; ".join(reasons), needs)


def _any_case(rules: StatementRules, judge: Any) -> tuple[Any, str]:
    """The judge under a statement's "in any case", and what it lets differ: yes/no
    answers (beside a source's real tolerance, ``float`` with ``yesno``), or every word
    (the ``words`` judge; where the statement gave a tolerance too, only yes/no, as
    ``float`` compares other words exactly)."""
    tolerant = isinstance(judge, dict) and _name(judge) == "float"
    if rules.yes_no or (tolerant and rules.tolerance is not None):
        return ({**judge, "yesno": True} if tolerant else "yesno"), "yes/no"
    return "words", "words"


def _returned(rules: StatementRules, source_judge: Any) -> Decision:
    if source_judge is not None and not isinstance(source_judge, dict):
        return Decision(source_judge)  # a named rule of a call (none today): kept
    judge, reasons = dict(source_judge or {}), []
    if rules.tolerance is not None:
        judge["abs_tol"], judge["rel_tol"] = rules.tolerance
        reasons.append(
            f"reals within {_tolerance_words(rules.tolerance)}: {_quote(rules.tolerance_phrase)}"
        )
    if rules.any_order_phrase:
        judge["any_order"] = True
        reasons.append(f"a returned list in any order: {_quote(rules.any_order_phrase)}")
    needs = bool(rules.many_answers_phrase)
    if needs:
        reasons.append(f"many answers: needs a checker: {_quote(rules.many_answers_phrase)}")
    return Decision(judge or source_judge, "; ".join(reasons), needs)


def _tolerance_words(tolerance: tuple[float, float]) -> str:
    absolute, relative = tolerance
    if absolute and relative:
        return f"{absolute:g} absolute or relative"
    return f"{absolute:g} absolute" if absolute else f"{relative:g} relative"


def apply_statement(problem: Problem, statement: str, *, explicit: bool) -> Problem:
    """``problem`` (as its source's reader made it) judged as its ``statement`` says
    (:func:`judge_from_statement`), the decision recorded on it (``judge_reason``,
    ``needs_checker``). Problems whose tests are programs of their own (assertions, a test
    file's exit) are left as they are."""
    if explicit or problem.harness is Harness.ASSERTION or not statement:
        return problem  # the row's judge (and what it says of it) stands
    decision = judge_from_statement(
        statement,
        stdin=problem.harness is Harness.STDIN,
        source_judge=problem.judge,
        explicit=explicit,
        outputs=[test.output for test in problem.tests],
    )
    if not decision.reason:
        return problem
    problem.judge = decision.judge
    problem.judge_reason = decision.reason
    problem.needs_checker = decision.needs_checker
    return problem
