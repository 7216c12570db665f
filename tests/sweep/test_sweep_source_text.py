"""A sweep reads a file as Python does: a UTF-8 BOM, a coding cookie and CRLF line endings.

The splices are offsets into the text of the file's own bytes, so what a mutant
writes back is the file with only the mutated code changed.
"""

from __future__ import annotations

from pathlib import Path

from guardcheck.catalogue.load import parse_catalogue_text
from guardcheck.edit.mutate import build_mutant
from guardcheck.model import Mutant
from guardcheck.splices import BOM, decode_source, encode_source
from guardcheck.sweep import emit_catalogue, generate

# Mutants on line 1 too: a BOM shifts the offsets of every line, the columns of line 1 only.
SOURCE = """\
def f(x): return x + 1


class Box:
    def size(self, items):
        if len(items) > 3:
            return x - 1
        return "small"
"""


def write(root: Path, relative: str, data: bytes) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return root


def described(mutants: list[Mutant]) -> list[tuple[str, str, object, str]]:
    """What a mutant is, apart from the bytes of its file: id, summary, span, mutated text."""
    return [
        (m.id, m.summary, m.changes[0].span, m.changes[0].mutated.removeprefix(BOM))
        for m in mutants
    ]


def test_a_bom_file_gives_the_same_mutants_at_the_same_columns(tmp_path):
    """Regression (issue 22 case 7): a UTF-8 BOM shifted every splice of a sweep by one
    character, so `return x + 1` became `returnx - 1` and true survivors were caught."""
    plain = generate(write(tmp_path / "plain", "pkg/m.py", SOURCE.encode()), ["pkg"]).mutants
    bom = generate(write(tmp_path / "bom", "pkg/m.py", b"\xef\xbb\xbf" + SOURCE.encode()), ["pkg"])
    assert len(plain) > 4
    assert described(bom.mutants) == described(plain)
    assert "pkg/m.py:1:20: replace + with -" in {m.id for m in bom.mutants}
    for mutant in bom.mutants:
        (change,) = mutant.changes
        written = encode_source(change.mutated)
        assert written.startswith(b"\xef\xbb\xbf")  # the file keeps its BOM
        plain_change = next(m for m in plain if m.id == mutant.id).changes[0]
        assert written[3:] == plain_change.mutated.encode()


def test_a_bom_files_survivors_emit_the_entries_of_the_file_without_it(tmp_path):
    """Regression (issue 22 case 7): `--emit-catalogue` located patterns with offsets that
    did not count the BOM, so the mutants of line 1 were "not emitted". The entries are
    those of the file without a BOM, and the engine rebuilds each mutant, BOM kept."""
    plain_root = write(tmp_path / "plain", "pkg/m.py", SOURCE.encode())
    bom_root = write(tmp_path / "bom", "pkg/m.py", b"\xef\xbb\xbf" + SOURCE.encode())
    plain, bom = generate(plain_root, ["pkg"]).mutants, generate(bom_root, ["pkg"]).mutants
    text = emit_catalogue(bom, bom_root)
    assert text == emit_catalogue(plain, plain_root)
    catalogue = parse_catalogue_text(text, "emitted.toml")
    assert catalogue.problems == ()
    assert len(catalogue.entries) == len(bom)  # every mutant of SOURCE has a pattern
    rebuilt = {build_mutant(entry, bom_root).changes[0].mutated for entry in catalogue.entries}
    assert rebuilt == {m.changes[0].mutated for m in bom}


def test_a_latin1_file_with_its_coding_cookie_is_swept_and_written_back_in_latin1(tmp_path):
    """Issue 24 point 8: a file with a non-UTF-8 coding cookie is legal Python; it was
    skipped as "not UTF-8". Its mutants splice its decoded text and encode back to latin-1."""
    source = '# -*- coding: latin-1 -*-\ndef greet(x):\n    return "café" if x > 1 else "no"\n'
    data = source.encode("latin-1")
    sweep = generate(write(tmp_path, "pkg/m.py", data), ["pkg"])
    assert sweep.warnings == ()
    ids = {m.id for m in sweep.mutants}
    assert "pkg/m.py:3:24: replace > with >=" in ids
    boundary = next(m for m in sweep.mutants if m.id == "pkg/m.py:3:24: replace > with >=")
    written = encode_source(boundary.changes[0].mutated)
    assert written == data.replace(b"x > 1", b"x >= 1")


def test_crlf_line_endings_are_kept_in_the_mutated_text(tmp_path):
    """The sweep read files with universal newlines: a CRLF file's mutants were LF texts."""
    data = SOURCE.replace("\n", "\r\n").encode()
    sweep = generate(write(tmp_path, "pkg/m.py", data), ["pkg"])
    swap = next(m for m in sweep.mutants if m.id == "pkg/m.py:6:23: replace > with >=")
    assert encode_source(swap.changes[0].mutated) == data.replace(b"> 3", b">= 3")


def test_a_file_python_cannot_decode_is_skipped_with_a_message_about_its_encoding(tmp_path):
    root = write(tmp_path, "pkg/bad.py", b'# coding: ascii\nNAME = "caf\xe9"\n')
    write(root, "pkg/good.py", b"def f(x):\n    return x + 1\n")
    sweep = generate(root, ["pkg"])
    assert [m.id.split(":")[0] for m in sweep.mutants] == ["pkg/good.py"] * len(sweep.mutants)
    (warning,) = sweep.warnings
    assert warning.startswith("pkg/bad.py: cannot be decoded as Python source, skipped:")
    assert "line 2 is not valid ascii (byte 0xe9)" in warning
    assert "fix:" in warning


def run(source: bytes | str) -> object:
    namespace: dict[str, object] = {}
    exec(compile(source, "m.py", "exec"), namespace)
    return namespace["s"]


def test_decode_source_is_what_python_reads_and_encode_source_its_inverse():
    cases = [
        b"\xef\xbb\xbfs = 1\r\n",
        '# vim: set fileencoding=cp1252 :\ns = "€"\n'.encode("cp1252"),
        "#!/usr/bin/env python\n# coding=latin-1\ns = 'ü'\n".encode("latin-1"),
        "s = 'ü'\n".encode(),
    ]
    for data in cases:
        text = decode_source(data)
        assert run(text.removeprefix(BOM)) == run(data)
        assert encode_source(text) == data
