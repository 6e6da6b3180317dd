"""Haskell's security battery: System.Process, files outside the run directory (read,
written, a file of its own moved there), /proc, the network: each refused; threads and files
in its own directory work, as in a plain run."""

from __future__ import annotations

from tests.languages.runtime_plain import needs_runtime, probe_answers

pytestmark = needs_runtime("haskell")

HASKELL_PROBES = r"""
import Control.Exception
import System.Directory (renameFile)
import System.Process (callProcess, readProcess)
import Control.Concurrent

probe :: String -> IO Bool -> IO ()
probe what act = do
  r <- try act :: IO (Either SomeException Bool)
  putStrLn (what ++ " " ++ (if either (const False) id r then "done" else "refused"))

main :: IO ()
main = do
  probe "call_process" (callProcess "/bin/true" [] >> return True)
  probe "read_process" ((== "hi\n") <$> readProcess "/bin/echo" ["hi"] "")
  probe "read_passwd" ((> 0) . length <$> readFile "/etc/passwd")
  probe "write_var_tmp" (writeFile "/var/tmp/mcprobe" "x" >> return True)
  probe "proc_parent" ((>= 0) . length <$> readFile "/proc/1/cmdline")
  probe "thread" (do { m <- newEmptyMVar; _ <- forkIO (putMVar m True); takeMVar m })
  probe "own_file" (writeFile "mine.txt" "ok" >> (== "ok") <$> readFile "mine.txt")
  probe "move_out" (renameFile "mine.txt" "/var/tmp/mcprobe-moved" >> return True)
"""


def test_haskell_reaches_nothing_past_the_program(languages_grader):
    refused = ["call_process", "read_process", "read_passwd", "write_var_tmp", "proc_parent"]
    expected = [f"{name} refused" for name in refused]
    expected += ["thread done", "own_file done", "move_out refused"]
    result = probe_answers(languages_grader, "haskell", HASKELL_PROBES, expected)
    assert result.verdict.value == "AC", result.message
