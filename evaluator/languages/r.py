"""R, run by R's own executable as ``Rscript main.R < input`` runs it: ``Rscript`` starts the
``R`` shell script, which sets R's variables and executes ``bin/exec/R --no-echo
--no-restore --file=main.R``; here that executable is the child's one exec, with the
variables the script sets (``R_HOME``, ``R_SHARE_DIR``, ``R_INCLUDE_DIR``, ``R_DOC_DIR``,
``R_ARCH``, ``LD_LIBRARY_PATH``, ``SED``: the job's ``program_environment``).

No build: the source is staged as ``main.R`` (a syntax error is the program's runtime error,
status 1, as in a plain run). The runtime is Debian's ``r-base-core``; it reads its library
and configuration (``/usr/lib/R``, under ``/usr/lib``; ``/etc/R``; ``/usr/share/R``). At
start and exit R itself asks its shell for ``uname -a`` and removes its session's temporary
directory with ``rm -Rf``: those ``system()`` calls fail in the sandbox (no process), R goes
on without them, and the run directory's private ``/tmp`` is emptied after each test anyway;
a program's own ``system()`` fails as every process does."""

from __future__ import annotations

import os

from evaluator.default_limits import DEFAULT_MEMORY_LIMIT

from .base import Build, ToolchainMissing
from .script import ScriptLanguage

__all__ = ["LANGUAGE", "R"]

R_HOME = "/usr/lib/R"
R_EXECUTABLE = f"{R_HOME}/bin/exec/R"
# our site profile: the system's, then a Sys.which that survives a failed popen
SITE_PROFILE = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "profiles", "r_site_profile.R"
)


class R(ScriptLanguage):
    name = "r"
    title = "R (Rscript)"
    extensions = (".r", ".R")
    fence_tags = ("r", "rscript")
    runtime_name = "R"
    runtime_reads = ("/usr/lib/R", "/usr/local/lib/R", "/etc/R", "/usr/share/R", SITE_PROFILE)
    package = "r-base-core"
    script = "main.R"
    open_files = 253  # R refuses to start with fewer than about 170 descriptors

    def runtime(self) -> str | None:
        super().runtime()  # raises, naming the package, where R is not installed
        if not os.access(R_EXECUTABLE, os.X_OK):  # an R not laid out as Debian's
            raise ToolchainMissing(f"{R_EXECUTABLE} is not installed: {self.title} runs "
                                   f"Debian's R (apt-get install {self.package})")  # fmt: skip
        return R_EXECUTABLE

    def version_command(self) -> list[str]:
        """The ``R`` script's ``--version`` (the executable alone needs R's variables)."""
        return [super().runtime() or "R", "--version"]

    def version_line(self, printed: str) -> str:
        """``R 4.2.2``, from ``R version 4.2.2 Patched (2022-11-10 r83330) -- ...``."""
        words = printed.split()
        return f"R {words[2]}" if len(words) > 2 else printed

    def argv(self, build: Build | None = None, memory_mb: int = DEFAULT_MEMORY_LIMIT) -> list[str]:
        return [R_EXECUTABLE, "--no-echo", "--no-restore", "--file={program}/" + self.script]

    def run_environment(self) -> dict[str, str]:
        return {
            "R_HOME": R_HOME,
            "R_SHARE_DIR": "/usr/share/R/share",
            "R_INCLUDE_DIR": "/usr/share/R/include",
            "R_DOC_DIR": "/usr/share/R/doc",
            "R_ARCH": "",
            "LD_LIBRARY_PATH": f"{R_HOME}/lib:/usr/lib/x86_64-linux-gnu",
            "SED": "/bin/sed",
            "R_PROFILE": SITE_PROFILE,
        }


LANGUAGE = R()
