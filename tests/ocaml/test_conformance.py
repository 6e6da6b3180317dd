"""OCaml programs run by the ``ocaml`` toplevel plainly and in the sandbox agree (verdict,
stdout, exit status): stdin by ``Scanf``, ``read_line`` and ``In_channel``-free slurping;
``Printf``, ``print_*`` and ``Buffer``; every exit path (``exit`` with a status, an uncaught
exception's 2, ``assert false``, a type error after phrases that ran, a syntax error); deep
recursion and a stack overflow; ``Hashtbl``, ``List``, ``Array``; limits. The plain run:
``tests/languages/runtime_plain.py``."""

from __future__ import annotations

from tests.languages.runtime_plain import SUM_INPUT, conformance_test, needs_runtime

pytestmark = needs_runtime("ocaml")

CASES = [
    (
        "scanf_numbers",
        'let () = let n = Scanf.scanf " %d" (fun x -> x) in\n'
        '  for _ = 1 to n do Scanf.scanf " %d %d" (fun a b -> Printf.printf "%d\\n" (a + b)) done',
        SUM_INPUT,
    ),
    (
        "read_line",
        "let () = let n = int_of_string (String.trim (read_line ())) in\n"
        "  for _ = 1 to n do\n"
        "    match String.split_on_char ' ' (read_line ()) with\n"
        "    | [a; b] -> print_endline (string_of_int (int_of_string a * int_of_string b))\n"
        '    | _ -> failwith "bad line"\n  done',
        SUM_INPUT,
    ),
    (
        "slurp_until_eof",
        "let () =\n  let b = Buffer.create 16 in\n"
        "  (try while true do Buffer.add_channel b stdin 1 done with End_of_file -> ());\n"
        "  let words = String.split_on_char '\\n' (Buffer.contents b) in\n"
        '  Printf.printf "%d lines\\n" (List.length words)',
        SUM_INPUT,
    ),
    (
        "print_forms",
        "let () = print_string \"a\"; print_int 1; print_newline (); print_float 1.5; print_char '\\n';\n"
        '  Printf.printf "%05.1f|%-3s|%x\\n" 3.14159 "x" 255; prerr_endline "to stderr";\n'
        '  Printf.printf "%s\\n" (String.concat "," (List.map string_of_int (List.sort compare [3; 1; 2])))',
        b"",
    ),
    (
        "stdlib",
        'let () = let h = Hashtbl.create 8 in Hashtbl.replace h "k" 42;\n'
        "  let a = Array.init 5 (fun i -> i * i) in\n"
        '  Printf.printf "%d %d %d\\n" (Hashtbl.find h "k") (Array.fold_left (+) 0 a) (max_int land 255)',
        b"",
    ),
    ("exit_status", 'let () = print_endline "x"; exit 3', b""),
    ("uncaught_exception", 'let () = print_endline "before"; raise Not_found', b""),
    ("assert_false", 'let () = print_endline "x"; assert false', b""),
    ("type_error_after_output", 'let () = print_endline "ran"\nlet x : int = "s"', b""),
    ("syntax_error", "let x = (1 +", b""),
    (
        "deep_recursion",
        'let rec f n = if n = 0 then 0 else 1 + f (n - 1)\nlet () = Printf.printf "%d\\n" (f 100000)',
        b"",
    ),
    ("stack_overflow", 'let rec f n = 1 + f (n + 1)\nlet () = Printf.printf "%d\\n" (f 0)', b""),
    ("infinite_loop", "let () = while true do () done", b""),
    (
        "memory_hog",
        "let () = let l = ref [] in while true do l := Array.make 1_000_000 1 :: !l done",
        b"",
    ),
    ("big_output", 'let () = for i = 1 to 100000 do Printf.printf "%d\\n" i done', b""),
    (
        "write_file_in_cwd",
        'let () = let oc = open_out "x.txt" in output_string oc "hi"; close_out oc;\n'
        '  let ic = open_in "x.txt" in print_endline (input_line ic)',
        b"",
    ),
]

test_sandbox_agrees_with_a_plain_run = conformance_test("ocaml", CASES)
