"""Ruby, run by the system's ruby as a judge runs it: ``ruby main.rb < input > output``.

No build: the source is staged as ``main.rb`` (a syntax error is the program's runtime
error: ruby exits 1 naming it, as in a plain run). The runtime is Debian's ``ruby`` (the
``/usr/bin/ruby`` link followed to ``ruby3.1``), executed in the sandbox as the child's one
exec (``Job.runtime``); its standard library and its default and bundled gems lie under
``/usr/lib`` (``/usr/lib/ruby``, ``/usr/lib/x86_64-linux-gnu/ruby``), which every program
may read. At start RubyGems also lists the gem specifications that Debian's packages add
in ``/usr/share/rubygems-integration`` (webrick, xmlrpc, ...) and ``gem install`` in
``/var/lib/gems``: the sandbox lets it read and list those, so those gems load as in a plain
run. ``system``, backticks, ``spawn``, ``fork``, ``IO.popen`` and
``exec`` fail as every process does."""

from __future__ import annotations

from .script import ScriptLanguage

__all__ = ["LANGUAGE", "Ruby"]


class Ruby(ScriptLanguage):
    name = "ruby"
    title = "Ruby"
    extensions = (".rb",)
    fence_tags = ("ruby", "rb")
    runtime_name = "ruby"
    runtime_reads = ("/usr/share/rubygems-integration", "/var/lib/gems")
    package = "ruby"
    script = "main.rb"
    version_argv = ("-e", 'print RUBY_VERSION, "p", RUBY_PATCHLEVEL')


LANGUAGE = Ruby()
