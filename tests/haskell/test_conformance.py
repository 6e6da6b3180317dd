"""Haskell programs built by ghc and run plainly and in the sandbox agree (verdict, stdout,
exit status): stdin by ``getLine``, ``getContents`` and ``ByteString``; ``print``,
``putStr``, ``printf`` and ``hPutStrLn stderr``; every exit path (``exitWith``, ``error``, a
failed pattern, ``head []``, a type error's CE); laziness and deep recursion on GHC's growing
stack; threads (``forkIO``, MVars); the libraries Debian's ghc ships (containers, array);
limits. The plain run: ``tests/languages/runtime_plain.py``."""

from __future__ import annotations

from tests.languages.runtime_plain import SUM_INPUT, conformance_test, needs_runtime

pytestmark = needs_runtime("haskell")

CASES = [
    (
        "get_line_and_read",
        "import Control.Monad\nmain :: IO ()\nmain = do\n  n <- readLn :: IO Int\n"
        "  replicateM_ n $ do\n    [a, b] <- map read . words <$> getLine :: IO [Int]\n    print (a + b)",
        SUM_INPUT,
    ),
    (
        "get_contents_lazy",
        "main :: IO ()\nmain = interact $ \\s -> unlines [show (product (map read (words l) :: [Integer])) | l <- tail (lines s)]",
        SUM_INPUT,
    ),
    (
        "bytestring",
        "import qualified Data.ByteString.Char8 as B\nimport Data.Maybe (mapMaybe)\n"
        "main :: IO ()\nmain = do\n  xs <- map fst . mapMaybe B.readInt . B.words <$> B.getContents\n"
        "  print (sum xs)",
        SUM_INPUT,
    ),
    (
        "print_forms",
        "import Text.Printf\nimport System.IO\nmain :: IO ()\nmain = do\n"
        '  putStr "a"; putStrLn "b"; print (1.5 :: Double); print [Just 1, Nothing]\n'
        '  printf "%05.1f|%-3s|%d\\n" (3.14159 :: Double) "x" (42 :: Int)\n'
        '  hPutStrLn stderr "to stderr"; print (2 ^ 100 :: Integer)',
        b"",
    ),
    (
        "containers_and_array",
        "import qualified Data.Map.Strict as M\nimport Data.Array\nmain :: IO ()\nmain = do\n"
        '  let m = M.fromListWith (+) [(c, 1 :: Int) | c <- "mississippi"]\n'
        "  print (M.toList m)\n  let a = listArray (0, 4) [10, 20, 30, 40, 50] :: Array Int Int\n"
        "  print (a ! 2, sum (elems a))",
        b"",
    ),
    (
        "exit_with",
        'import System.Exit\nmain :: IO ()\nmain = putStrLn "x" >> exitWith (ExitFailure 3)',
        b"",
    ),
    ("error_call", 'main :: IO ()\nmain = putStrLn "before" >> error "boom"', b""),
    ("head_of_empty", "main :: IO ()\nmain = print (head ([] :: [Int]))", b""),
    (
        "failed_pattern",
        "main :: IO ()\nmain = do\n  let Just x = (Nothing :: Maybe Int)\n  print x",
        b"",
    ),
    ("type_error", 'main :: IO ()\nmain = print (1 + "s")', b""),
    (
        "deep_recursion",
        "f :: Int -> Int\nf 0 = 0\nf n = 1 + f (n - 1)\nmain :: IO ()\nmain = print (f 1000000)",
        b"",
    ),
    (
        "threads",
        "import Control.Concurrent\nimport Control.Monad\nmain :: IO ()\nmain = do\n"
        "  vs <- forM [1 .. 4] $ \\i -> do { m <- newEmptyMVar; _ <- forkIO (putMVar m (i * i)); return m }\n"
        "  rs <- mapM takeMVar vs\n  print (sum rs :: Int)",
        b"",
    ),
    ("infinite_loop", "main :: IO ()\nmain = print (length [1 ..])", b""),
    (
        "memory_hog",
        "import Data.IORef\nmain :: IO ()\nmain = do\n  r <- newIORef []\n"
        "  let go n = modifyIORef' r (replicate 100000 n :) >> readIORef r >>= \\l -> print (sum (map length l)) >> go (n + 1)\n"
        "  go (0 :: Int)",
        b"",
    ),
    ("big_output", "main :: IO ()\nmain = mapM_ print [1 .. 100000 :: Int]", b""),
    (
        "write_file_in_cwd",
        'main :: IO ()\nmain = writeFile "x.txt" "hi" >> readFile "x.txt" >>= putStrLn',
        b"",
    ),
]

test_sandbox_agrees_with_a_plain_run = conformance_test("haskell", CASES)
