"""Catalogue entries on files Python decodes by their coding cookie (PEP 263).

Issue 24 point 8: a target file with a non-UTF-8 coding cookie got "cannot read target
file ...: 'utf-8' codec can't decode byte", a message about its path. Such a file is
legal Python: it is now read in its declared encoding, and only bytes Python itself
would refuse get a problem, one that is about the encoding.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.verdicts import guardcheck

from guardcheck.edit.mutate import build_mutant
from guardcheck.errors import CatalogueInvalid
from guardcheck.model import Edit, Entry, Where

LATIN1 = '# -*- coding: latin-1 -*-\ndef greet(x):\n    return "café" if x > 1 else "no"\n'


def entry(find: str, replace: str) -> Entry:
    return Entry(
        id="boundary",
        summary="Off by one.",
        edits=(Edit("pkg/m.py", find, replace),),
        where=Where("mutations/m.toml", 1),
    )


def target(root: Path, data: bytes) -> Path:
    (root / "pkg").mkdir()
    (root / "pkg" / "m.py").write_bytes(data)
    return root


def test_an_entry_on_a_latin1_file_builds_with_its_text_decoded(tmp_path):
    root = target(tmp_path, LATIN1.encode("latin-1"))
    mutant = build_mutant(entry('"café" if x > 1 else "no"', '"café" if x >= 1 else "no"'), root)
    (change,) = mutant.changes
    assert change.original == LATIN1
    assert change.mutated == LATIN1.replace("x > 1", "x >= 1")
    assert (change.span.line, change.span.column) == (3, 12)  # columns count characters


@pytest.mark.parametrize(
    ("data", "words", "fix"),
    [
        (
            b'# coding: ascii\nNAME = "caf\xe9"\n',
            "line 2 is not valid ascii (byte 0xe9), the encoding its coding cookie declares",
            "save the file as ascii, or fix the coding cookie",
        ),
        (
            b'# coding: klingon-8\nNAME = "x"\n',
            "its coding cookie declares klingon-8, an encoding Python does not know",
            "name a codec Python knows in the cookie",
        ),
        (
            b'NAME = 1\nOTHER = "caf\xe9"\n',
            "line 2 is not UTF-8 (byte 0xe9), and the file declares no encoding",
            "declare its encoding with a coding cookie on line 1 or 2",
        ),
        (
            b'\xef\xbb\xbf# coding: latin-1\nNAME = "x"\n',
            "it starts with a UTF-8 byte order mark but its coding cookie declares latin-1",
            "remove the byte order mark",
        ),
    ],
)
def test_bytes_python_cannot_decode_are_a_problem_about_the_encoding(tmp_path, data, words, fix):
    root = target(tmp_path, data)
    with pytest.raises(CatalogueInvalid) as raised:
        build_mutant(entry("NAME", "None"), root)
    (problem,) = raised.value.problems
    assert problem.kind == "file"
    assert problem.message == f"target file pkg/m.py cannot be decoded as Python source: {words}"
    assert fix in problem.fix


def test_apply_writes_a_latin1_file_back_in_latin1_and_revert_restores_it(tmp_path):
    root = target(tmp_path, LATIN1.encode("latin-1"))
    (root / "pyproject.toml").write_text("[tool.guardcheck]\n")
    (root / "mutations").mkdir()
    (root / "mutations" / "m.toml").write_text(
        '[[mutation]]\nid = "boundary"\nsummary = "Off by one."\nfile = "pkg/m.py"\n'
        'find = "x > 1"\nreplace = "x >= 1"\n'
    )
    applied = guardcheck(root, "apply", "boundary")
    assert applied.returncode == 0, applied.stderr
    assert (root / "pkg/m.py").read_bytes() == LATIN1.replace("x > 1", "x >= 1").encode("latin-1")
    reverted = guardcheck(root, "apply", "--revert", "boundary")
    assert reverted.returncode == 0, reverted.stderr
    assert (root / "pkg/m.py").read_bytes() == LATIN1.encode("latin-1")


def test_a_mutant_the_declared_encoding_cannot_hold_is_refused_by_apply(tmp_path):
    root = target(tmp_path, LATIN1.encode("latin-1"))
    (root / "pyproject.toml").write_text("[tool.guardcheck]\n")
    (root / "mutations").mkdir()
    (root / "mutations" / "m.toml").write_text(
        '[[mutation]]\nid = "euro"\nsummary = "A euro sign."\nfile = "pkg/m.py"\n'
        "find = '\"no\"'\nreplace = '\"€\"'\n"
    )
    done = guardcheck(root, "apply", "euro")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "cannot hold" in done.stderr
    assert "latin-1" in done.stderr
    assert "fix:" in done.stderr
    assert "Traceback" not in done.stderr
    assert (root / "pkg/m.py").read_bytes() == LATIN1.encode("latin-1")
    assert not (root / ".guardcheck" / "applied" / "euro.json").exists()
