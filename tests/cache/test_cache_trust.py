"""A restored cache entry cannot change the verdict of code it was not computed for.

docs/ci.md: who can write a cache a run restores, and what the seal does and does not
stop. The attacker here can write `.guardcheck/cache/` (restored by actions/cache).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import Result
from support.catalogue import run_cli
from support.projects import commit, copy_project, edit

from guardcheck.cache import ResultCache
from guardcheck.cache.store import SECRET_VARIABLE, UNSEALED, Seals
from guardcheck.model import (
    ChildOutcome,
    ExecutionPath,
    FileChange,
    Mutant,
    MutantResult,
    RunReport,
    Selection,
    Status,
    TestOutcome,
    TestResult,
    Where,
)
from guardcheck.options import RunOptions

ORIGINAL = "def f(x):\n    return x + 1\n"
MUTATED = "def f(x):\n    return x - 1\n"
TEST = "tests/test_m.py::test_a"
STRONG = "from pkg.m import f\ndef test_a():\n    assert f(1) == 2\n"
WEAK = "from pkg.m import f\ndef test_a():\n    f(1)\n"


def mutant() -> Mutant:
    change = FileChange("pkg/m.py", ORIGINAL, MUTATED, Where("pkg/m.py", 2))
    return Mutant("minus", "x + 1 -> x - 1", (change,))


def verdict(m: Mutant, status: Status) -> MutantResult:
    failed = status is Status.CAUGHT
    test = TestResult(TEST, TestOutcome.FAILED if failed else TestOutcome.PASSED, 0.1, "")
    return MutantResult(
        m, status, TEST if failed else "all 1 selected test(s) passed", (test,),
        (Selection(TEST, True, "executes pkg/m.py:2"),), ExecutionPath.FORK, 0.2,
        ChildOutcome(tests=(test,), evidence=True),
    )  # fmt: skip


def project(root: Path, test: str) -> RunOptions:
    for path, text in {"pkg/m.py": ORIGINAL, "tests/test_m.py": test}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return RunOptions(root=root, tests=("tests",))


def ran(options: RunOptions, status: Status) -> ResultCache:
    """A run of the project that reached `status` for the mutant, stored in its cache."""
    cache = ResultCache(options)
    cache.save(RunReport(str(options.root), [verdict(mutant(), status)]))
    return cache


def restored(options: RunOptions) -> MutantResult | None:
    return ResultCache(options).lookup([mutant()]).hits.get(0)


def rewrite(cache_folder: Path, kind: str, change, *, reseal: bool = False) -> None:
    """Rewrite every stored `kind` entry's JSON with `change(entry) -> entry`; `reseal`:
    seal it again with the public recipe (no secret), as a forger running our code would."""
    for pack in (cache_folder / "packs").glob("*.jsonl"):
        lines = []
        for line in pack.read_text().splitlines():
            found, key, text = line.split(" ", 2)
            if found == kind:
                entry = change(json.loads(text))
                if reseal:
                    entry["seal"] = UNSEALED
                key, text = entry["key"], json.dumps(entry, separators=(",", ":"))
                text = Seals(None).sealed(text) if reseal else text
            lines.append(f"{found} {key} {text}")
        pack.write_text("".join(f"{line}\n" for line in lines))


def caught_instead(entry: dict) -> dict:
    body = entry["body"]
    body["status"], body["reason"] = "caught", TEST
    return entry


@pytest.fixture
def strong_and_weak(tmp_path):
    """Code A (a test that catches the mutant) run and cached; code B (a weakened test)."""
    code_a = project(tmp_path / "a", STRONG)
    ran(code_a, Status.CAUGHT)
    code_b = project(tmp_path / "b", WEAK)
    return code_a, code_b


def test_an_entry_computed_for_code_a_is_not_replayed_for_code_b(strong_and_weak):
    code_a, code_b = strong_and_weak
    assert restored(code_a).status is Status.CAUGHT  # control: A's own entry is replayed
    shutil.copytree(code_a.output_dir / "cache", code_b.output_dir / "cache")
    assert restored(code_b) is None  # B's key differs: its mutant runs


def test_an_entry_moved_under_another_codes_key_is_refused(strong_and_weak, capsys):
    """A's "caught" entry renamed to B's key and resealed, as a forger running our code
    would: its recorded inputs are still A's files."""
    code_a, code_b = strong_and_weak
    b_key = ResultCache(code_b).key(mutant())
    shutil.copytree(code_a.output_dir / "cache", code_b.output_dir / "cache")
    rewrite(code_b.output_dir / "cache", "mutant", lambda e: {**e, "key": b_key}, reseal=True)
    assert restored(code_b) is None
    assert "computed from other inputs (files) than this run's" in capsys.readouterr().err


def test_a_survivor_rewritten_to_caught_under_its_key_is_discarded_with_a_warning(tmp_path, capsys):
    code_b = project(tmp_path, WEAK)
    ran(code_b, Status.SURVIVED)
    rewrite(code_b.output_dir / "cache", "mutant", caught_instead)
    assert restored(code_b) is None
    err = capsys.readouterr().err
    assert "discarded: its seal does not match its content" in err
    ran(code_b, Status.SURVIVED)  # the next run stores its own verdict again
    assert restored(code_b).status is Status.SURVIVED


def test_a_changed_test_id_list_is_discarded(tmp_path, capsys):
    """The ids a verdict's selection names are stored apart, under their own digest."""
    code_b = project(tmp_path, WEAK)
    ran(code_b, Status.SURVIVED)

    def other_test(entry: dict) -> dict:
        return {**entry, "body": ["tests/test_m.py::test_other"]}

    rewrite(code_b.output_dir / "cache", "tests", other_test, reseal=True)
    assert restored(code_b) is None
    assert "its ids do not hash to its name" in capsys.readouterr().err


def forge_caught(options: RunOptions) -> None:
    """A forger who reseals with the public checksum and keeps B's own inputs."""
    rewrite(options.output_dir / "cache", "mutant", caught_instead, reseal=True)


def test_without_a_secret_a_forger_who_reseals_is_believed(tmp_path, monkeypatch):
    """The documented limit (docs/ci.md): the seal is a checksum, not a signature."""
    monkeypatch.delenv(SECRET_VARIABLE, raising=False)
    code_b = project(tmp_path, WEAK)
    ran(code_b, Status.SURVIVED)
    forge_caught(code_b)
    assert restored(code_b).status is Status.CAUGHT


def test_with_a_secret_a_forger_without_it_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(SECRET_VARIABLE, "only-the-trusted-job-has-it")
    code_b = project(tmp_path, WEAK)
    ran(code_b, Status.SURVIVED)
    assert restored(code_b).status is Status.SURVIVED  # control: its own entries are read
    forge_caught(code_b)
    assert restored(code_b) is None
    assert f"not sealed with {SECRET_VARIABLE} (sealed sha256)" in capsys.readouterr().err


def test_entries_sealed_with_a_secret_are_not_believed_by_a_run_without_it(
    tmp_path, monkeypatch, capsys
):
    """A forger could label any entry HMAC: a run that cannot check the label refuses it."""
    code_b = project(tmp_path, WEAK)
    monkeypatch.setenv(SECRET_VARIABLE, "s3cret")
    ran(code_b, Status.SURVIVED)
    monkeypatch.delenv(SECRET_VARIABLE)
    assert restored(code_b) is None
    assert f"sealed with a {SECRET_VARIABLE} this run does not have" in capsys.readouterr().err


RESTORED = (".guardcheck/cache", ".guardcheck/.gitignore")


def ungated_reset(done: Result) -> str:
    """The verdict column of the ladder's `ungated-reset` row."""
    found = re.search(r"^\[\s*\d+/\d+\] (\S+)\s+ungated-reset", done.stdout, re.MULTILINE)
    assert found, done.stdout + done.stderr
    return found[1]


@pytest.mark.slow
def test_real_runs_a_cache_of_strong_tests_does_not_vouch_for_weakened_ones(tmp_path, monkeypatch):
    """Two real runs of the ladder project: A's cache restored into B (a weakened test)
    replays nothing of the changed verdict; B's survivor, rewritten to caught, is refused."""
    monkeypatch.delenv(SECRET_VARIABLE, raising=False)
    code_a = commit(copy_project(tmp_path / "a", "ladder", "ladder-run"))
    assert run_cli(code_a, "run").exit_code == 0
    code_b = commit(copy_project(tmp_path / "b", "ladder", "ladder-run"))
    edit(code_b / "tests/test_ladder.py", "assert gate.record_success(10, 10) == 1", "pass")
    for path in RESTORED:  # what docs/ci.md's actions/cache step restores
        copy = shutil.copytree if (code_a / path).is_dir() else shutil.copy
        copy(code_a / path, code_b / path)

    restored_into_b = run_cli(code_b, "run")
    assert ungated_reset(restored_into_b) == "survived"
    assert restored_into_b.exit_code == 1

    for kind in ("mutant", "dependency"):
        rewrite(code_b / ".guardcheck" / "cache", kind, caught_instead)
    tampered = run_cli(code_b, "run")
    assert ungated_reset(tampered) == "survived"
    assert "its seal does not match its content" in tampered.stderr
    assert tampered.exit_code == 1
