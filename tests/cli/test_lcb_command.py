"""`mcevaluate lcb`: releases, date/platform/difficulty filters, a local dataset in LCB's
schema (compressed private tests), the hub path failing clearly offline."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from click.testing import CliRunner
from lcb_data import DATASET, write_jsonl

from evaluator import lcb_releases as lcb
from evaluator.cli import main


def _run(*args: str):
    return CliRunner().invoke(main, ["lcb", "--workers", "2", *args])


def _graded(result) -> dict:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([], 5),
        (["--release", "v1"], 2),
        (["--release", "release_v2"], 3),
        (["--release", "v5"], 4),
        (["--release", "v6"], 5),
        (["--release", "release_latest"], 5),
        (["--start-date", "2024-03-30", "--end-date", "2025-01-04"], 3),  # both inclusive
        (["--release", "v5", "--start-date", "2024-04-01"], 2),
        (["--platform", "atcoder"], 3),
        (["--platform", "AtCoder", "--platform", "leetcode", "--difficulty", "easy"], 1),
        (["--difficulty", "hard", "--release", "v5"], 1),
    ],
)
def test_lcb_selection_from_file_and_directory(lcb_file, lcb_dir, lcb_samples, args, expected):
    for dataset in (lcb_file, lcb_dir):
        result = _run("--dataset", str(dataset), "--samples", str(lcb_samples), "--json", *args)
        summary = _graded(result)
        assert summary["problems"] == expected, (dataset.name, args)
        assert summary["samples"] == 2 * expected
        assert summary["pass@1"] == 50.0
        assert summary["selection"]["release_by"] in (None, "shard files", "date window")


def test_lcb_release_by_shards_is_exact(lcb_dir, lcb_samples, tmp_path):
    """A problem dated inside v1's window but shipped in shard 2 belongs to v2, not v1."""
    late = json.loads(json.dumps(DATASET[0]))
    late["question_id"] = "abc301_z"
    late["contest_date"] = "2024-03-31T00:00:00"
    shard2 = lcb_dir / "test2.jsonl"
    shard2.write_text(shard2.read_text() + json.dumps(late) + "\n")
    result = _run("--dataset", str(lcb_dir), "--samples", str(lcb_samples), "--release", "v1")
    assert result.exit_code == 0, result.output
    assert "unknown problem(s) (not in the files of release_v1)" in result.output
    out = tmp_path / "r.json"
    result = _run(
        "--dataset", str(lcb_dir), "--samples", str(lcb_samples), "--release", "v1", "-o", str(out)
    )
    assert [r["question_id"] for r in json.loads(out.read_text())] == ["abc300_a", "lc_100"]


def test_lcb_writes_eval_all_with_compressed_tests(lcb_file, lcb_samples, tmp_path):
    out = tmp_path / "results.json"
    summary_path = tmp_path / "summary.json"
    result = _run(
        "--dataset",
        str(lcb_file),
        "--samples",
        str(lcb_samples),
        "--release",
        "v6",
        "-o",
        str(out),
        "--summary",
        str(summary_path),
        "--k",
        "1,2",
        "-q",
    )
    assert result.exit_code == 0, result.output
    assert "note: release_v6 selected by contest date" in result.output
    rows = json.loads(out.read_text())
    assert len(rows) == 5
    row = rows[0]
    assert row["graded_list"] == [True, False] and row["pass@1"] == 0.5
    assert len(row["details"][0]["tests"]) == 3  # 1 public + 2 compressed private
    assert row["contest_date"] == "2023-05-07T00:00:00" and row["platform"] == "atcoder"
    summary = json.loads(summary_path.read_text())
    assert summary["pass@2"] == 100.0
    assert summary["by_platform"]["atcoder"]["problems"] == 3
    assert summary["selection"]["release"] == "release_v6"
    assert summary["selection"]["end_date"] == "2025-04-30"
    assert summary["seed"] == 0
    assert not (tmp_path / "results.json.partial.jsonl").exists()


def test_lcb_without_dataset_fails_clearly_offline(lcb_samples, monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    result = _run("--samples", str(lcb_samples), "--release", "v6")
    assert result.exit_code == 1
    assert "livecodebench/code_generation_lite" in result.output
    assert "--dataset" in result.output
    assert "Traceback" not in result.output


def test_lcb_bad_options(lcb_file, lcb_samples):
    result = _run("--dataset", str(lcb_file), "--samples", str(lcb_samples), "--release", "v9")
    assert result.exit_code == 2 and "unknown release 'v9'" in result.output
    result = _run("--dataset", str(lcb_file), "--samples", str(lcb_samples), "--end-date", "2024")
    assert result.exit_code == 2 and "YYYY-MM-DD" in result.output
    result = _run(
        "--dataset", str(lcb_file), "--samples", str(lcb_samples), "--platform", "topcoder"
    )
    assert result.exit_code == 2


def test_lcb_missing_shard_and_bad_record(lcb_dir, lcb_samples, tmp_path):
    (lcb_dir / "test6.jsonl").unlink()
    result = _run("--dataset", str(lcb_dir), "--samples", str(lcb_samples), "--release", "v6")
    assert result.exit_code == 1 and "test6.jsonl" in result.output
    bad = write_jsonl(tmp_path / "bad.jsonl", [DATASET[0], {**DATASET[1], "contest_date": "soon"}])
    result = _run("--dataset", str(bad), "--samples", str(lcb_samples), "--release", "v6")
    assert result.exit_code == 1
    assert "bad.jsonl:2: field 'contest_date'" in result.output


def test_malicious_pickle_in_private_tests_is_refused(lcb_file, lcb_samples, tmp_path):
    import base64
    import pickle
    import zlib

    class Evil:
        def __reduce__(self):
            # eval, not print: Ray (tests/backends, earlier in a full run) replaces
            # builtins.print, which then pickles under Ray's name
            return (eval, ("print('pwned')",))

    record = dict(DATASET[0])
    record["private_test_cases"] = base64.b64encode(zlib.compress(pickle.dumps(Evil()))).decode()
    dataset = write_jsonl(tmp_path / "evil.jsonl", [record])
    result = _run("--dataset", str(dataset), "--samples", str(lcb_samples))
    assert result.exit_code == 1
    assert "evil.jsonl:1: field 'private_test_cases'" in result.output
    assert "refusing to load builtins.eval" in result.output
    assert "pwned" not in result.output


def test_release_table():
    assert lcb.parse_release("v6") is lcb.RELEASES["release_v6"]
    assert lcb.RELEASES["release_v5"].end == dt.date(2025, 1, 31)
    assert lcb.RELEASES["release_v5"].problems == 880
    assert lcb.RELEASES["release_v3"].shards == ("test.jsonl", "test2.jsonl", "test3.jsonl")
    assert all(r.start == dt.date(2023, 5, 1) for r in lcb.RELEASES.values())


def test_lcb_summary_names_the_shard_files_it_read(lcb_dir, lcb_samples, tmp_path):
    """The provenance lists each shard file of the release with its hash (v2: two files)."""
    import hashlib

    summary = tmp_path / "s.json"
    result = _run("--dataset", str(lcb_dir), "--samples", str(lcb_samples), "--release", "v2", "--summary", str(summary), "--label", "m")  # fmt: skip
    assert result.exit_code == 0, result.output
    provenance = json.loads(summary.read_text())["provenance"]
    shards = [lcb_dir / "test.jsonl", lcb_dir / "test2.jsonl"]
    assert [p["path"] for p in provenance["problems"]] == [str(s) for s in shards]
    assert [p["sha256"] for p in provenance["problems"]] == [
        hashlib.sha256(s.read_bytes()).hexdigest() for s in shards
    ]
    assert provenance["label"] == "m" and provenance["samples"]["path"] == str(lcb_samples)
