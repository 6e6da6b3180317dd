"""Which object a Scala program's run starts: the one whose text declares ``main`` (nested
blocks before it included), else one extending ``App``, else the first object, with the
source's package; comments are not read."""

from __future__ import annotations

import pytest

from evaluator.languages.scala import entry_object

CASES = [
    (
        "object Util { def f() = { 1 } }\nobject Main { def g() = { 2 }\n def main(a: Array[String]) = () }",
        "Main",
    ),
    ("package a.b\nobject P extends App { println(1) }", "a.b.P"),
    ("// object X { def main }\nobject Y { def main(a: Array[String]) = () }", "Y"),
    (
        "object Problem { def f(x: Int): Int = { x }\n def main(args: Array[String]) = { } }",
        "Problem",
    ),
    ("object Only { val x = 1 }", "Only"),
    ("class A", "Main"),
]


@pytest.mark.parametrize(("source", "entry"), CASES)
def test_the_entry_object(source, entry):
    assert entry_object(source) == entry
