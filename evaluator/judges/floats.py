"""``float`` (testlib ``rcmp6`` style): tokens, with a tolerance for real numbers.

The outputs are split into tokens as by ``tokens``; the counts must be equal and each pair must
match. The *expected* token decides how:

* **Real** token: a decimal number with a ``.`` or an exponent (``0.5``, ``2.``, ``.5``,
  ``1e9``, ``-3.0E-7``). The output token must be a decimal number too (real or integer:
  ``2`` matches ``2.0``), and ``|got - expected| <= abs_tol`` OR
  ``|got - expected| <= rel_tol * |expected|``. The bound is inclusive and decided exactly on
  the decimal values written, tolerances taken as their shortest ``repr``: under 1e-6,
  ``1.000001`` matches ``1.000000``, ``1.0000011`` does not.
* **Integer** token (``[+-]?[0-9]+``, e.g. ``1000000007``, ``-100001``): never a tolerance.
  The output token must be the identical string, so ``5.0``, ``+5`` and ``05`` do not match
  ``5``. Integers in contest output are counts, indices and residues, where "close" is wrong.
* **NaN / infinity**, the words ``nan``, ``inf``, ``infinity``, any letter case, optional
  sign: ``nan`` matches only a NaN word (``NaN``, ``-nan``); ``inf`` matches only the same
  infinity word (``Inf``, ``+infinity``, not ``-inf``, not ``1e999``). A finite expected number
  never matches a NaN or infinity word. Literals too large for a double (``1e999``) are still
  finite numbers: they take the tolerance rule above, in exact decimal arithmetic.
* **Anything else**: exactly, case-sensitively; with ``yesno=True`` the words ``yes`` and
  ``no`` match in any letter case, as in the ``yesno`` judge (CodeContests' rule for its
  problems, whose answers are often "YES"/"NO" in any case).

Numbers are ASCII decimal literals only: ``0x10``, ``1_000``, ``١٢`` and ``½`` are plain words.
"""

from __future__ import annotations

import math
import re
from decimal import MAX_EMAX, MIN_EMIN, Decimal, localcontext

from .base import ACCEPTED, Comparison, count_mismatch, differs, split_tokens
from .yesno import same_answer

DEFAULT_ABS_TOL = 1e-6
DEFAULT_REL_TOL = 1e-6

# One pass classifies a token: which group matched says its kind. Possessive quantifiers
# (``++``, ``*+``, ``?+``: no backtracking into them) keep it linear in the token's length; with
# plain ones a token of n digits and a letter took O(n^2) steps (9 s at 16,000 digits).
_KIND = re.compile(
    r"(?P<integer>[+-]?+[0-9]++)"
    r"|(?P<real>[+-]?+(?:[0-9]++(?:\.[0-9]*+)?+|\.[0-9]++)(?:[eE][+-]?+[0-9]++)?+)"
    r"|(?P<special>[+-]?+(?:nan|inf|infinity))",
    re.IGNORECASE | re.ASCII,  # ASCII: under Unicode rules "ınf" (dotless i) would match
)


def _kind(token: str) -> str | None:
    """``integer``, ``real``, ``special`` (NaN/infinity word) or ``None`` for a word."""
    match = _KIND.fullmatch(token)
    return match.lastgroup if match else None


# Float arithmetic is only trusted when it is clearly away from the bound; closer than this
# relative margin (many times the rounding error of parsing and subtracting), decide exactly.
_MARGIN = 1e-12


def check(
    output: str,
    expected: str,
    *,
    abs_tol: float = DEFAULT_ABS_TOL,
    rel_tol: float = DEFAULT_REL_TOL,
    yesno: bool = False,
) -> Comparison:
    """Accept iff the token counts are equal and every token pair matches (see the module).

    Messages: ``token 7: expected '0.5', got '0.6' (off by 0.1, allowed 1e-06)``,
    ``token 1: expected '5', got '5.0' (integer tokens must match exactly)``, and the length
    messages of ``tokens``.
    """
    validate_tolerances(abs_tol, rel_tol)
    if output == expected:  # no need to split
        return ACCEPTED
    got, want = split_tokens(output), split_tokens(expected)
    for index, (g, e) in enumerate(zip(got, want, strict=False)):
        if g == e:  # the common case, and right for every kind of token
            continue
        if yesno and same_answer(g, e):
            continue
        note = _mismatch(g, e, abs_tol, rel_tol)
        if note is not None:
            return differs("token", index, e, g, note)
    if len(got) != len(want):
        return count_mismatch("token", got, want)
    return ACCEPTED


def validate_tolerances(abs_tol: float, rel_tol: float) -> None:
    """Raise ``ValueError`` unless both tolerances are finite numbers >= 0."""
    for name, value in (("abs_tol", abs_tol), ("rel_tol", rel_tol)):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{name} must be a number, got {value!r}")
        if not (math.isfinite(value) and value >= 0):
            raise ValueError(f"{name} must be finite and >= 0, got {value!r}")


def _mismatch(got: str, want: str, abs_tol: float, rel_tol: float) -> str | None:
    """``None`` if ``got`` matches ``want`` (known to differ as strings), else a short note
    for the message ("" when the values shown say it all)."""
    want_kind, got_kind = _kind(want), _kind(got)
    if want_kind == "special":
        if got_kind != "special":
            return ""
        w, g = float(want), float(got)
        return None if (math.isnan(w) and math.isnan(g)) or w == g else ""
    if want_kind == "integer":
        numeric = got_kind in ("integer", "real")
        return "integer tokens must match exactly" if numeric else ""
    if want_kind is None:
        return ""  # a word: exact, already known unequal
    if got_kind not in ("integer", "real"):
        return ""  # a word, or a NaN/infinity word against a finite expected number
    w, g = float(want), float(got)
    if math.isinf(w) or math.isinf(g):  # a literal beyond a double: only exact arithmetic
        return None if _within_exactly(got, want, abs_tol, rel_tol) else ""
    bound = max(abs_tol, rel_tol * abs(w))
    diff = abs(g - w)
    if abs(diff - bound) <= _MARGIN * (abs(g) + abs(w) + bound):
        within = _within_exactly(got, want, abs_tol, rel_tol)  # too close for float rounding
    else:
        within = diff <= bound
    return None if within else f"off by {diff:.3g}, allowed {bound:.3g}"


def _within_exactly(got: str, want: str, abs_tol: float, rel_tol: float) -> bool:
    """The tolerance test in decimal arithmetic, for values at the bound."""
    with localcontext() as context:
        # 100 significant digits hold the exact difference of any realistic pair of tokens, and
        # the widest exponent range means no step overflows or underflows (``1e-99999999``).
        context.prec = 100
        context.Emax, context.Emin = MAX_EMAX, MIN_EMIN
        try:
            w = Decimal(want)
            diff = abs(Decimal(got) - w)
            return diff <= Decimal(repr(abs_tol)) or diff <= Decimal(repr(rel_tol)) * abs(w)
        except ArithmeticError:  # exponents beyond even Decimal's range: unequal strings
            return False
