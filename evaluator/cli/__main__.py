"""``python -m evaluator.cli``: the ``mcevaluate`` command line."""

from evaluator.cli import main

if __name__ == "__main__":
    main()
