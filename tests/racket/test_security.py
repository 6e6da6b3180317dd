"""Racket's security battery: system, process, subprocess, files outside the run directory
(read, written, a file of its own moved there), sockets, a signal to its parent: each
refused; files in its own directory work, as in a plain run."""

from __future__ import annotations

from tests.languages.runtime_plain import needs_runtime, probe_answers

pytestmark = needs_runtime("racket")

RACKET_PROBES = r"""#lang racket
(define (probe what act)
  (define ok (with-handlers ([(lambda (e) #t) (lambda (e) #f)]) (act)))
  (printf "~a ~a\n" what (if ok "done" "refused"))
  (flush-output))
(probe "system" (lambda () (parameterize ([current-output-port (open-output-nowhere)]) (system "true"))))
(probe "system_star" (lambda () (system* "/bin/true")))
(probe "process" (lambda () (match-define (list o i pid e ctl) (process "echo hi")) (ctl 'wait) (equal? (read-line o) "hi")))
(probe "subprocess" (lambda () (define-values (p o i e) (subprocess #f #f #f "/bin/echo" "hi")) (subprocess-wait p) (equal? (read-line o) "hi")))
(probe "read_passwd" (lambda () (string? (file->string "/etc/passwd"))))
(probe "write_var_tmp" (lambda () (with-output-to-file "/var/tmp/mcprobe" (lambda () (display "x")) #:exists 'replace) #t))
(probe "tcp" (lambda () (tcp-close (tcp-listen 0 4 #t "127.0.0.1")) #t))
(probe "udp" (lambda () (udp-open-socket) #t))
(probe "own_file" (lambda () (with-output-to-file "mine.txt" (lambda () (display "ok")) #:exists 'replace) (equal? (file->string "mine.txt") "ok")))
(probe "move_out" (lambda () (rename-file-or-directory "mine.txt" "/var/tmp/mcprobe-moved") #t))
"""


def test_racket_reaches_nothing_past_the_program(languages_grader):
    refused = ["system", "system_star", "process", "subprocess", "read_passwd", "write_var_tmp",
               "tcp", "udp"]  # fmt: skip
    expected = [f"{name} refused" for name in refused] + ["own_file done", "move_out refused"]
    result = probe_answers(languages_grader, "racket", RACKET_PROBES, expected)
    assert result.verdict.value == "AC", result.message
