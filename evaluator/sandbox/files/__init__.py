"""The files the sandbox handles, one module a job: memfd I/O (:mod:`.memfd`), a test's
files in the run directory (:mod:`.run_files`), what a program's files hold (:mod:`.sizes`),
emptying a directory (:mod:`.clearing`) and putting back its own attributes (:mod:`.marks`),
over one walk no tree a program makes defeats (:mod:`.walk`). Importing this package
imports none of them: the fork template imports only the one it needs."""
