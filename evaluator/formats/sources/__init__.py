"""The source readers: one module per source (a dataset, or a shape of record one ships in),
each defining its ``FORMAT`` (:class:`~evaluator.formats.registry.Format`: how its records
are recognised and read, by the source's own grading rule).

The registry (:func:`~evaluator.formats.registry.formats`) finds every module here that
defines ``FORMAT``; nothing else lists them. A source reader imports the shared machinery
beside this package (:mod:`evaluator.formats`: fields, errors, limits, test lists, the rules
and decoders several sources share in :mod:`evaluator.formats.source_rules` and
:mod:`evaluator.formats.assert_lists`), never another source reader
(``tests/test_layering.py`` holds it).
"""
