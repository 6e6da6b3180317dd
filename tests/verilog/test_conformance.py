"""Verilog testbenches built by iverilog and simulated by vvp plainly and in the sandbox agree
(verdict, stdout, exit status): every way to print (``$display``, ``$write``, ``$monitor``,
``$strobe``, formats), stdin read with ``$fscanf`` and ``$fgets``, every end
(``$finish``, ``$stop`` under ``-n``, ``$fatal``, ``$error`` going on, a simulation that
runs out of events), verilog-eval's testbench shape (SystemVerilog structs, a VCD dump in
the run directory, a ``final`` block's report), files in the run directory (``$fopen``/``$fdisplay``/``$readmemh``),
compile errors (syntax, no ``tb`` module), and limits: a clock with no ``$finish`` (TLE), a
huge memory (MLE), a flood of output. The plain run: ``tests/languages/runtime_plain.py``."""

from __future__ import annotations

from tests.languages.runtime_plain import SUM_INPUT, conformance_test, needs_runtime

pytestmark = needs_runtime("verilog")

ADDER = """module adder(input [7:0] a, b, output [8:0] s);
  assign s = a + b;
endmodule
"""

CASES = [
    (
        "display_forms",
        "module tb;\n  initial begin\n"
        '    $display("%d|%0d|%h|%b|%o|%s|%t", 42, 42, 255, 5, 8, "str", $time);\n'
        '    $write("no newline "); $write("then %0d\\n", 7);\n'
        '    $display("%5.2f %e", 3.14159, 1.5e10);\n  end\nendmodule',
        b"",
    ),
    (
        "adder_testbench",
        ADDER + "module tb;\n  reg [7:0] a, b; wire [8:0] s; integer i, errors = 0;\n"
        "  adder dut(a, b, s);\n  initial begin\n"
        "    for (i = 0; i < 50; i = i + 1) begin\n"
        "      a = i * 7; b = 255 - i; #1;\n"
        "      if (s !== a + b) errors = errors + 1;\n    end\n"
        '    $display("Mismatches: %0d in 50 samples", errors);\n    $finish;\n  end\nendmodule',
        b"",
    ),
    (
        "clocked_counter_monitor",
        "module tb;\n  reg clk = 0; reg [3:0] n = 0;\n  always #5 clk = ~clk;\n"
        "  always @(posedge clk) n <= n + 1;\n"
        '  initial begin $monitor("t=%0t n=%0d", $time, n); #60 $finish; end\nendmodule',
        b"",
    ),
    (
        "strobe_and_nonblocking",
        "module tb;\n  reg [3:0] x = 1;\n"
        '  initial begin x <= 2; $display("display %0d", x); $strobe("strobe %0d", x); end\n'
        "endmodule",
        b"",
    ),
    (
        "read_stdin_fscanf",
        "module tb;\n  integer n, i, a, b, r;\n  initial begin\n"
        '    r = $fscanf(32\'h8000_0000, "%d", n);\n'
        "    for (i = 0; i < n; i = i + 1) begin\n"
        '      r = $fscanf(32\'h8000_0000, "%d %d", a, b); $display("%0d", a + b);\n'
        "    end\n  end\nendmodule",
        SUM_INPUT,
    ),
    (
        "read_stdin_fgets",
        "module tb;\n  reg [8*64:1] line; integer r;\n  initial begin\n"
        "    r = $fgets(line, 32'h8000_0000);\n"
        '    while (r != 0) begin $write("%0s", line); r = $fgets(line, 32\'h8000_0000); end\n'
        "  end\nendmodule",
        SUM_INPUT,
    ),
    (
        "finish",
        'module tb; initial begin $display("x"); $finish; $display("y"); end endmodule',
        b"",
    ),
    ("stop_under_n", 'module tb; initial begin $display("x"); $stop; end endmodule', b""),
    ("fatal", 'module tb; initial begin $display("x"); $fatal(1, "bad"); end endmodule', b""),
    (
        "error_goes_on",
        'module tb; initial begin $error("soft"); $display("after"); end endmodule',
        b"",
    ),
    ("no_events_left", 'module tb; initial $display("once"); endmodule', b""),
    (
        "stderr_descriptor",
        'module tb; initial begin $fdisplay(32\'h8000_0002, "to stderr");'
        ' $display("to stdout"); end endmodule',
        b"",
    ),
    (
        "files_in_cwd",
        "module tb;\n  integer f; reg [7:0] mem [0:3];\n  initial begin\n"
        '    f = $fopen("m.hex", "w"); $fdisplay(f, "0a\\n0b\\n0c\\n0d"); $fclose(f);\n'
        '    $readmemh("m.hex", mem); $display("%0d %0d", mem[0], mem[3]);\n  end\nendmodule',
        b"",
    ),
    ("syntax_error", "module tb; initial begin $display(1) end endmodule", b""),
    ("no_tb_module", 'module top; initial $display("x"); endmodule', b""),
    ("clock_forever", "module tb; reg c = 0; always #1 c = ~c; endmodule", b""),
    (
        "huge_memory",
        "module tb;\n  reg [63:0] mem [0:(1<<26)-1]; integer i;\n"
        "  initial begin for (i = 0; i < (1<<26); i = i + 1) mem[i] = i; $display(mem[5]); end\n"
        "endmodule",
        b"",
    ),
    (
        "big_output",
        "module tb; integer i; initial for (i = 0; i < 50000; i = i + 1) $display(i); endmodule",
        b"",
    ),
    (
        "verilog_eval_shape",
        "module top_module(input a, b, output out);\n  assign out = a & b;\nendmodule\n"
        "module tb();\n  typedef struct packed { int errors; int clocks; } stats;\n  stats s1;\n"
        "  reg clk = 0; logic a, b; wire out;\n  initial forever #5 clk = ~clk;\n"
        '  initial begin $dumpfile("wave.vcd"); $dumpvars(1, clk, a, b, out); end\n'
        "  top_module dut(.a, .b, .out);\n"
        "  initial begin {a, b} = 0; repeat (40) @(posedge clk) {a, b} <= $random; #1 $finish; end\n"
        "  always @(posedge clk, negedge clk) begin s1.clocks++; if (out !== (a & b)) s1.errors++; end\n"
        '  final $display("Mismatches: %1d in %1d samples", s1.errors, s1.clocks);\nendmodule',
        b"",
    ),
    (
        "random_is_seeded",
        'module tb; integer s = 7; initial $display("%0d %0d", $random(s), $urandom(3)); endmodule',
        b"",
    ),
]

test_sandbox_agrees_with_a_plain_run = conformance_test("verilog", CASES)
