"""OCaml's security battery: ``Sys.command``, files outside the run directory (read, written,
a file of its own moved there), ``/proc``: each refused; files in its own directory work, as
in a plain run. The toplevel's ``#load`` of the ``Unix`` library (``fork``, ``execv``,
sockets) is a directive a program may write: its calls fail too."""

from __future__ import annotations

from tests.languages.runtime_plain import needs_runtime, probe_answers

pytestmark = needs_runtime("ocaml")

OCAML_PROBES = r"""
#load "unix.cma";;
let probe what act =
  let ok = try act () with _ -> false in
  Printf.printf "%s %s\n%!" what (if ok then "done" else "refused")
let () =
  probe "command" (fun () -> Sys.command "true" = 0);
  probe "read_passwd" (fun () -> let ic = open_in "/etc/passwd" in close_in ic; true);
  probe "write_var_tmp" (fun () -> let oc = open_out "/var/tmp/mcprobe" in close_out oc; true);
  probe "proc_parent" (fun () -> let ic = open_in "/proc/1/cmdline" in close_in ic; true);
  probe "fork" (fun () -> match Unix.fork () with 0 -> exit 0 | _ -> true);
  probe "create_process" (fun () -> let p = Unix.create_process "/bin/true" [|"true"|] Unix.stdin Unix.stdout Unix.stderr in ignore (Unix.waitpid [] p); true);
  probe "socket" (fun () -> let s = Unix.socket Unix.PF_INET Unix.SOCK_STREAM 0 in Unix.close s; true);
  probe "own_file" (fun () -> let oc = open_out "mine.txt" in output_string oc "ok"; close_out oc; true);
  probe "move_out" (fun () -> Sys.rename "mine.txt" "/var/tmp/mcprobe-moved"; true)
"""


def test_ocaml_reaches_nothing_past_the_program(languages_grader):
    refused = ["command", "read_passwd", "write_var_tmp", "proc_parent", "fork",
               "create_process", "socket"]  # fmt: skip
    expected = [f"{name} refused" for name in refused] + ["own_file done", "move_out refused"]
    result = probe_answers(languages_grader, "ocaml", OCAML_PROBES, expected)
    assert result.verdict.value == "AC", result.message
