"""Build ``demo_problems.jsonl``: the original easy problems of ``mctrain demo``.

Every statement, test and reference solution below was written for this project (none is
copied from a contest site or dataset). Each problem is a LiveCodeBench ``code_generation_lite``
record (the format ``mcevaluate generate``, ``grade`` and ``dataset filter`` read) plus
``reference_solution``. Expected outputs are computed here by running the reference solution
on each test input, so tests and references agree by construction; ``mcevaluate dataset
check`` then confirms in the sandbox that every reference passes (see ``README.md``).

    python trainer_addon/data/build_demo_problems.py      # rewrites demo_problems.jsonl
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "demo_problems.jsonl"
DATE = "2026-01-05T00:00:00"

# --- call-based: (id, title, method signature, statement, reference body, tests) ---------------
# The signature is LeetCode's style; the reference body is the method's body (one indent
# level inside the method). Tests are tuples of arguments.

CALL = [
    (
        "sum-of-evens",
        "Sum of Evens",
        "sumEvens(self, nums: List[int]) -> int",
        "Given an integer array `nums`, return the sum of its even elements (0 if there are none).",
        "return sum(x for x in nums if x % 2 == 0)",
        [([1, 2, 3, 4],), ([7, 9],), ([-4, 5, 10],), ([0],), ([2, 2, 2, 2, 2],), ([-3, -6, 8, 1],)],
    ),
    (
        "count-vowels",
        "Count Vowels",
        "countVowels(self, word: str) -> int",
        "Given a string `word` of lowercase English letters, return how many of its letters "
        "are vowels (`a`, `e`, `i`, `o`, `u`).",
        "return sum(c in 'aeiou' for c in word)",
        [("banana",), ("rhythm",), ("aeiou",), ("queue",), ("x",), ("programming",)],
    ),
    (
        "value-spread",
        "Value Spread",
        "spread(self, nums: List[int]) -> int",
        "Given a non-empty integer array `nums`, return the largest element minus the smallest.",
        "return max(nums) - min(nums)",
        [([3, 9, 4],), ([5],), ([-2, 7, 0],), ([10, 10, 10],), ([-8, -3, -5],), ([1, 100],)],
    ),
    (
        "double-all",
        "Double Everything",
        "doubleAll(self, nums: List[int]) -> List[int]",
        "Given an integer array `nums`, return a new array in which every element is doubled, "
        "in the same order.",
        "return [2 * x for x in nums]",
        [([1, 2, 3],), ([],), ([-5, 0, 5],), ([7],), ([100, -1, 3, 3],)],
    ),
    (
        "count-above",
        "Count Above Threshold",
        "countAbove(self, nums: List[int], k: int) -> int",
        "Given an integer array `nums` and an integer `k`, return how many elements of `nums` "
        "are strictly greater than `k`.",
        "return sum(x > k for x in nums)",
        [([1, 5, 8, 3], 4), ([2, 2, 2], 2), ([], 0), ([-1, -2, 0], -2), ([10, 20, 30], 5)],
    ),
    (
        "last-digit",
        "Last Digit",
        "lastDigit(self, n: int) -> int",
        "Given a non-negative integer `n`, return its last decimal digit.",
        "return n % 10",
        [(1234,), (0,), (7,), (90,), (1000001,), (58,)],
    ),
    (
        "dash-join",
        "Dash Join",
        "dashJoin(self, words: List[str]) -> str",
        "Given a list of strings `words`, return one string made of the words in order with a "
        "single `-` between neighbours.",
        "return '-'.join(words)",
        [(["a", "b", "c"],), (["solo"],), (["red", "green"],), (["x", "", "y"],), ([],)],
    ),
    (
        "is-non-decreasing",
        "Never Going Down",
        "isNonDecreasing(self, nums: List[int]) -> bool",
        "Given an integer array `nums`, return `true` if every element is greater than or "
        "equal to the one before it, and `false` otherwise.",
        "return all(a <= b for a, b in zip(nums, nums[1:]))",
        [([1, 2, 2, 5],), ([3, 1],), ([],), ([4],), ([1, 2, 3, 2],), ([-3, -3, 0],)],
    ),
    (
        "count-char",
        "Count a Character",
        "countChar(self, s: str, c: str) -> int",
        "Given a string `s` and a single character `c`, return how many times `c` occurs in `s`.",
        "return s.count(c)",
        [("hello", "l"), ("abc", "z"), ("aaaa", "a"), ("", "q"), ("Mississippi", "s")],
    ),
    (
        "sum-of-squares",
        "Sum of Squares",
        "sumSquares(self, n: int) -> int",
        "Given a positive integer `n`, return 1*1 + 2*2 + ... + n*n.",
        "return sum(i * i for i in range(1, n + 1))",
        [(1,), (3,), (10,), (2,), (50,)],
    ),
    (
        "reverse-word-order",
        "Reverse the Word Order",
        "reverseWords(self, sentence: str) -> str",
        "Given a string `sentence` of words separated by single spaces, return the words in "
        "reverse order, separated by single spaces.",
        "return ' '.join(reversed(sentence.split(' ')))",
        [("one two three",), ("hello",), ("a b",), ("the cat sat down",)],
    ),
    (
        "largest-of-three",
        "Largest of Three",
        "largestOfThree(self, a: int, b: int, c: int) -> int",
        "Given three integers `a`, `b` and `c`, return the largest of them.",
        "return max(a, b, c)",
        [(1, 2, 3), (9, -1, 4), (5, 5, 2), (-7, -8, -9), (0, 0, 0)],
    ),
    (
        "distance-apart",
        "Distance Apart",
        "distanceApart(self, a: int, b: int) -> int",
        "Given two integers `a` and `b`, return how far apart they are on the number line.",
        "return abs(a - b)",
        [(3, 10), (10, 3), (-4, 4), (6, 6), (-10, -2)],
    ),
    (
        "even-positions",
        "Even Positions",
        "evenPositions(self, nums: List[int]) -> List[int]",
        "Given an integer array `nums`, return the elements at indices 0, 2, 4, ... in order.",
        "return nums[::2]",
        [([5, 6, 7, 8, 9],), ([1],), ([],), ([4, 3],), ([0, 1, 0, 1, 0, 1],)],
    ),
    (
        "digit-total",
        "Digit Total",
        "digitTotal(self, n: int) -> int",
        "Given a non-negative integer `n`, return the sum of its decimal digits.",
        "return sum(int(d) for d in str(n))",
        [(123,), (0,), (9999,), (1005,), (7,)],
    ),
    (
        "count-negatives",
        "Count Negatives",
        "countNegatives(self, nums: List[int]) -> int",
        "Given an integer array `nums`, return how many of its elements are below zero.",
        "return sum(x < 0 for x in nums)",
        [([-1, 2, -3],), ([0, 0],), ([],), ([-5, -5, -5],), ([4, -1, 0, 9, -2],)],
    ),
    (
        "longest-word-length",
        "Longest Word Length",
        "longestLength(self, words: List[str]) -> int",
        "Given a non-empty list of strings `words`, return the length of the longest one.",
        "return max(len(w) for w in words)",
        [
            (["a", "abc", "ab"],),
            (["same", "size"],),
            (
                [
                    "",
                ],
            ),
            (["internationalization", "x"],),
        ],
    ),
    (
        "drop-spaces",
        "Drop the Spaces",
        "dropSpaces(self, s: str) -> str",
        "Given a string `s`, return it with every space character removed.",
        "return s.replace(' ', '')",
        [("a b c",), ("nospace",), ("  lead and trail  ",), ("",), ("x  y",)],
    ),
    (
        "product-of-all",
        "Product of All",
        "productOfAll(self, nums: List[int]) -> int",
        "Given a non-empty integer array `nums`, return the product of all its elements.",
        "p = 1\nfor x in nums:\n    p *= x\nreturn p",
        [([1, 2, 3, 4],), ([5],), ([-2, 3],), ([0, 7, 9],), ([-1, -1, -1],)],
    ),
    (
        "has-repeat",
        "Any Repeat",
        "hasRepeat(self, nums: List[int]) -> bool",
        "Given an integer array `nums`, return `true` if some value appears at least twice, "
        "and `false` if all values are distinct.",
        "return len(set(nums)) != len(nums)",
        [([1, 2, 3, 1],), ([1, 2, 3],), ([],), ([7, 7],), ([-1, 0, 1, 2, -1],)],
    ),
    (
        "word-count",
        "Word Count",
        "wordCount(self, s: str) -> int",
        "Given a string `s`, return the number of words in it. Words are maximal runs of "
        "non-space characters; `s` may contain several spaces in a row, or none.",
        "return len(s.split())",
        [("hello world",), ("  many   spaces here ",), ("",), ("one",), ("a b c d e",)],
    ),
    (
        "floor-average",
        "Floor Average",
        "floorAverage(self, nums: List[int]) -> int",
        "Given a non-empty array `nums` of non-negative integers, return their average rounded "
        "down to an integer.",
        "return sum(nums) // len(nums)",
        [([1, 2, 3, 4],), ([5],), ([0, 0, 1],), ([10, 20],), ([7, 8, 8],)],
    ),
    (
        "repeat-text",
        "Repeat the Text",
        "repeatText(self, s: str, k: int) -> str",
        "Given a string `s` and a non-negative integer `k`, return `s` written `k` times in a row.",
        "return s * k",
        [("ab", 3), ("x", 1), ("hello", 0), ("", 5), ("z", 4)],
    ),
    (
        "keep-positives",
        "Keep the Positives",
        "keepPositives(self, nums: List[int]) -> List[int]",
        "Given an integer array `nums`, return the elements greater than zero, in their "
        "original order.",
        "return [x for x in nums if x > 0]",
        [([1, -2, 3, 0],), ([-1, -2],), ([],), ([5, 5],), ([0, 9, -9, 8],)],
    ),
    (
        "index-of-minimum",
        "Index of the Minimum",
        "indexOfMin(self, nums: List[int]) -> int",
        "Given a non-empty integer array `nums`, return the index of the first occurrence of "
        "its smallest element.",
        "return nums.index(min(nums))",
        [([4, 2, 7, 2],), ([1],), ([9, 8, 7],), ([3, 3, 3],), ([0, -5, 4, -5],)],
    ),
    (
        "count-multiples",
        "Count Multiples",
        "countMultiples(self, n: int, k: int) -> int",
        "Given positive integers `n` and `k`, return how many of the integers 1, 2, ..., n are "
        "divisible by `k`.",
        "return n // k",
        [(10, 3), (5, 5), (4, 7), (100, 1), (12, 4)],
    ),
    (
        "flip-case",
        "Flip the Case",
        "flipCase(self, s: str) -> str",
        "Given a string `s` of English letters, return it with every lowercase letter turned "
        "uppercase and every uppercase letter turned lowercase.",
        "return s.swapcase()",
        [("Hello",), ("abc",), ("XYZ",), ("",), ("mIxEd",)],
    ),
    (
        "prefix-totals",
        "Prefix Totals",
        "prefixTotals(self, nums: List[int]) -> List[int]",
        "Given an integer array `nums`, return an array whose i-th element is "
        "nums[0] + nums[1] + ... + nums[i].",
        "out = []\ntotal = 0\nfor x in nums:\n    total += x\n    out.append(total)\nreturn out",
        [([1, 2, 3],), ([],), ([5],), ([-1, 1, -1],), ([10, 0, 10, 0],)],
    ),
    (
        "distinct-values",
        "Distinct Values",
        "distinctValues(self, nums: List[int]) -> int",
        "Given an integer array `nums`, return how many different values it contains.",
        "return len(set(nums))",
        [([1, 2, 2, 3],), ([],), ([4, 4, 4],), ([1, -1, 1, -1, 0],), ([9],)],
    ),
    (
        "clip-range",
        "Clip to a Range",
        "clipRange(self, nums: List[int], lo: int, hi: int) -> List[int]",
        "Given an integer array `nums` and integers `lo <= hi`, return a new array where every "
        "element below `lo` is replaced by `lo` and every element above `hi` by `hi`.",
        "return [min(max(x, lo), hi) for x in nums]",
        [([1, 5, 10], 2, 8), ([], 0, 1), ([3, 3], 3, 3), ([-9, 0, 9], -1, 1), ([4], 0, 10)],
    ),
    (
        "every-other-letter",
        "Every Other Letter",
        "everyOther(self, s: str) -> str",
        "Given a string `s`, return the string made of its characters at positions 0, 2, 4, ...",
        "return s[::2]",
        [("abcdef",), ("a",), ("",), ("xy",), ("hello world",)],
    ),
    (
        "leap-year",
        "Leap Year",
        "isLeap(self, year: int) -> bool",
        "A year is a leap year if it is divisible by 4, except years divisible by 100, which "
        "are leap years only when also divisible by 400. Given `year`, return `true` if it is "
        "a leap year and `false` otherwise.",
        "return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)",
        [(2024,), (2023,), (1900,), (2000,), (1996,), (2100,)],
    ),
    (
        "factorial-value",
        "Factorial",
        "factorial(self, n: int) -> int",
        "Given a non-negative integer `n`, return n! = 1 * 2 * ... * n (0! is 1).",
        "p = 1\nfor i in range(2, n + 1):\n    p *= i\nreturn p",
        [(0,), (1,), (5,), (10,), (20,)],
    ),
    (
        "count-one-bits",
        "Count One Bits",
        "oneBits(self, n: int) -> int",
        "Given a non-negative integer `n`, return the number of 1s in its binary representation.",
        "return bin(n).count('1')",
        [(0,), (1,), (7,), (8,), (255,), (1023,)],
    ),
    (
        "word-lengths",
        "Word Lengths",
        "wordLengths(self, words: List[str]) -> List[int]",
        "Given a list of strings `words`, return the list of their lengths, in order.",
        "return [len(w) for w in words]",
        [(["a", "bb", "ccc"],), ([],), ([""],), (["hello", "hi"],)],
    ),
    (
        "has-digit",
        "Has a Digit",
        "hasDigit(self, s: str) -> bool",
        "Given a string `s`, return `true` if it contains at least one decimal digit "
        "(`0`-`9`), and `false` otherwise.",
        "return any(c.isdigit() for c in s)",
        [("abc1",), ("abc",), ("",), ("2024",), ("no digits here!",)],
    ),
    (
        "middle-element",
        "Middle Element",
        "middle(self, nums: List[int]) -> int",
        "Given an integer array `nums` of odd length, return its middle element.",
        "return nums[len(nums) // 2]",
        [([1, 2, 3],), ([7],), ([5, 4, 3, 2, 1],), ([0, 9, 0],)],
    ),
    (
        "greatest-common-divisor",
        "Greatest Common Divisor",
        "gcd(self, a: int, b: int) -> int",
        "Given two positive integers `a` and `b`, return the largest integer that divides both.",
        "while b:\n    a, b = b, a % b\nreturn a",
        [(12, 18), (7, 13), (100, 10), (9, 9), (1, 50)],
    ),
    (
        "mirror-array",
        "Mirror the Array",
        "mirror(self, nums: List[int]) -> List[int]",
        "Given an integer array `nums`, return `nums` followed by `nums` reversed.",
        "return nums + nums[::-1]",
        [([1, 2, 3],), ([],), ([5],), ([1, 2],)],
    ),
    (
        "starts-with-vowel",
        "Starts With a Vowel",
        "startsWithVowel(self, word: str) -> bool",
        "Given a non-empty lowercase word `word`, return `true` if its first letter is a vowel "
        "(`a`, `e`, `i`, `o`, `u`), and `false` otherwise.",
        "return word[0] in 'aeiou'",
        [("apple",), ("banana",), ("egg",), ("sky",), ("u",)],
    ),
    (
        "triple-value",
        "Triple It",
        "triple(self, n: int) -> int",
        "Given an integer `n`, return three times `n`.",
        "return 3 * n",
        [(2,), (0,), (-7,), (100,), (33,)],
    ),
    (
        "count-evens",
        "Count the Evens",
        "countEvens(self, nums: List[int]) -> int",
        "Given an integer array `nums`, return how many of its elements are even.",
        "return sum(x % 2 == 0 for x in nums)",
        # [2, 2, 4, 4]: counting distinct evens, len(set(...)), is wrong
        [([1, 2, 3, 4],), ([],), ([1, 3],), ([0, -2, 8],), ([5, 6, 7, 8, 10],), ([2, 2, 4, 4],)],
    ),
    (
        "first-and-last",
        "First Plus Last",
        "firstPlusLast(self, nums: List[int]) -> int",
        "Given a non-empty integer array `nums`, return its first element plus its last "
        "element (for one element, that element twice).",
        "return nums[0] + nums[-1]",
        [([1, 2, 3],), ([5],), ([-1, 4],), ([10, 0, 0, -10],)],
    ),
    (
        "string-length",
        "Length of a String",
        "lengthOf(self, s: str) -> int",
        "Given a string `s`, return the number of characters in it.",
        "return len(s)",
        [("hello",), ("",), ("a b",), ("abcdefghij",)],
    ),
]

# --- stdin: (id, title, statement, reference program, test inputs) -----------------------------

STDIN = [
    (
        "triple-number",
        "Triple the Number",
        "You are given an integer N. Print 3N.\n\nInput\n\nN\n\nOutput\n\nPrint 3N.",
        "print(3 * int(input()))",
        ["4\n", "0\n", "-5\n", "333\n"],
    ),
    (
        "product-of-two",
        "Product of Two",
        "You are given two integers A and B on one line. Print A times B.\n\nInput\n\nA B\n\n"
        "Output\n\nPrint the product.",
        "a, b = map(int, input().split())\nprint(a * b)",
        ["3 4\n", "0 9\n", "-2 6\n", "10 10\n"],
    ),
    (
        "text-length",
        "Length of the Text",
        "You are given a string S of lowercase letters. Print its length.\n\nInput\n\nS\n\n"
        "Output\n\nPrint the length of S.",
        "print(len(input().strip()))",
        ["hello\n", "a\n", "abcdefghijklmnop\n"],
    ),
    (
        "sum-of-list",
        "Sum of a List",
        "You are given N and then N integers A_1 ... A_N. Print their sum.\n\nInput\n\nN\n"
        "A_1 A_2 ... A_N\n\nOutput\n\nPrint the sum.",
        "n = int(input())\nprint(sum(map(int, input().split())))",
        ["3\n1 2 3\n", "1\n-5\n", "4\n10 20 30 40\n", "2\n0 0\n"],
    ),
    (
        "shout",
        "Shout",
        "You are given a word S of lowercase letters. Print it in upper case.\n\nInput\n\nS\n\n"
        "Output\n\nPrint S in upper case.",
        "print(input().strip().upper())",
        ["hello\n", "a\n", "python\n"],
    ),
    (
        "even-or-odd",
        "Even or Odd",
        "You are given an integer N. Print `Even` if N is even and `Odd` otherwise.\n\n"
        "Input\n\nN\n\nOutput\n\nPrint `Even` or `Odd`.",
        "print('Even' if int(input()) % 2 == 0 else 'Odd')",
        ["4\n", "7\n", "0\n", "-3\n"],
    ),
    (
        "list-maximum",
        "Largest in the List",
        "You are given N and then N integers. Print the largest of them.\n\nInput\n\nN\n"
        "A_1 A_2 ... A_N\n\nOutput\n\nPrint the maximum.",
        "n = int(input())\nprint(max(map(int, input().split())))",
        ["3\n1 9 4\n", "1\n-7\n", "5\n-1 -2 -3 -4 -5\n"],
    ),
    (
        "larger-of-two",
        "Larger of Two",
        "You are given two integers A and B on one line. Print the larger one.\n\nInput\n\nA B"
        "\n\nOutput\n\nPrint max(A, B).",
        "print(max(map(int, input().split())))",
        ["3 8\n", "8 3\n", "-1 -9\n", "5 5\n"],
    ),
    (
        "triangle-number",
        "Triangle Number",
        "You are given a positive integer N. Print 1 + 2 + ... + N.\n\nInput\n\nN\n\nOutput\n\n"
        "Print the sum.",
        "n = int(input())\nprint(n * (n + 1) // 2)",
        ["1\n", "4\n", "100\n"],
    ),
    (
        "backwards",
        "Backwards",
        "You are given a string S. Print S reversed.\n\nInput\n\nS\n\nOutput\n\nPrint the "
        "reverse of S.",
        "print(input().strip()[::-1])",
        ["abc\n", "a\n", "racecar\n", "hello\n"],
    ),
    (
        "difference",
        "Difference",
        "You are given two integers A and B on one line. Print A minus B.\n\nInput\n\nA B\n\n"
        "Output\n\nPrint A - B.",
        "a, b = map(int, input().split())\nprint(a - b)",
        ["9 4\n", "4 9\n", "0 0\n", "-3 -3\n"],
    ),
    (
        "count-words-line",
        "Words on a Line",
        "You are given one line of text with words separated by single spaces. Print the "
        "number of words.\n\nInput\n\nA line of text\n\nOutput\n\nPrint the number of words.",
        "print(len(input().split()))",
        ["hello world\n", "one\n", "a b c d\n"],
    ),
]


def call_record(pid, title, signature, statement, body, tests):
    name, _, rest = signature.partition("(")
    starter = f"class Solution:\n    def {signature}:\n        "
    indented = "\n".join("        " + line for line in body.splitlines())
    reference = f"from typing import List\n\n\nclass Solution:\n    def {signature}:\n{indented}\n"
    namespace: dict = {}
    exec(reference, namespace)  # our own reference solution: computes the expected outputs
    solver = namespace["Solution"]()
    cases = []
    for args in tests:
        expected = getattr(solver, name)(*json.loads(json.dumps(list(args))))
        cases.append(
            {
                "input": "\n".join(json.dumps(a) for a in args),
                "output": json.dumps(expected),
                "testtype": "functional",
            }
        )
    params = [p.split(":")[0].strip() for p in rest.split(")")[0].split(",")[1:]]
    examples = []
    for index, (args, case) in enumerate(zip(tests[:2], cases[:2], strict=True), 1):
        shown = ", ".join(f"{p} = {json.dumps(a)}" for p, a in zip(params, args, strict=True))
        examples.append(f"Example {index}:\n\nInput: {shown}\nOutput: {case['output']}")
    content = statement + "\n\n" + "\n\n".join(examples)
    return {
        "question_title": title,
        "question_content": content,
        "platform": "leetcode",
        "question_id": f"mc-{pid}",
        "contest_id": "microcoder-demo",
        "contest_date": DATE,
        "starter_code": starter,
        "difficulty": "easy",
        "public_test_cases": json.dumps(cases[:2]),
        "private_test_cases": json.dumps(cases[2:]),
        "metadata": json.dumps({"func_name": name}),
        "time_limit": 1.0,
        "memory_limit": 256,
        "reference_solution": reference,
    }


def stdin_record(pid, title, statement, program, inputs):
    cases = []
    for text in inputs:
        run = subprocess.run(
            [sys.executable, "-c", program], input=text, capture_output=True, text=True, check=True
        )
        cases.append({"input": text, "output": run.stdout, "testtype": "stdin"})
    examples = [
        f"Sample Input {i}\n\n{c['input']}\nSample Output {i}\n\n{c['output']}"
        for i, c in enumerate(cases[:2], 1)
    ]
    return {
        "question_title": title,
        "question_content": statement + "\n\n" + "\n".join(examples),
        "platform": "atcoder",
        "question_id": f"mc_{pid.replace('-', '_')}",
        "contest_id": "microcoder-demo",
        "contest_date": DATE,
        "starter_code": "",
        "difficulty": "easy",
        "public_test_cases": json.dumps(cases[:2]),
        "private_test_cases": json.dumps(cases[2:]),
        "metadata": "{}",
        "time_limit": 1.0,
        "memory_limit": 256,
        "reference_solution": program + "\n",
    }


def build() -> list[dict]:
    records = [call_record(*item) for item in CALL]
    records += [stdin_record(*item) for item in STDIN]
    ids = [r["question_id"] for r in records]
    assert len(set(ids)) == len(ids), "duplicate problem id"
    return records


if __name__ == "__main__":
    records = build()
    OUT.write_text("".join(json.dumps(r) + "\n" for r in records))
    print(f"{len(records)} problems -> {OUT}")
