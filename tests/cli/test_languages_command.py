"""``mcevaluate languages``: every language with its toolchain's version here, and a missing
toolchain said as missing with how to install it, never a traceback."""

from __future__ import annotations

from click.testing import CliRunner

from evaluator.cli import main
from evaluator.languages import get_language, languages


def test_every_language_is_listed_with_its_toolchain():
    result = CliRunner().invoke(main, ["languages"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    for name, language in languages().items():
        [line] = [line for line in lines if line.split()[0] == name]
        assert language.title in line and language.version() in line
    assert "missing" not in result.output  # CI installs every toolchain (setup.sh)


def test_a_missing_toolchain_says_how_to_install_it(monkeypatch):
    go = get_language("go")

    def not_installed() -> str:
        raise OSError(
            "go is not installed: Go (go build) needs it (Debian: apt-get install golang-go)"
        )

    monkeypatch.setattr(go, "version", not_installed)
    result = CliRunner().invoke(main, ["languages"])
    assert result.exit_code == 0, result.output
    [line] = [line for line in result.output.splitlines() if line.startswith("go ")]
    assert "missing: go is not installed" in line and "apt-get install golang-go" in line
    assert result.output.rstrip().endswith("toolchains missing (setup.sh installs them)")
