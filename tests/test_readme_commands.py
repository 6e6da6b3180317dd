"""README's first two commands are what a newcomer types and what CI runs (``.ci/run`` reads
them with tests/readme_commands.py): set-up plus the main job, then the tests."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.readme_commands import README, readme_commands

ROOT = README.parent


def test_the_first_command_sets_up_and_runs_the_demo_the_second_runs_the_tests():
    commands = readme_commands()
    assert commands["setup"].startswith("./setup.sh")
    assert commands["setup"].endswith("mcevaluate demo")
    assert commands["test"].startswith("python -m pytest")


def test_ci_runs_readmes_commands_not_a_copy():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "tests/readme_commands.py setup" in ci and "tests/readme_commands.py test" in ci
    assert "pip install" not in ci  # every install is setup.sh's
    assert "MICROCODER_FORBID_SKIPS=1" in ci


def test_setup_script_needs_no_sudo_as_root(tmp_path):
    """The root branch of setup.sh's ``as_root`` runs the command itself: with a PATH that has
    no sudo at all, it still runs (here ``true``) as root, and as a user it says what to do."""
    script = (ROOT / "setup.sh").read_text()
    assert os.access(ROOT / "setup.sh", os.X_OK)
    start = script.index("as_root() {")
    function = script[start : script.index("\n}\n", start) + 3]
    bare_path = tmp_path / "bin"
    bare_path.mkdir()
    for tool in ("id",):
        (bare_path / tool).symlink_to(subprocess.check_output(["which", tool], text=True).strip())
    run = subprocess.run(
        ["/bin/bash", "-c", function + "as_root true && echo ran"],
        env={"PATH": str(bare_path)},
        capture_output=True,
        text=True,
    )
    if os.geteuid() == 0:
        assert run.returncode == 0 and run.stdout.strip() == "ran", run.stderr
    else:
        assert "needs root" in run.stderr or run.returncode == 0


def test_skipped_tests_name_their_extra(monkeypatch):
    """A module under a directory whose extra is missing gets one line naming the extra and
    how to install it; the longest matching entry decides; other modules are not touched."""
    from tests import extras

    monkeypatch.setitem(extras.NEEDS, "sandbox", ("ray", ("no_such_module_xyz",)))
    monkeypatch.setitem(extras.NEEDS, "sandbox/test_pool.py", ("ray", ("os",)))
    reason = extras.missing_extra(ROOT / "tests" / "sandbox" / "test_leaks.py")
    assert reason == ('needs the ray extra (no_such_module_xyz missing): pip install -e ".[ray]"')
    assert extras.missing_extra(ROOT / "tests" / "sandbox" / "test_pool.py") is None
    assert extras.missing_extra(ROOT / "tests" / "judges" / "test_exact.py") is None
    assert extras.missing_extra(Path("/elsewhere/test_x.py")) is None
