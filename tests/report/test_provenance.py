"""Where a run comes from (#46 item 12): the summary records the working directory and the
absolute path of every file it names, the grader's git commit (read from the ``.git`` files,
no git program needed) with whether it had uncommitted changes, and the results file's own
hash; the report page shows them, and says whether the results file it reads is the one the
summary was written beside."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from browser import By, cells, phone
from report_cli import invoke

from evaluator.data import DEMO_PROBLEMS, DEMO_SAMPLES
from evaluator.provenance import PACKAGE_ROOT, grader_source, source_commit

SHA1 = "0123456789abcdef0123456789abcdef01234567"
OTHER = "89abcdef0123456789abcdef0123456789abcdef"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _git(*args: object, cwd: Path) -> str:
    done = subprocess.run(
        ["git", *map(str, args)], cwd=cwd, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_commit_is_read_from_the_git_files(tmp_path, monkeypatch):
    """A branch's loose ref, a packed ref, a detached HEAD and a worktree's ``.git`` file (its
    refs in the main checkout's ``commondir``), with no git program on PATH; no checkout, no
    commit."""
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no git program to ask
    main = tmp_path / "main"
    (main / ".git" / "refs" / "heads").mkdir(parents=True)
    (main / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    assert source_commit(main) is None  # a new repository: its branch has no commit yet
    (main / ".git" / "refs" / "heads" / "main").write_text(SHA1 + "\n")
    assert source_commit(main) == SHA1
    assert grader_source(main) == {"grader_commit": SHA1}  # dirty: unknown without git
    (main / ".git" / "HEAD").write_text("ref: refs/heads/packed\n")
    (main / ".git" / "packed-refs").write_text(
        f"# pack-refs with: peeled fully-peeled sorted\n{OTHER} refs/heads/packed\n"
    )
    assert source_commit(main) == OTHER
    (main / ".git" / "HEAD").write_text(SHA1 + "\n")  # detached
    assert source_commit(main) == SHA1

    worktree_git = main / ".git" / "worktrees" / "wt"
    worktree_git.mkdir(parents=True)
    (worktree_git / "HEAD").write_text("ref: refs/heads/packed\n")
    (worktree_git / "commondir").write_text("../..\n")
    worktree = tmp_path / "wt"
    worktree.mkdir()
    (worktree / ".git").write_text(f"gitdir: {worktree_git}\n")
    assert source_commit(worktree) == OTHER
    assert source_commit(tmp_path / "nothing") is None
    (worktree / ".git").write_text("gitdir: gone\n")
    assert source_commit(worktree) is None


@pytest.mark.skipif(shutil.which("git") is None, reason="needs the git program")
def test_dirty_flag_follows_the_package(tmp_path):
    """Clean after a commit; dirty when a tracked file of the package changes or a file is
    added to it; a change outside the package does not count."""
    root = tmp_path / "checkout"
    (root / "evaluator").mkdir(parents=True)
    (root / "evaluator" / "a.py").write_text("x = 1\n")
    (root / "README").write_text("readme\n")
    _git("init", "-q", "-b", "main", cwd=root)
    _git("add", ".", cwd=root)
    _git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one", cwd=root)
    head = _git("rev-parse", "HEAD", cwd=root)
    assert grader_source(root) == {"grader_commit": head, "grader_dirty": False}
    (root / "README").write_text("changed\n")
    assert grader_source(root)["grader_dirty"] is False
    (root / "evaluator" / "b.py").write_text("y = 2\n")
    assert grader_source(root)["grader_dirty"] is True
    (root / "evaluator" / "b.py").unlink()
    (root / "evaluator" / "a.py").write_text("x = 2\n")
    assert grader_source(root)["grader_dirty"] is True


def _graded(folder: Path) -> tuple[Path, Path, dict]:
    """The demo set graded with relative paths from ``folder`` (the working directory)."""
    problems, samples = folder / "problems.jsonl", folder / "samples.jsonl"
    shutil.copy(DEMO_PROBLEMS, problems)
    shutil.copy(DEMO_SAMPLES, samples)
    done = invoke(
        "grade", "--problems", "problems.jsonl", "--samples", "samples.jsonl",
        "-o", "results.json", "--summary", "summary.json", "-q", "--label", "m",
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    results, summary = folder / "results.json", folder / "summary.json"
    return results, summary, json.loads(summary.read_text())["provenance"]


def test_summary_records_where_the_run_comes_from(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    results, _, provenance = _graded(tmp_path)
    assert provenance["cwd"] == str(tmp_path)
    assert provenance["problems"] == [
        {
            "path": "problems.jsonl",
            "absolute": str(tmp_path / "problems.jsonl"),
            "bytes": (tmp_path / "problems.jsonl").stat().st_size,
            "sha256": _sha256(tmp_path / "problems.jsonl"),
        }
    ]
    assert provenance["samples"]["absolute"] == str(tmp_path / "samples.jsonl")
    # the results file the summary was written beside, byte for byte
    assert provenance["results"] == {
        "path": "results.json",
        "absolute": str(results),
        "bytes": results.stat().st_size,
        "sha256": _sha256(results),
    }
    # the grader's commit: this checkout's (tests run from one), as git itself says
    commit = source_commit(PACKAGE_ROOT)
    assert provenance.get("grader_commit") == commit
    if commit and shutil.which("git"):
        assert commit == _git("rev-parse", "HEAD", cwd=PACKAGE_ROOT)
        assert isinstance(provenance["grader_dirty"], bool)


def _provenance_rows(driver) -> dict[str, str]:
    driver.execute_script("document.getElementById('provenance-box').open = true")
    return {
        row.find_element(By.TAG_NAME, "th").text: row.find_element(By.TAG_NAME, "td").text
        for row in driver.find_elements(By.CSS_SELECTOR, "#provenance tr")
    }


def test_report_shows_cwd_paths_commit_and_results_hash(
    tmp_path, monkeypatch, driver, driver_without_js
):
    """At 1400 and 420 px and without JavaScript (the Run table is in the HTML): the working
    directory, each file's absolute path and hash, the grader's commit, the results file's
    hash and that it is the file the summary was written beside; a results file written
    again (the same results, other bytes) is said not to be that file."""
    monkeypatch.chdir(tmp_path)
    results, summary, provenance = _graded(tmp_path)
    page = tmp_path / "report.html"
    assert invoke("report", "results.json", "--summary", "summary.json", "-o", page).exit_code == 0
    monkeypatch.chdir(Path(__file__).parent)  # the page does not depend on where it is read
    for browser, width in ((driver, 1400), (driver, 420), (driver_without_js, 1400)):
        with phone(browser, width, 900):
            browser.get(page.resolve().as_uri())
            rows = _provenance_rows(browser)
            assert rows["working directory"] == str(tmp_path)
            assert rows["results"] == "results.json"
            assert rows["results file"] == (
                f"results.json (absolute path {results}; {results.stat().st_size:,} bytes, "
                f"sha256 {_sha256(results)})"
            )
            assert rows["summary's results file"] == "this file (the same sha256)"
            assert rows["problems"].startswith(
                f"problems.jsonl (absolute path {tmp_path / 'problems.jsonl'}; "
            )
            assert _sha256(tmp_path / "samples.jsonl") in rows["samples"]
            if provenance.get("grader_commit"):
                assert rows["grader commit"].startswith(provenance["grader_commit"] + " (")
            cell = browser.find_element(By.CSS_SELECTOR, "#provenance [data-field='results file']")
            assert cell.rect["x"] + cell.rect["width"] <= width  # wraps, never off the screen

    # the same results written again, in another order: accepted (the results digest is
    # order-free), and the page says the bytes are not those the summary recorded
    rows = json.loads(results.read_text())
    results.write_text(json.dumps(rows[::-1]))
    assert invoke("report", results, "--summary", summary, "-o", page).exit_code == 0
    driver.get(page.resolve().as_uri())
    text = _provenance_rows(driver)["summary's results file"]
    assert text.startswith("not this file byte for byte: results.json (absolute path ")
    assert provenance["results"]["sha256"] in text and _sha256(results) not in text
    assert _sha256(results) in cells(driver, "#provenance [data-field='results file']")[0]
    assert os.path.isabs(provenance["results"]["absolute"])
