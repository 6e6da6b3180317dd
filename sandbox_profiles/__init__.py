"""Sandbox profiles shipped with MicroCoder: one readable JSON file per profile.

``default.json`` is what untrusted programs run under; ``permissive.json`` keeps only the
resource limits. Copy one to write your own and pass its path as ``--profile``.
"""

from pathlib import Path

PROFILE_DIR = Path(__file__).parent
