"""Issue 8's cases A2, A4, 9, 12 and 13 end to end.

Real `python -m guardcheck` processes on committed copies of fixture projects;
each verdict is checked against the mutant applied by hand to another copy and
the whole suite run there with plain pytest, and the project must be
byte-identical afterwards.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.projects import commit, copy_project, edit, git_status, write_files
from support.verdicts import failing_by_hand, guardcheck_run, tracked_bytes

pytestmark = pytest.mark.slow

CORE = "pkg/core.py"
# entry id -> (find, replace) as its catalogue entry makes it (mutations/core.toml)
IMPORT_TIME = {
    "cube": ("x**2", "x**3"),
    "table-triples": ("n * 2", "n * 3"),
    "wrong-case": ("(3, 9)", "(3, 10)"),
}


def guardcheck(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "guardcheck", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def import_time(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """One run of the importtime project's entries, and the tree before and after."""
    folder = tmp_path_factory.mktemp("importtime")
    root = copy_project(folder / "project", "importtime", git=True)
    before = tracked_bytes(root)
    done, mutants = guardcheck_run(root, folder / "r.json")
    return {"root": root, "done": done, "mutants": mutants, "before": before}


@pytest.mark.parametrize("entry", sorted(IMPORT_TIME))
def test_work_done_at_import_or_collection_is_caught_in_a_fresh_interpreter(import_time, entry):
    """Regression (issue 8 §A4): a code swap left the cache warmed at import, the table
    built at import and the parametrize values built at collection as the original
    code made them, so these mutants survived "provably active"."""
    root = import_time["root"]
    killers = failing_by_hand(root, CORE, *IMPORT_TIME[entry])
    assert killers  # by hand, each mutant fails a test
    fields = import_time["mutants"][entry]["guardcheck"]
    assert fields["verdict"] == "caught", fields["reason"]
    assert any(fields["reason"].startswith(f"{k}: ") for k in killers), fields["reason"]
    assert fields["executionPath"] == "subprocess"
    assert fields["executionPathReason"].startswith(f"{CORE}: ")
    assert fields["executionPathReason"].endswith(
        "ran at import or collection time (its results would outlive a code swap)"
    )
    assert tracked_bytes(root) == import_time["before"]
    assert git_status(root) == ""


def test_a_mutant_that_changes_a_parametrize_id_is_caught_under_its_new_id(tmp_path):
    """Regression (issue 8 §A4, found with it): the selected id `test_square[3-9]` was not
    collected with the mutant, never ran, and the mutant survived; by hand the new
    `test_square[3-10]` fails. Issue 24: it runs in the old id's place, and its kill is
    confirmed by the function's old ids passing without the mutant."""
    root = copy_project(tmp_path / "project", "importtime")
    edit(root / "tests/test_core.py", ', ids=["two", "three"]', "")
    commit(root)
    assert failing_by_hand(root, CORE, "(3, 9)", "(3, 10)") == [
        "tests/test_core.py::test_square[3-10]"
    ]
    done, mutants = guardcheck_run(root, tmp_path / "r.json", "--only", "wrong-case")
    fields = mutants["wrong-case"]["guardcheck"]
    assert fields["verdict"] == "caught", fields["reason"]
    assert fields["reason"].startswith("tests/test_core.py::test_square[3-10]: ")
    assert done.returncode == 0


def test_a_helper_run_collecting_one_test_file_runs_that_files_tests_and_its_callers(tmp_path):
    """Issue 22 (speed): a function that built one file's parametrize list sent its mutants
    to a fresh interpreter running every test of the suite. The package is imported by a
    conftest.py here, so only tests/test_core.py's collection runs `cases`: its tests run
    (and those that call it), not tests/test_other.py's, and the verdict is the one by hand."""
    root = copy_project(tmp_path / "project", "importtime")
    write_files(
        root,
        {
            "tests/conftest.py": "import pkg.core  # imported before any test file\n",
            "tests/test_other.py": (
                "from pkg import core\n\n\ndef test_square_elsewhere():\n"
                "    assert core.square(5) == 25\n"
            ),
        },
    )
    commit(root)
    killers = failing_by_hand(root, CORE, "(3, 9)", "(3, 10)")
    assert killers == ["tests/test_core.py::test_square[three]"]
    done, mutants = guardcheck_run(root, tmp_path / "r.json", "--only", "wrong-case")
    fields = mutants["wrong-case"]["guardcheck"]
    assert fields["verdict"] == "caught", fields["reason"]
    assert fields["reason"].startswith(f"{killers[0]}: ")
    assert fields["executionPath"] == "subprocess"
    assert fields["executionPathReason"] == (
        f"{CORE}: cases ran while pytest collected tests/test_core.py "
        "(its results would outlive a code swap)"
    )
    selected = {s["test"] for s in fields["selection"] if s["selected"]}
    assert selected == {
        "tests/test_core.py::test_cached_values",
        "tests/test_core.py::test_table",
        "tests/test_core.py::test_square[two]",
        "tests/test_core.py::test_square[three]",
    }
    assert done.returncode == 0


UNITS = {
    "pkg/units.py": (
        "def parse(text):\n"
        "    if text.endswith('km'):\n"
        "        return int(text[:-2]) * 1000\n"
        "    return int(text)\n"
    ),
    "tests/test_units.py": (
        "import pytest\n\nfrom pkg.units import parse\n\n"
        "CASES = [(parse('3'), 3)]  # collection parses a bare number only\n\n\n"
        "@pytest.mark.parametrize(('value', 'expected'), CASES)\n"
        "def test_bare(value, expected):\n    assert value == expected\n\n\n"
        "def test_km():\n    assert parse('2km') == 2000\n"
    ),
    "mutations/units.toml": (
        '[[mutation]]\nid = "km-factor"\nsummary = "A kilometre is 100 metres."\n'
        'file = "pkg/units.py"\nscope = "parse"\nfind = "int(text[:-2]) * 1000"\n'
        'replace = "int(text[:-2]) * 100"\n\n'
        '[[mutation]]\nid = "bare-plus-one"\nsummary = "A bare number gains one."\n'
        'file = "pkg/units.py"\nscope = "parse"\nfind = "int(text)"\n'
        'replace = "int(text) + 1"\n'
    ),
}


def test_a_statement_collection_never_reached_takes_the_fork_path(tmp_path):
    """Issue 22 (speed): every mutant of a function that ran while pytest collected went
    to a fresh interpreter, even in a branch collection never took (isodate: 164 of 576
    mutants, 70% of the worker time). A statement that did not run then cannot have
    changed what collection computed: that mutant forks; the one collection ran stays
    fresh. Both verdicts are the ones by hand."""
    root = copy_project(tmp_path / "project", "importtime")
    write_files(root, UNITS)
    commit(root)
    assert failing_by_hand(root, "pkg/units.py", "* 1000", "* 100") == [
        "tests/test_units.py::test_km"
    ]
    assert failing_by_hand(root, "pkg/units.py", "return int(text)", "return int(text) + 1") == [
        "tests/test_units.py::test_bare[4-3]"
    ]
    done, mutants = guardcheck_run(root, tmp_path / "r.json")
    km = mutants["km-factor"]["guardcheck"]
    assert (km["verdict"], km["executionPath"]) == ("caught", "fork"), km["reason"]
    assert km["reason"].startswith("tests/test_units.py::test_km: ")
    bare = mutants["bare-plus-one"]["guardcheck"]
    assert (bare["verdict"], bare["executionPath"]) == ("caught", "subprocess"), bare["reason"]
    # (the window that imported pkg.units is no file's alone: "import or collection")
    assert bare["executionPathReason"].startswith("pkg/units.py: parse ran at import or ")
    assert done.returncode == 0, done.stdout + done.stderr


SIGN = {
    "pkg/sign.py": "def sign(x):\n    if x < 0:\n        return -1\n    return x * 2\n",
    "tests/test_sign.py": (
        "from pkg.sign import sign\n\n\n"
        "def test_negative():\n    assert sign(-5) == -1\n\n\n"
        "def test_positive():\n    assert sign(2) == 4\n"
    ),
    "mutations/verdicts.toml": (
        '[[mutation]]\nid = "insert-mid"\nsummary = "A statement inserted mid-body."\n'
        'file = "pkg/sign.py"\nscope = "sign"\nfind = "return x * 2"\n'
        'replace = "x = x + 1\\nreturn x * 2"\n\n'
        '[[mutation]]\nid = "insert-top"\nsummary = "A statement inserted at the top."\n'
        'file = "pkg/sign.py"\nscope = "sign"\nfind = "if x < 0:\\n    return -1"\n'
        'replace = "x = x + 1\\nif x < 0:\\n    return -1"\n'
    ),
}
# entry id -> the same insertion, as written by hand
INSERTS = {
    "insert-mid": ("    return x * 2", "    x = x + 1\n    return x * 2"),
    "insert-top": ("    if x < 0", "    x = x + 1\n    if x < 0"),
}


def test_an_inserted_statement_selects_the_tests_around_it_mid_body_and_at_the_top(tmp_path):
    """Regression (issue 8 §A2): an insertion was attributed to the line before it, so
    mid-body only test_negative was selected (false survived) and at the top of the
    body nothing was (false no-coverage); by hand test_positive fails."""
    root = copy_project(tmp_path / "project", "verdicts")
    write_files(root, SIGN)
    commit(root)
    before = tracked_bytes(root)
    done, mutants = guardcheck_run(root, tmp_path / "r.json")
    for entry, (old, new) in INSERTS.items():
        assert failing_by_hand(root, "pkg/sign.py", old, new) == [
            "tests/test_sign.py::test_positive"
        ]
        fields = mutants[entry]["guardcheck"]
        assert fields["verdict"] == "caught", (entry, fields["reason"])
        assert fields["reason"].startswith("tests/test_sign.py::test_positive"), entry
        selected = {s["test"] for s in fields["selection"] if s["selected"]}
        assert "tests/test_sign.py::test_positive" in selected, entry
    assert done.returncode == 0, done.stdout + done.stderr
    assert tracked_bytes(root) == before


EXITING_TRANSFORMS = {
    "tools/__init__.py": "",
    "tools/exiting.py": (
        "import sys\n\nimport libcst\n\n\n"
        "class ExitsWhileEditing(libcst.CSTTransformer):\n"
        "    def leave_Module(self, original_node, updated_node):\n"
        "        sys.exit(0)\n"
    ),
}


@pytest.mark.parametrize("transform", ["sys:exit", "os:abort", "tools.exiting:ExitsWhileEditing"])
@pytest.mark.parametrize("command", ["check", "run"])
def test_a_transform_that_exits_or_aborts_is_exit_2_naming_the_entry(tmp_path, transform, command):
    """Regression (issue 8 §C9): `transform = "sys:exit"` made `check` and `run` exit 0
    with no output, next to a surviving entry: a false pass."""
    root = copy_project(tmp_path / "project", "ladder")
    write_files(root, EXITING_TRANSFORMS)
    with (root / "mutations/ladder.toml").open("a", encoding="utf-8") as catalogue:
        catalogue.write(
            '\n[[mutation]]\nid = "exits"\nsummary = "Its transform exits."\n'
            f'file = "app/ladder.py"\ntransform = "{transform}"\n'
        )
    commit(root)
    before = tracked_bytes(root)
    done = guardcheck(root, command)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "mutations/ladder.toml:11: exits: transform" in done.stdout + done.stderr
    assert tracked_bytes(root) == before
    assert git_status(root) == ""


BOM = b"\xef\xbb\xbf"


def test_a_target_file_with_a_utf8_bom_is_mutated_applied_and_reverted_keeping_it(tmp_path):
    """Regression (issue 8 §C12): every entry on a file starting with a BOM was
    "unviable: U+FEFF"."""
    root = copy_project(tmp_path / "project", "ladder")
    target = root / "app/ladder.py"
    original = BOM + target.read_bytes()
    target.write_bytes(original)
    commit(root)
    assert failing_by_hand(root, "app/ladder.py", "min(base * multiplier, CAP)", "min(base, CAP)")
    done, mutants = guardcheck_run(root, tmp_path / "r.json")
    assert done.returncode == 0, done.stdout + done.stderr
    fields = mutants["flat-cooldown"]["guardcheck"]
    assert fields["verdict"] == "caught", fields["reason"]
    assert fields["reason"].startswith("tests/test_ladder.py::test_ladder_escalates")
    assert target.read_bytes() == original
    applied = guardcheck(root, "apply", "flat-cooldown")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    written = target.read_bytes()
    assert written.startswith(BOM)
    assert written.decode("utf-8-sig").count("return min(base, CAP)") == 1
    reverted = guardcheck(root, "apply", "--revert", "flat-cooldown")
    assert reverted.returncode == 0, reverted.stdout + reverted.stderr
    assert target.read_bytes() == original


def generated_module(lines: int) -> str:
    """`lines` lines: filler functions, then `total` (the mutation target) at the very end."""
    fillers = [f"def filler_{n}(v):\n    return v - {n}\n\n\n" for n in range((lines - 2) // 4)]
    return "".join(fillers) + "def total(a, b):\n    return a + b\n"


def test_a_20000_line_file_gets_the_right_verdict_and_selection(tmp_path):
    """Regression (issue 8 §C13): changed lines and locations came from whole-file
    difflib, quadratic in file size (16.6 s for `check` on 20,000 lines). Speed is
    measured in bench/filesize_bench.py; this checks the answers stay right."""
    root = copy_project(tmp_path / "project", "verdicts")
    text = generated_module(20_000)
    write_files(
        root,
        {
            "pkg/big.py": text,
            "tests/test_big.py": (
                "from pkg import big\n\n\n"
                "def test_total():\n    assert big.total(2, 3) == 5\n\n\n"
                "def test_filler():\n    assert big.filler_7(10) == 3\n"
            ),
            "mutations/verdicts.toml": (
                '[[mutation]]\nid = "total-minus"\nsummary = "Subtracts."\n'
                'file = "pkg/big.py"\nscope = "total"\nfind = "a + b"\nreplace = "a - b"\n'
            ),
        },
    )
    commit(root)
    assert text.count("\n") >= 19_990
    checked = guardcheck(root, "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert failing_by_hand(root, "pkg/big.py", "return a + b", "return a - b") == [
        "tests/test_big.py::test_total"
    ]
    done, mutants = guardcheck_run(root, tmp_path / "r.json")
    mutant = mutants["total-minus"]
    fields = mutant["guardcheck"]
    assert fields["verdict"] == "caught", fields["reason"]
    assert fields["reason"].startswith("tests/test_big.py::test_total")
    selected = [s["test"] for s in fields["selection"] if s["selected"]]
    assert selected == ["tests/test_big.py::test_total"]
    last = text.count("\n")
    assert mutant["location"]["start"]["line"] == last
    assert done.returncode == 0, done.stdout + done.stderr
