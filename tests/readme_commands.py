"""README's first two commands, read from README.md: ``setup`` (the set-up line, which ends by
running the main job) and ``test`` (the test command). ``.ci/run`` runs exactly these, so the
README and CI cannot drift apart; ``tests/test_readme_commands.py`` holds their shape.

``python tests/readme_commands.py setup`` prints the set-up line."""

from __future__ import annotations

import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_commands(readme: Path = README) -> dict[str, str]:
    """The first fenced ``bash`` block of ``readme``: exactly two commands, set-up and test."""
    text = readme.read_text(encoding="utf-8")
    found = re.search(r"```bash\n(.*?)```", text, flags=re.S)
    if found is None:
        raise SystemExit(f"{readme}: no ```bash block")
    lines = [line for line in found.group(1).splitlines() if line.strip()]
    if len(lines) != 2:
        raise SystemExit(f"{readme}: the first bash block has {len(lines)} commands, not 2")
    return {"setup": lines[0], "test": lines[1]}


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in ("setup", "test"):
        raise SystemExit("usage: python tests/readme_commands.py setup|test")
    print(readme_commands()[sys.argv[1]])
