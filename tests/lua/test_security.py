"""Lua's security battery: os.execute, io.popen, files outside the run directory (read,
written, a file of its own moved there): each refused; files in its own directory work, as
in a plain run. Lua's standard library has no sockets, fork or exec of its own."""

from __future__ import annotations

from tests.languages.runtime_plain import needs_runtime, probe_answers

pytestmark = needs_runtime("lua")

LUA_PROBES = r"""
local function probe(what, act)
  local ran, ok = pcall(act)
  print(what .. " " .. ((ran and ok) and "done" or "refused")); io.stdout:flush()
end
probe("execute", function() return os.execute("/bin/true") == true end)
probe("execute_shell", function() return os.execute() == true end)
probe("popen", function() local p = io.popen("echo hi"); return p ~= nil and p:read("a") == "hi\n" end)
probe("popen_write", function() local p = io.popen("cat > mine2.txt", "w"); return p ~= nil and p:write("x") ~= nil and p:close() == true end)
probe("read_passwd", function() return io.open("/etc/passwd") ~= nil end)
probe("write_var_tmp", function() return io.open("/var/tmp/mcprobe", "w") ~= nil end)
probe("own_file", function() local f = io.open("mine.txt", "w"); return f ~= nil and f:write("ok") ~= nil and f:close() end)
probe("move_out", function() return os.rename("mine.txt", "/var/tmp/mcprobe-moved") == true end)
"""


def test_lua_reaches_nothing_past_the_program(languages_grader):
    refused = ["execute", "execute_shell", "popen", "popen_write", "read_passwd", "write_var_tmp"]
    expected = [f"{name} refused" for name in refused] + ["own_file done", "move_out refused"]
    result = probe_answers(languages_grader, "lua", LUA_PROBES, expected)
    assert result.verdict.value == "AC", result.message
