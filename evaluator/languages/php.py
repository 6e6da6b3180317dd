"""PHP, run by the system's PHP CLI as a judge runs it: ``php main.php < input > output``.

No build: the source is staged as ``main.php`` (a parse error is the program's runtime
error: php exits 255 naming it, as in a plain run). The runtime is Debian's ``php-cli``
(``/usr/bin/php`` is a link through ``/etc/alternatives`` to ``php8.2``: followed),
executed in the sandbox as the child's one exec (``Job.runtime``); it reads its
configuration at start, ``/etc/php/8.2/cli/php.ini`` (``memory_limit = -1``: the judge's
limit is the only one), and OpenSSL's (``/usr/lib/ssl/openssl.cnf``, a link to
``/etc/ssl/openssl.cnf``): the sandbox lets it read those, and list ``/etc/php``: PHP finds the ``.ini`` files that
load Debian's shared extensions (ctype, iconv, posix, tokenizer, ..., under ``/usr/lib/php``)
by listing ``conf.d``, so they load as in a plain run. ``system``, ``exec``, ``shell_exec``,
backticks, ``popen``, ``proc_open``, ``pcntl_fork`` and ``pcntl_exec`` fail as every
process does."""

from __future__ import annotations

from .script import ScriptLanguage

__all__ = ["LANGUAGE", "PHP"]


class PHP(ScriptLanguage):
    name = "php"
    title = "PHP"
    extensions = (".php",)
    fence_tags = ("php",)
    runtime_name = "php"
    runtime_reads = ("/etc/php", "/etc/ssl/openssl.cnf")
    package = "php-cli"
    script = "main.php"
    version_argv = ("-r", "echo PHP_VERSION;")


LANGUAGE = PHP()
