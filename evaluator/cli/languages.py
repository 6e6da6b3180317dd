"""``mcevaluate languages``: the languages programs are graded in, as the registry has them,
each with its toolchain's version on this machine, or what is missing and how to install it."""

from __future__ import annotations

import click

from evaluator.languages import languages as known_languages

__all__ = ["languages"]


def toolchain(language) -> tuple[bool, str]:
    """Whether the language's toolchain is installed here, and its version line (or what
    is missing, naming how to install it)."""
    try:
        return True, language.version()
    except OSError as exc:
        return False, str(exc)
    except Exception as exc:  # noqa: BLE001 - a toolchain that runs but fails: say how
        return False, f"{language.title} does not run here: {exc}"


@click.command()
def languages() -> None:
    """List the languages: each one's name (for --language and a samples record's
    `language`), its code-fence tags and file extensions, and its toolchain here: the
    version, or `missing` with how to install it (its programs are then UNSUPPORTED)."""
    rows = list(known_languages().values())
    width = max(len(language.name) for language in rows)
    missing = 0
    for language in rows:
        installed, version = toolchain(language)
        missing += not installed
        state = version if installed else f"missing: {version}"
        tags = ", ".join(language.fence_tags)
        extensions = ", ".join(language.extensions)
        click.echo(f"{language.name:{width}}  {language.title} [{tags}; {extensions}]: {state}")
    if missing:
        click.echo(f"{missing} of {len(rows)} toolchains missing (setup.sh installs them)")
