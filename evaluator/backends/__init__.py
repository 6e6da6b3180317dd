"""Other places to grade than this process's sandbox pool.

:mod:`evaluator.backends.ray_backend` spreads grading over a Ray cluster (optional extra
``ray``: ``pip install "microcoder[ray]"``). Ray is imported only when that module is.
"""
