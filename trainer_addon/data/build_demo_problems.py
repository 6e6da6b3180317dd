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
from functools import partial
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "demo_problems.jsonl"
MUTANTS_OUT = HERE / "demo_mutants.jsonl"
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
        # ("Aardvark", "a"): counting without case, s.lower().count(c), is wrong
        [
            ("hello", "l"),
            ("abc", "z"),
            ("aaaa", "a"),
            ("", "q"),
            ("Mississippi", "s"),
            ("Aardvark", "a"),
        ],
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


# --- more problems, for a held-out set large enough to read (issue 29) --------------------------
# Written for this project like those above; each was kept only once the base model solved it
# sometimes in a first sampling (see README.md). They come after the first 56 problems so that
# those keep their places in the selection's sampling batches (and so their measured rates).

MORE_CALL = [
    (
        "square-number",
        "Square a Number",
        "square(self, n: int) -> int",
        "Given an integer `n`, return `n` multiplied by itself.",
        "return n * n",
        [(3,), (0,), (-4,), (12,), (1,)],
    ),
    (
        "add-two-numbers",
        "Add Two Numbers",
        "add(self, a: int, b: int) -> int",
        "Given two integers `a` and `b`, return their sum.",
        "return a + b",
        [(2, 3), (0, 0), (-5, 5), (10, -3), (2, 2)],
    ),
    (
        "is-even",
        "Is It Even",
        "isEven(self, n: int) -> bool",
        "Given an integer `n`, return `true` if `n` is even and `false` otherwise.",
        "return n % 2 == 0",
        [(4,), (7,), (0,), (-2,), (-3,), (1,)],
    ),
    (
        "count-zeros",
        "Count the Zeros",
        "countZeros(self, nums: List[int]) -> int",
        "Given an integer array `nums`, return how many of its elements are equal to 0.",
        "return nums.count(0)",
        [([0, 1, 0],), ([],), ([5, 5],), ([0, 0, 0, 0],), ([1, 0, 2],)],
    ),
    (
        "largest-element",
        "Largest Element",
        "largest(self, nums: List[int]) -> int",
        "Given a non-empty integer array `nums`, return its largest element.",
        "return max(nums)",
        [([3, 9, 2],), ([-5],), ([-3, -1, -7],), ([4, 4],), ([1, 2, 10, 3],)],
    ),
    (
        "smallest-element",
        "Smallest Element",
        "smallest(self, nums: List[int]) -> int",
        "Given a non-empty integer array `nums`, return its smallest element.",
        "return min(nums)",
        [([3, 1, 2],), ([8],), ([-3, -1, -7],), ([4, 4],), ([5, 9, 0, 6],)],
    ),
    (
        "reverse-list",
        "Reverse a List",
        "reverseList(self, nums: List[int]) -> List[int]",
        "Given an integer array `nums`, return a new array with the same elements in reverse order.",
        "return nums[::-1]",
        [([1, 2, 3],), ([],), ([5],), ([3, 1, 2],), ([7, 7, 8],)],
    ),
    (
        "reverse-string",
        "Reverse a String",
        "reverseString(self, s: str) -> str",
        "Given a string `s`, return `s` written backwards.",
        "return s[::-1]",
        [("hello",), ("",), ("a",), ("ab cd",), ("abc",)],
    ),
    (
        "upper-case",
        "Upper Case",
        "toUpper(self, s: str) -> str",
        "Given a string `s`, return it with every lowercase letter turned uppercase; other characters stay as they are.",
        "return s.upper()",
        [("hello",), ("ABC",), ("",), ("MiXed 123",), ("a",)],
    ),
    (
        "is-palindrome",
        "Palindrome Check",
        "isPalindrome(self, s: str) -> bool",
        "Given a string `s`, return `true` if it reads the same backwards as forwards, and `false` otherwise. Upper and lower case letters count as different.",
        "return s == s[::-1]",
        [("racecar",), ("hello",), ("",), ("a",), ("abba",), ("Aa",), ("abca",)],
    ),
    (
        "count-uppercase",
        "Count Capitals",
        "countUpper(self, s: str) -> int",
        "Given a string `s`, return how many of its characters are uppercase English letters.",
        "return sum(c.isupper() for c in s)",
        [("Hello World",), ("abc",), ("",), ("ABC",), ("aBcD1!",)],
    ),
    (
        "is-positive",
        "Is It Positive",
        "isPositive(self, n: int) -> bool",
        "Given an integer `n`, return `true` if `n` is greater than zero and `false` otherwise.",
        "return n > 0",
        [(5,), (-3,), (0,), (100,), (-1,)],
    ),
    (
        "absolute-value",
        "Absolute Value",
        "absolute(self, n: int) -> int",
        "Given an integer `n`, return its absolute value.",
        "return abs(n)",
        [(-5,), (3,), (0,), (-100,), (7,)],
    ),
    (
        "cube-number",
        "Cube a Number",
        "cube(self, n: int) -> int",
        "Given an integer `n`, return `n * n * n`.",
        "return n ** 3",
        [(2,), (0,), (-3,), (5,), (1,)],
    ),
    (
        "sum-of-odds",
        "Sum of Odds",
        "sumOdds(self, nums: List[int]) -> int",
        "Given an integer array `nums`, return the sum of its odd elements (0 if there are none).",
        "return sum(x for x in nums if x % 2 != 0)",
        [([1, 2, 3, 4, 5],), ([2, 4],), ([],), ([-3, -1, 2],), ([7, 7],)],
    ),
    (
        "square-all",
        "Square Everything",
        "squareAll(self, nums: List[int]) -> List[int]",
        "Given an integer array `nums`, return a new array with every element squared, in the same order.",
        "return [x * x for x in nums]",
        [([1, 2, 3],), ([],), ([-4, 0],), ([5, 5],)],
    ),
    (
        "list-size",
        "Size of a List",
        "size(self, nums: List[int]) -> int",
        "Given an integer array `nums`, return how many elements it has.",
        "return len(nums)",
        [([1, 2, 3],), ([],), ([0],), ([5, 5, 5, 5],)],
    ),
    (
        "sum-up-to",
        "Sum Up To N",
        "sumUpTo(self, n: int) -> int",
        "Given a positive integer `n`, return 1 + 2 + ... + n.",
        "return n * (n + 1) // 2",
        [(1,), (4,), (10,), (3,), (100,)],
    ),
    (
        "join-two",
        "Join Two Strings",
        "joinTwo(self, a: str, b: str) -> str",
        "Given two strings `a` and `b`, return `a` immediately followed by `b`.",
        "return a + b",
        [("ab", "cd"), ("", "x"), ("hello", " world"), ("", ""), ("x", "y")],
    ),
    (
        "first-word",
        "First Word",
        "firstWord(self, sentence: str) -> str",
        "Given a non-empty string `sentence` of words separated by single spaces, return its first word.",
        "return sentence.split(' ')[0]",
        [("hello world",), ("one",), ("the quick brown",), ("a b",)],
    ),
    (
        "is-divisible",
        "Divisible",
        "isDivisible(self, n: int, k: int) -> bool",
        "Given a non-negative integer `n` and a positive integer `k`, return `true` if `n` is divisible by `k` and `false` otherwise.",
        "return n % k == 0",
        [(10, 5), (7, 2), (0, 3), (9, 3), (5, 10)],
    ),
    (
        "remainder-of",
        "Remainder",
        "remainderOf(self, a: int, b: int) -> int",
        "Given a non-negative integer `a` and a positive integer `b`, return the remainder when `a` is divided by `b`.",
        "return a % b",
        [(10, 3), (9, 3), (2, 5), (0, 4), (17, 17)],
    ),
    (
        "max-of-two",
        "Larger Number",
        "maxOfTwo(self, a: int, b: int) -> int",
        "Given two integers `a` and `b`, return the larger of them.",
        "return max(a, b)",
        [(3, 7), (7, 3), (-1, -5), (4, 4), (0, -2)],
    ),
    (
        "smallest-of-three",
        "Smallest of Three",
        "smallestOfThree(self, a: int, b: int, c: int) -> int",
        "Given three integers `a`, `b` and `c`, return the smallest of them.",
        "return min(a, b, c)",
        [(1, 2, 3), (9, -1, 4), (5, 5, 2), (-7, -8, -9), (3, 2, 1)],
    ),
    (
        "only-evens",
        "Only the Evens",
        "onlyEvens(self, nums: List[int]) -> List[int]",
        "Given an integer array `nums`, return its even elements, in their original order.",
        "return [x for x in nums if x % 2 == 0]",
        [([1, 2, 3, 4],), ([],), ([1, 3],), ([8, 2, 2],), ([0, -4, 5],)],
    ),
    (
        "is-anagram",
        "Anagram Check",
        "isAnagram(self, a: str, b: str) -> bool",
        "Given two strings `a` and `b`, return `true` if `b` uses exactly the same letters as `a`, each the same number of times, in any order, and `false` otherwise.",
        "return sorted(a) == sorted(b)",
        [("listen", "silent"), ("abc", "abd"), ("", ""), ("aab", "abb"), ("ab", "ba"), ("a", "aa")],
    ),
    (
        "is-power-of-two",
        "Power of Two",
        "isPowerOfTwo(self, n: int) -> bool",
        "Given a positive integer `n`, return `true` if `n` is a power of two (1, 2, 4, 8, ...) and `false` otherwise.",
        "while n % 2 == 0:\n    n //= 2\nreturn n == 1",
        [(1,), (2,), (3,), (8,), (12,), (64,), (6,)],
    ),
    (
        "is-vowel",
        "Is It a Vowel",
        "isVowel(self, c: str) -> bool",
        "Given a single lowercase letter `c`, return `true` if it is a vowel (`a`, `e`, `i`, `o`, `u`) and `false` otherwise.",
        "return c in 'aeiou'",
        [("a",), ("b",), ("u",), ("y",), ("e",), ("z",)],
    ),
    (
        "double-text",
        "Say It Twice",
        "doubleText(self, s: str) -> str",
        "Given a string `s`, return `s` written twice in a row.",
        "return s + s",
        [("ab",), ("",), ("x",), ("hi there",)],
    ),
    (
        "multiply-two",
        "Multiply Two Numbers",
        "multiply(self, a: int, b: int) -> int",
        "Given two integers `a` and `b`, return their product.",
        "return a * b",
        [(3, 4), (0, 5), (-2, 3), (1, 1), (7, -7)],
    ),
    (
        "count-positives",
        "Count the Positives",
        "countPositives(self, nums: List[int]) -> int",
        "Given an integer array `nums`, return how many of its elements are greater than zero.",
        "return sum(x > 0 for x in nums)",
        [([1, -2, 3],), ([0, 0],), ([],), ([5, 5, 5],), ([-1, 4, 0],)],
    ),
    (
        "is-multiple-of-three",
        "Multiple of Three",
        "isMultipleOfThree(self, n: int) -> bool",
        "Given an integer `n`, return `true` if `n` is a multiple of 3 and `false` otherwise.",
        "return n % 3 == 0",
        [(9,), (10,), (0,), (-6,), (7,), (11,)],
    ),
    (
        "all-positive",
        "All Positive",
        "allPositive(self, nums: List[int]) -> bool",
        "Given a non-empty integer array `nums`, return `true` if every element is greater than zero and `false` otherwise.",
        "return all(x > 0 for x in nums)",
        [([1, 2, 3],), ([1, -2, 3],), ([0],), ([5],), ([-1, -2],)],
    ),
    (
        "is-negative",
        "Is It Negative",
        "isNegative(self, n: int) -> bool",
        "Given an integer `n`, return `true` if `n` is less than zero and `false` otherwise.",
        "return n < 0",
        [(-4,), (6,), (0,), (-1,), (1,)],
    ),
    (
        "is-zero",
        "Is It Zero",
        "isZero(self, n: int) -> bool",
        "Given an integer `n`, return `true` if `n` is 0 and `false` otherwise.",
        "return n == 0",
        [(0,), (5,), (-3,), (1,)],
    ),
    (
        "add-ten",
        "Add Ten",
        "addTen(self, n: int) -> int",
        "Given an integer `n`, return `n` plus 10.",
        "return n + 10",
        [(5,), (0,), (-10,), (-3,), (90,)],
    ),
    (
        "subtract-numbers",
        "Subtract",
        "subtract(self, a: int, b: int) -> int",
        "Given two integers `a` and `b`, return `a` minus `b`.",
        "return a - b",
        [(9, 4), (4, 9), (0, 0), (-3, -3), (5, -2)],
    ),
    (
        "double-number",
        "Double a Number",
        "double(self, n: int) -> int",
        "Given an integer `n`, return two times `n`.",
        "return 2 * n",
        [(4,), (0,), (-6,), (1,), (50,)],
    ),
    (
        "last-character",
        "Last Character",
        "lastChar(self, s: str) -> str",
        "Given a non-empty string `s`, return its last character.",
        "return s[-1]",
        [("hello",), ("a",), ("xyz",), ("top zz",)],
    ),
    (
        "ends-with",
        "Ends With",
        "endsWith(self, s: str, suffix: str) -> bool",
        "Given strings `s` and `suffix`, return `true` if `s` ends with `suffix` and `false` otherwise.",
        "return s.endswith(suffix)",
        [("hello", "lo"), ("hello", "he"), ("abc", ""), ("a", "abc"), ("banana", "na")],
    ),
    (
        "replace-char",
        "Replace a Character",
        "replaceChar(self, s: str, a: str, b: str) -> str",
        "Given a string `s` and two single characters `a` and `b`, return `s` with every occurrence of `a` replaced by `b`.",
        "return s.replace(a, b)",
        [
            ("banana", "a", "o"),
            ("hello", "z", "y"),
            ("", "a", "b"),
            ("aaa", "a", "b"),
            ("abcabc", "c", "x"),
        ],
    ),
    (
        "concat-all",
        "Concatenate All",
        "concatAll(self, words: List[str]) -> str",
        "Given a list of strings `words`, return all of them joined together in order, with nothing between them.",
        "return ''.join(words)",
        [(["a", "b", "c"],), ([],), (["hello"],), (["ab", "", "cd"],)],
    ),
    (
        "min-of-two",
        "Smaller Number",
        "minOfTwo(self, a: int, b: int) -> int",
        "Given two integers `a` and `b`, return the smaller of them.",
        "return min(a, b)",
        [(3, 7), (7, 3), (-1, -5), (4, 4), (0, 2)],
    ),
    (
        "is-equal",
        "Are They Equal",
        "isEqual(self, a: int, b: int) -> bool",
        "Given two integers `a` and `b`, return `true` if they are equal and `false` otherwise.",
        "return a == b",
        [(3, 3), (3, 4), (0, 0), (-2, 2), (5, 6)],
    ),
    (
        "sum-of-three",
        "Sum of Three",
        "sumThree(self, a: int, b: int, c: int) -> int",
        "Given three integers `a`, `b` and `c`, return their sum.",
        "return a + b + c",
        [(1, 2, 3), (0, 0, 0), (-1, 5, -4), (10, 20, 30), (2, 2, 2)],
    ),
    (
        "append-value",
        "Append a Value",
        "appendValue(self, nums: List[int], x: int) -> List[int]",
        "Given an integer array `nums` and an integer `x`, return `nums` with `x` added at the end.",
        "return nums + [x]",
        [([1, 2], 3), ([], 5), ([7], 7), ([3, 1], 0)],
    ),
    (
        "rectangle-area",
        "Rectangle Area",
        "area(self, width: int, height: int) -> int",
        "Given the width and height of a rectangle, return its area.",
        "return width * height",
        [(3, 4), (1, 1), (5, 0), (10, 2), (7, 3)],
    ),
    (
        "hours-to-seconds",
        "Hours to Seconds",
        "hoursToSeconds(self, hours: int) -> int",
        "Given a number of hours `hours`, return how many seconds that is.",
        "return hours * 3600",
        [(1,), (0,), (2,), (24,)],
    ),
    (
        "swap-pair",
        "Swap Two",
        "swap(self, a: int, b: int) -> List[int]",
        "Given two integers `a` and `b`, return the array `[b, a]`.",
        "return [b, a]",
        [(1, 2), (5, 5), (-1, 0), (9, 3)],
    ),
    (
        "count-true",
        "Count True",
        "countTrue(self, flags: List[bool]) -> int",
        "Given an array of booleans `flags`, return how many of them are `true`.",
        "return sum(flags)",
        [([True, False, True],), ([],), ([False, False],), ([True],)],
    ),
    (
        "is-teen",
        "Teen Age",
        "isTeen(self, age: int) -> bool",
        "Given a non-negative integer `age`, return `true` if it is between 13 and 19 inclusive and `false` otherwise.",
        "return 13 <= age <= 19",
        [(15,), (12,), (13,), (19,), (20,), (0,)],
    ),
    (
        "greet-person",
        "Greeting",
        "greet(self, name: str) -> str",
        'Given a string `name`, return the greeting `Hello, ` followed by the name and `!`, for example `"Hello, Ann!"`.',
        "return 'Hello, ' + name + '!'",
        [("Ann",), ("Bob",), ("",), ("Zoe Lee",)],
    ),
    (
        "full-name",
        "Full Name",
        "fullName(self, first: str, last: str) -> str",
        "Given a first name `first` and a last name `last`, return them joined with one space between them.",
        "return first + ' ' + last",
        [("Ada", "Lovelace"), ("A", "B"), ("Jo", "Li")],
    ),
    (
        "to-integer",
        "Text to Number",
        "toInteger(self, s: str) -> int",
        "Given a string `s` that is an integer written in decimal, possibly with a leading `-`, return that integer.",
        "return int(s)",
        [("42",), ("0",), ("-7",), ("1000",)],
    ),
    (
        "char-code",
        "Character Code",
        "charCode(self, c: str) -> int",
        "Given a single character `c`, return its Unicode code point (for example 97 for `a`).",
        "return ord(c)",
        [("a",), ("A",), ("0",), (" ",), ("z",)],
    ),
    (
        "is-long-word",
        "Long Word",
        "isLong(self, word: str) -> bool",
        "Given a string `word`, return `true` if it has more than 5 characters and `false` otherwise.",
        "return len(word) > 5",
        [("banana",), ("apple",), ("",), ("abcdefg",), ("hi",)],
    ),
    (
        "is-greater",
        "Is It Greater",
        "isGreater(self, a: int, b: int) -> bool",
        "Given two integers `a` and `b`, return `true` if `a` is greater than `b` and `false` otherwise.",
        "return a > b",
        [(5, 3), (3, 5), (4, 4), (-1, -2), (0, 1)],
    ),
    (
        "multiply-three",
        "Multiply Three",
        "multiplyThree(self, a: int, b: int, c: int) -> int",
        "Given three integers `a`, `b` and `c`, return their product.",
        "return a * b * c",
        [(1, 2, 3), (0, 5, 6), (-1, 2, 3), (2, 2, 2), (4, 1, 5)],
    ),
    (
        "sum-two-squares",
        "Sum of Two Squares",
        "sumTwoSquares(self, a: int, b: int) -> int",
        "Given two integers `a` and `b`, return `a * a + b * b`.",
        "return a * a + b * b",
        [(1, 2), (0, 0), (3, 4), (-2, 1), (2, 2)],
    ),
    (
        "minus-one",
        "Minus One",
        "minusOne(self, n: int) -> int",
        "Given an integer `n`, return `n` minus 1.",
        "return n - 1",
        [(5,), (0,), (-3,), (100,)],
    ),
    (
        "times-ten",
        "Times Ten",
        "timesTen(self, n: int) -> int",
        "Given an integer `n`, return ten times `n`.",
        "return 10 * n",
        [(3,), (0,), (-4,), (25,)],
    ),
]

MORE_STDIN = [
    (
        "hello-world",
        "Hello, World",
        "Print `Hello, World!`. There is no input.",
        "print('Hello, World!')",
        [""],
    ),
    ("print-yes", "Say Yes", "Print the word `Yes`. There is no input.", "print('Yes')", [""]),
    (
        "sum-two-hint",
        "Sum of Two Lines",
        "Read two integers with two calls `int(input())` (one per line) and print their sum. Print only the sum.",
        "a = int(input())\nb = int(input())\nprint(a + b)",
        ["2\n3\n", "0\n0\n", "-5\n8\n", "10\n-3\n"],
    ),
    (
        "main-sum-two",
        "Sum in main",
        "Define a function `main()` that reads two integers, one per line, with two calls `int(input())`, and prints their sum; then call `main()`. Print only the sum.",
        "def main():\n    a = int(input())\n    b = int(input())\n    print(a + b)\n\n\nmain()",
        ["2\n3\n", "0\n0\n", "-5\n8\n", "10\n-3\n"],
    ),
    (
        "main-upper",
        "Upper in main",
        "Define a function `main()` that reads a word with `input()` and prints it in upper case, then call `main()`. Print nothing else.",
        "def main():\n    print(input().upper())\n\n\nmain()",
        ["hello\n", "abc\n", "Python\n"],
    ),
    (
        "print-sum-two-three",
        "Two Plus Three",
        "Print the value of 2 + 3. There is no input.",
        "print(2 + 3)",
        [""],
    ),
    (
        "main-hello",
        "Hello in main",
        "Define a function `main()` that prints `Hello, main!`, then call `main()`. There is no input.",
        "def main():\n    print('Hello, main!')\n\n\nmain()",
        [""],
    ),
]


# --- mutants: common wrong versions of each reference, every one of which must fail ------------
# {id: [(what the mutant gets wrong, its code, the verdict the sandbox gives it)]}. The code is
# written as the reference is: a method body for a call-based problem, a whole program for a
# stdin one. tests/test_demo_problems_mutants.py grades every reference (AC) and every mutant
# (its verdict, never AC) in the sandbox; a mutant that passes means the tests need one more.

MUTANTS: dict[str, list[tuple[str, str, str]]] = {
    "sum-of-evens": [
        ("sums the odd elements", "return sum(x for x in nums if x % 2)", "WA"),
        ("counts the evens instead of summing them", "return sum(x % 2 == 0 for x in nums)", "WA"),
        ("sums the distinct evens", "return sum(set(x for x in nums if x % 2 == 0))", "WA"),
    ],
    "count-vowels": [
        ("counts the consonants", "return sum(c not in 'aeiou' for c in word)", "WA"),
        ("counts distinct vowels", "return len(set(c for c in word if c in 'aeiou'))", "WA"),
        ("forgets `u`", "return sum(c in 'aeio' for c in word)", "WA"),
    ],
    "value-spread": [
        ("the largest element only", "return max(nums)", "WA"),
        ("last minus first", "return nums[-1] - nums[0]", "WA"),
    ],
    "double-all": [
        ("squares instead of doubling", "return [x * x for x in nums]", "WA"),
        ("drops the last element", "return [2 * x for x in nums[:-1]]", "WA"),
        ("sorts the result", "return sorted(2 * x for x in nums)", "WA"),
    ],
    "count-above": [
        ("counts elements >= k", "return sum(x >= k for x in nums)", "WA"),
        ("counts elements below k", "return sum(x < k for x in nums)", "WA"),
    ],
    "last-digit": [
        ("drops the last digit", "return n // 10", "WA"),
        ("the first digit", "return int(str(n)[0])", "WA"),
    ],
    "dash-join": [
        ("joins with spaces", "return ' '.join(words)", "WA"),
        ("skips empty words", "return '-'.join(w for w in words if w)", "WA"),
        ("a dash after every word", "return ''.join(w + '-' for w in words)", "WA"),
    ],
    "is-non-decreasing": [
        ("strictly increasing", "return all(a < b for a, b in zip(nums, nums[1:]))", "WA"),
        ("compares the ends only", "return not nums or nums[0] <= nums[-1]", "WA"),
    ],
    "count-char": [
        ("ignores case", "return s.lower().count(c.lower())", "WA"),
        ("whether it occurs, not how often", "return int(c in s)", "WA"),
    ],
    "sum-of-squares": [
        ("stops at n - 1", "return sum(i * i for i in range(n))", "WA"),
        ("n squared", "return n * n", "WA"),
        ("the square of the sum", "return sum(range(1, n + 1)) ** 2", "WA"),
    ],
    "reverse-word-order": [
        ("reverses the letters", "return sentence[::-1]", "WA"),
        (
            "sorts the words backwards",
            "return ' '.join(sorted(sentence.split(' '), reverse=True))",
            "WA",
        ),
    ],
    "largest-of-three": [
        ("ignores c", "return max(a, b)", "WA"),
        ("the smallest", "return min(a, b, c)", "WA"),
    ],
    "distance-apart": [
        ("a - b without abs", "return a - b", "WA"),
        ("abs of the sum", "return abs(a + b)", "WA"),
    ],
    "even-positions": [
        ("odd positions", "return nums[1::2]", "WA"),
        ("even values", "return [x for x in nums if x % 2 == 0]", "WA"),
    ],
    "digit-total": [
        ("counts the digits", "return len(str(n))", "WA"),
        ("first digit plus last", "return int(str(n)[0]) + int(str(n)[-1])", "WA"),
        ("n mod 9", "return n % 9", "WA"),
    ],
    "count-negatives": [
        ("counts zero too", "return sum(x <= 0 for x in nums)", "WA"),
        ("sums the negatives", "return sum(x for x in nums if x < 0)", "WA"),
    ],
    "longest-word-length": [
        ("the shortest", "return min(len(w) for w in words)", "WA"),
        ("the length of the alphabetically last word", "return len(max(words))", "WA"),
        ("the number of words", "return len(words)", "WA"),
    ],
    "drop-spaces": [
        ("strips the ends only", "return s.strip()", "WA"),
        ("removes the first space only", "return s.replace(' ', '', 1)", "WA"),
    ],
    "product-of-all": [
        ("the sum", "return sum(nums)", "WA"),
        ("starts the product at 0", "p = 0\nfor x in nums:\n    p *= x\nreturn p", "WA"),
        ("skips the first element", "p = 1\nfor x in nums[1:]:\n    p *= x\nreturn p", "WA"),
    ],
    "has-repeat": [
        ("true when all distinct", "return len(set(nums)) == len(nums)", "WA"),
        ("neighbours only", "return any(a == b for a, b in zip(nums, nums[1:]))", "WA"),
    ],
    "word-count": [
        ("splits on single spaces", "return len(s.split(' '))", "WA"),
        ("spaces plus one", "return s.count(' ') + 1", "WA"),
    ],
    "floor-average": [
        ("rounds to nearest", "return round(sum(nums) / len(nums))", "WA"),
        ("rounds up", "return -(-sum(nums) // len(nums))", "WA"),
        ("true division", "return sum(nums) / len(nums)", "WA"),
    ],
    "repeat-text": [
        ("one time too many", "return s * (k + 1)", "WA"),
        ("wrong base case: s once for k = 0", "return s * k if k else s", "WA"),
    ],
    "keep-positives": [
        ("keeps zero too", "return [x for x in nums if x >= 0]", "WA"),
        ("absolute values", "return [abs(x) for x in nums]", "WA"),
    ],
    "index-of-minimum": [
        ("last occurrence", "return len(nums) - 1 - nums[::-1].index(min(nums))", "WA"),
        ("index of the maximum", "return nums.index(max(nums))", "WA"),
        ("the minimum itself", "return min(nums)", "WA"),
    ],
    "count-multiples": [
        ("counts 0 as well", "return len(range(0, n, k))", "WA"),
        ("the remainder", "return n % k", "WA"),
    ],
    "flip-case": [
        ("upper case", "return s.upper()", "WA"),
        ("lower case", "return s.lower()", "WA"),
    ],
    "prefix-totals": [
        ("excludes element i", "return [sum(nums[:i]) for i in range(len(nums))]", "WA"),
        ("suffix totals", "return [sum(nums[i:]) for i in range(len(nums))]", "WA"),
    ],
    "distinct-values": [
        ("all elements", "return len(nums)", "WA"),
        ("values that occur once", "return sum(nums.count(x) == 1 for x in nums)", "WA"),
    ],
    "clip-range": [
        ("min and max swapped", "return [max(min(x, lo), hi) for x in nums]", "WA"),
        ("drops instead of clipping", "return [x for x in nums if lo <= x <= hi]", "WA"),
    ],
    "every-other-letter": [
        ("odd positions", "return s[1::2]", "WA"),
        ("every third", "return s[::3]", "WA"),
    ],
    "leap-year": [
        ("divisible by 4 only", "return year % 4 == 0", "WA"),
        ("forgets the 400 rule", "return year % 4 == 0 and year % 100 != 0", "WA"),
    ],
    "factorial-value": [
        ("no base case", "return n * self.factorial(n - 1)", "RE"),
        ("base case 0! = 0", "return 0 if n == 0 else n * self.factorial(n - 1)", "WA"),
        ("stops at n - 1", "p = 1\nfor i in range(1, n):\n    p *= i\nreturn p", "WA"),
    ],
    "count-one-bits": [
        ("counts the zeros", "return bin(n)[2:].count('0')", "WA"),
        ("the number of binary digits", "return len(bin(n)) - 2", "WA"),
    ],
    "word-lengths": [
        ("skips empty words", "return [len(w) for w in words if w]", "WA"),
        ("sorted lengths", "return sorted(len(w) for w in words)", "WA"),
    ],
    "has-digit": [
        ("all digits", "return s.isdigit()", "WA"),
        ("any letter", "return any(c.isalpha() for c in s)", "WA"),
    ],
    "middle-element": [
        ("one before the middle", "return nums[len(nums) // 2 - 1]", "WA"),
        ("the median", "return sorted(nums)[len(nums) // 2]", "WA"),
    ],
    "greatest-common-divisor": [
        ("the smaller number", "return min(a, b)", "WA"),
        ("the remainder", "return max(a, b) % min(a, b)", "WA"),
    ],
    "mirror-array": [
        ("nums twice", "return nums + nums", "WA"),
        ("reversed first", "return nums[::-1] + nums", "WA"),
    ],
    "starts-with-vowel": [
        ("the last letter", "return word[-1] in 'aeiou'", "WA"),
        ("any vowel", "return any(c in 'aeiou' for c in word)", "WA"),
    ],
    "triple-value": [
        ("adds 3", "return n + 3", "WA"),
        ("cubes", "return n ** 3", "WA"),
    ],
    "count-evens": [
        ("distinct evens", "return len(set(x for x in nums if x % 2 == 0))", "WA"),
        ("counts the odds", "return sum(x % 2 for x in nums)", "WA"),
    ],
    "first-and-last": [
        ("first plus second", "return nums[0] + nums[1]", "WA"),
        ("first twice", "return 2 * nums[0]", "WA"),
    ],
    "string-length": [
        ("counts words", "return len(s.split())", "WA"),
        ("leaves out spaces", "return len(s.replace(' ', ''))", "WA"),
    ],
    "triple-number": [
        ("adds 3", "print(3 + int(input()))", "WA"),
        ("doubles", "print(2 * int(input()))", "WA"),
    ],
    "product-of-two": [
        ("the sum", "a, b = map(int, input().split())\nprint(a + b)", "WA"),
        ("a to the power b", "a, b = map(int, input().split())\nprint(a ** b)", "WA"),
    ],
    "text-length": [
        ("distinct letters", "print(len(set(input().strip())))", "WA"),
        ("prompts for the input", "print(len(input('Enter a string: ').strip()))", "WA"),
    ],
    "sum-of-list": [
        ("adds N as well", "print(sum(map(int, open(0).read().split())))", "WA"),
        ("the largest", "n = int(input())\nprint(max(map(int, input().split())))", "WA"),
    ],
    "shout": [
        ("capitalises the first letter only", "print(input().strip().capitalize())", "WA"),
        ("lower case", "print(input().strip().lower())", "WA"),
    ],
    "even-or-odd": [
        ("swapped", "print('Odd' if int(input()) % 2 == 0 else 'Even')", "WA"),
        ("lower case words", "print('even' if int(input()) % 2 == 0 else 'odd')", "WA"),
    ],
    "list-maximum": [
        ("the smallest", "n = int(input())\nprint(min(map(int, input().split())))", "WA"),
        ("reads N as the list", "print(max(map(int, input().split())))", "WA"),
    ],
    "larger-of-two": [
        ("the smaller", "print(min(map(int, input().split())))", "WA"),
        ("the first", "print(input().split()[0])", "WA"),
    ],
    "triangle-number": [
        ("stops at N - 1", "n = int(input())\nprint(n * (n - 1) // 2)", "WA"),
        ("N squared", "n = int(input())\nprint(n * n)", "WA"),
    ],
    "backwards": [
        ("unchanged", "print(input().strip())", "WA"),
        ("letters sorted backwards", "print(''.join(sorted(input().strip(), reverse=True)))", "WA"),
    ],
    "difference": [
        ("B - A", "a, b = map(int, input().split())\nprint(b - a)", "WA"),
        ("the absolute difference", "a, b = map(int, input().split())\nprint(abs(a - b))", "WA"),
    ],
    "count-words-line": [
        ("counts the spaces", "print(input().count(' '))", "WA"),
        ("counts the characters", "print(len(input()))", "WA"),
    ],
    "square-number": [("doubles", "return 2 * n", "WA"), ("cubes", "return n ** 3", "WA")],
    "add-two-numbers": [("multiplies", "return a * b", "WA"), ("subtracts", "return a - b", "WA")],
    "is-even": [
        ("odd instead of even", "return n % 2 == 1", "WA"),
        ("positive instead of even", "return n > 0", "WA"),
    ],
    "count-zeros": [
        ("counts the non-zeros", "return sum(x != 0 for x in nums)", "WA"),
        ("whether 0 occurs, not how often", "return int(0 in nums)", "WA"),
    ],
    "largest-element": [
        ("the smallest", "return min(nums)", "WA"),
        ("the last element", "return nums[-1]", "WA"),
        ("the first element", "return nums[0]", "WA"),
    ],
    "smallest-element": [
        ("the largest", "return max(nums)", "WA"),
        ("the first element", "return nums[0]", "WA"),
        ("the second smallest", "return sorted(nums)[1] if len(nums) > 1 else nums[0]", "WA"),
    ],
    "reverse-list": [
        ("sorted backwards", "return sorted(nums, reverse=True)", "WA"),
        ("unchanged", "return nums", "WA"),
    ],
    "reverse-string": [
        ("unchanged", "return s", "WA"),
        ("letters sorted backwards", "return ''.join(sorted(s, reverse=True))", "WA"),
        ("reverses the word order", "return ' '.join(reversed(s.split(' ')))", "WA"),
    ],
    "upper-case": [
        ("capitalises the first letter only", "return s.capitalize()", "WA"),
        ("title case", "return s.title()", "WA"),
        ("swaps the case", "return s.swapcase()", "WA"),
    ],
    "is-palindrome": [
        ("ignores case", "return s.lower() == s.lower()[::-1]", "WA"),
        ("compares the ends only", "return s[:1] == s[-1:]", "WA"),
    ],
    "count-uppercase": [
        ("counts lower case", "return sum(c.islower() for c in s)", "WA"),
        ("counts every letter", "return sum(c.isalpha() for c in s)", "WA"),
    ],
    "is-positive": [
        ("counts 0 as positive", "return n >= 0", "WA"),
        ("non-zero", "return n != 0", "WA"),
    ],
    "absolute-value": [("negates", "return -n", "WA"), ("unchanged", "return n", "WA")],
    "cube-number": [("squares", "return n * n", "WA"), ("triples", "return 3 * n", "WA")],
    "sum-of-odds": [
        ("sums the evens", "return sum(x for x in nums if x % 2 == 0)", "WA"),
        ("counts the odds", "return sum(x % 2 != 0 for x in nums)", "WA"),
        ("sums the distinct odds", "return sum(set(x for x in nums if x % 2))", "WA"),
    ],
    "square-all": [
        ("doubles", "return [2 * x for x in nums]", "WA"),
        ("the square of the sum", "return [sum(nums) ** 2]", "WA"),
    ],
    "list-size": [
        ("distinct values", "return len(set(nums))", "WA"),
        ("the sum", "return sum(nums)", "WA"),
    ],
    "sum-up-to": [
        ("stops at n - 1", "return sum(range(n))", "WA"),
        ("n squared", "return n * n", "WA"),
    ],
    "join-two": [
        ("b before a", "return b + a", "WA"),
        ("a space between", "return a + ' ' + b", "WA"),
    ],
    "first-word": [
        ("the last word", "return sentence.split(' ')[-1]", "WA"),
        ("the first letter", "return sentence[0]", "WA"),
    ],
    "is-divisible": [
        ("k divisible by n", "return n != 0 and k % n == 0", "WA"),
        ("not divisible", "return n % k != 0", "WA"),
    ],
    "remainder-of": [
        ("the quotient", "return a // b", "WA"),
        ("b mod a", "return b % a if a else 0", "WA"),
    ],
    "max-of-two": [("the smaller", "return min(a, b)", "WA"), ("always a", "return a", "WA")],
    "smallest-of-three": [
        ("the largest", "return max(a, b, c)", "WA"),
        ("ignores c", "return min(a, b)", "WA"),
    ],
    "only-evens": [
        ("the odds", "return [x for x in nums if x % 2 != 0]", "WA"),
        ("distinct evens", "return sorted(set(x for x in nums if x % 2 == 0))", "WA"),
    ],
    "is-anagram": [
        ("same set of letters", "return set(a) == set(b)", "WA"),
        ("same length", "return len(a) == len(b)", "WA"),
    ],
    "is-power-of-two": [
        ("even", "return n % 2 == 0", "WA"),
        ("forgets 1", "return n > 1 and n & (n - 1) == 0", "WA"),
    ],
    "is-vowel": [
        ("counts y as a vowel", "return c in 'aeiouy'", "WA"),
        ("only a", "return c == 'a'", "WA"),
    ],
    "double-text": [
        ("three times", "return s * 3", "WA"),
        ("s and its reverse", "return s + s[::-1]", "WA"),
    ],
    "multiply-two": [
        ("adds", "return a + b", "WA"),
        ("a to the power b", "return a ** b if b >= 0 else 0", "WA"),
    ],
    "count-positives": [
        ("counts 0 as positive", "return sum(x >= 0 for x in nums)", "WA"),
        ("sums the positives", "return sum(x for x in nums if x > 0)", "WA"),
    ],
    "is-multiple-of-three": [
        ("remainder 1", "return n % 3 == 1", "WA"),
        ("odd", "return n % 2 != 0", "WA"),
    ],
    "all-positive": [
        ("any positive", "return any(x > 0 for x in nums)", "WA"),
        ("counts 0 as positive", "return all(x >= 0 for x in nums)", "WA"),
    ],
    "hello-world": [
        ("no comma", "print('Hello World!')", "WA"),
        ("lower case", "print('hello, world!')", "WA"),
    ],
    "is-negative": [
        ("counts 0 as negative", "return n <= 0", "WA"),
        ("positive", "return n > 0", "WA"),
    ],
    "is-zero": [("non-zero", "return n != 0", "WA"), ("not positive", "return n <= 0", "WA")],
    "add-ten": [("adds 1", "return n + 1", "WA"), ("times ten", "return n * 10", "WA")],
    "subtract-numbers": [
        ("b - a", "return b - a", "WA"),
        ("the distance", "return abs(a - b)", "WA"),
    ],
    "double-number": [("squares", "return n * n", "WA"), ("adds 2", "return n + 2", "WA")],
    "last-character": [
        ("the first character", "return s[0]", "WA"),
        ("the last two", "return s[-2:]", "WA"),
    ],
    "ends-with": [
        ("starts with", "return s.startswith(suffix)", "WA"),
        ("anywhere in s", "return suffix in s", "WA"),
    ],
    "replace-char": [
        ("replaces the first only", "return s.replace(a, b, 1)", "WA"),
        ("removes a", "return s.replace(a, '')", "WA"),
    ],
    "concat-all": [
        ("joins with spaces", "return ' '.join(words)", "WA"),
        ("skips the first", "return ''.join(words[1:])", "WA"),
    ],
    "min-of-two": [("the larger", "return max(a, b)", "WA"), ("always b", "return b", "WA")],
    "is-equal": [
        ("not equal", "return a != b", "WA"),
        ("same absolute value", "return abs(a) == abs(b)", "WA"),
    ],
    "sum-of-three": [
        ("ignores c", "return a + b", "WA"),
        ("the product", "return a * b * c", "WA"),
    ],
    "append-value": [
        ("adds at the front", "return [x] + nums", "WA"),
        ("adds x to each element", "return [y + x for y in nums]", "WA"),
    ],
    "rectangle-area": [
        ("the perimeter", "return 2 * (width + height)", "WA"),
        ("the sum", "return width + height", "WA"),
    ],
    "hours-to-seconds": [
        ("minutes, not seconds", "return hours * 60", "WA"),
        ("seconds in a day", "return hours * 86400", "WA"),
    ],
    "swap-pair": [("not swapped", "return [a, b]", "WA"), ("the sum", "return [a + b]", "WA")],
    "count-true": [
        ("counts false", "return flags.count(False)", "WA"),
        ("whether any", "return int(any(flags))", "WA"),
    ],
    "is-teen": [
        ("excludes 19", "return 13 <= age < 19", "WA"),
        ("excludes 13", "return 13 < age <= 19", "WA"),
    ],
    "greet-person": [
        ("no comma", "return 'Hello ' + name + '!'", "WA"),
        ("no exclamation mark", "return 'Hello, ' + name", "WA"),
    ],
    "full-name": [
        ("no space", "return first + last", "WA"),
        ("last name first", "return last + ' ' + first", "WA"),
    ],
    "to-integer": [
        ("leaves it text", "return s", "WA"),
        ("drops the sign", "return int(s.lstrip('-'))", "WA"),
    ],
    "char-code": [
        ("the code of a lower case", "return ord(c.lower())", "WA"),
        ("the position in the alphabet", "return ord(c) - 96", "WA"),
    ],
    "is-long-word": [
        ("5 or more", "return len(word) >= 5", "WA"),
        ("more than 6", "return len(word) > 6", "WA"),
    ],
    "print-yes": [("upper case", "print('YES')", "WA"), ("lower case", "print('yes')", "WA")],
    "sum-two-hint": [
        ("the product", "a = int(input())\nb = int(input())\nprint(a * b)", "WA"),
        ("joins the text", "print(input() + input())", "WA"),
    ],
    "is-greater": [
        ("greater or equal", "return a >= b", "WA"),
        ("less than", "return a < b", "WA"),
    ],
    "multiply-three": [("the sum", "return a + b + c", "WA"), ("ignores c", "return a * b", "WA")],
    "sum-two-squares": [
        ("the square of the sum", "return (a + b) ** 2", "WA"),
        ("doubles instead of squaring", "return 2 * a + 2 * b", "WA"),
    ],
    "minus-one": [("plus one", "return n + 1", "WA"), ("one minus n", "return 1 - n", "WA")],
    "times-ten": [("adds ten", "return n + 10", "WA"), ("times 100", "return 100 * n", "WA")],
    "main-sum-two": [
        (
            "the product",
            "def main():\n    a = int(input())\n    b = int(input())\n    print(a * b)\n\n\nmain()",
            "WA",
        ),
        (
            "reads both from one line",
            "def main():\n    a, b = map(int, input().split())\n    print(a + b)\n\n\nmain()",
            "RE",
        ),
        (
            "never calls main",
            "def main():\n    a = int(input())\n    b = int(input())\n    print(a + b)",
            "WA",
        ),
    ],
    "main-upper": [
        ("capitalises", "def main():\n    print(input().capitalize())\n\n\nmain()", "WA"),
        ("never calls main", "def main():\n    print(input().upper())", "WA"),
    ],
    "print-sum-two-three": [
        ("prints the expression", "print('2 + 3')", "WA"),
        ("multiplies", "print(2 * 3)", "WA"),
    ],
    "main-hello": [
        ("never calls main", "def main():\n    print('Hello, main!')", "WA"),
        ("Hello, World", "def main():\n    print('Hello, World!')\n\n\nmain()", "WA"),
    ],
}


def call_id(pid: str) -> str:
    return f"mc-{pid}"


def stdin_id(pid: str) -> str:
    return f"mc_{pid.replace('-', '_')}"


def call_program(signature: str, body: str) -> str:
    """The whole program of a call-based problem's reference (or mutant): ``body`` as the
    method's body."""
    indented = "\n".join("        " + line for line in body.splitlines())
    return f"from typing import List\n\n\nclass Solution:\n    def {signature}:\n{indented}\n"


def call_record(pid, title, signature, statement, body, tests):
    name, _, rest = signature.partition("(")
    starter = f"class Solution:\n    def {signature}:\n        "
    reference = call_program(signature, body)
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
        "question_id": call_id(pid),
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
        "question_id": stdin_id(pid),
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
    records += [call_record(*item) for item in MORE_CALL]
    records += [stdin_record(*item) for item in MORE_STDIN]
    ids = [r["question_id"] for r in records]
    assert len(set(ids)) == len(ids), "duplicate problem id"
    return records


def build_mutants() -> list[dict]:
    """One record per mutant, in the problems' order: ``question_id``, ``what`` it gets wrong,
    the ``verdict`` it must get and its whole program, ``solution``."""
    problems = []
    for call, stdin in ((CALL, STDIN), (MORE_CALL, MORE_STDIN)):
        problems += [(call_id(pid), pid, partial(call_program, sig)) for pid, _, sig, *_ in call]
        problems += [(stdin_id(pid), pid, lambda code: code + "\n") for pid, *_ in stdin]
    pids = [pid for _, pid, _ in problems]
    assert sorted(MUTANTS) == sorted(pids), "every problem has mutants, and only problems do"
    short = [pid for pid in pids if len(MUTANTS[pid]) < 2]
    assert not short, f"fewer than 2 mutants: {short}"
    return [
        {"question_id": qid, "what": what, "verdict": verdict, "solution": program(code)}
        for qid, pid, program in problems
        for what, code, verdict in MUTANTS[pid]
    ]


if __name__ == "__main__":
    records = build()
    OUT.write_text("".join(json.dumps(r) + "\n" for r in records))
    print(f"{len(records)} problems -> {OUT}")
    mutants = build_mutants()
    MUTANTS_OUT.write_text("".join(json.dumps(r) + "\n" for r in mutants))
    print(f"{len(mutants)} mutants -> {MUTANTS_OUT}")
