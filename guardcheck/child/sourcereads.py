"""Which tests read the project's source files as files, in the baseline.

Coverage selects the tests that run a mutated line. A test can also notice a
mutant without running it: it reads the module's text (a version string
checked against the changelog, `inspect.getsource`, a linter or type checker
run in-process by a pytest plugin). By hand such a test reads the mutant; it
must be selected for every mutant of the files it read, and it is then run
with the mutant on disk (child/diskreads.py notices the read in the mutant's
run, lab/execute/ondisk.py writes the file).

Imports are not reads, nor is the interpreter opening the script it runs: the
module's code runs, so coverage already knows. Nor is the source line a
warning's message quotes (formatted as pytest records the warning), which says
nothing about the text, nor Hypothesis' scan of the project's constants, which
a mutant's run hands the mutated text (child/hypothesis_constants.py).

A read through `linecache` (a traceback's source lines, `inspect.getsource`) selects
the test all the same, but needs no run with the file on disk: a mutant's run puts
the mutated text in linecache before any test (child/codeswap.py, child/importhook.py),
so such a read gets the mutant, as by hand, and one that goes to disk all the same
is seen in the run itself (child/diskreads.py).
"""

from __future__ import annotations

import linecache
import os
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator
from types import CodeType, FrameType

# (file, function) of the frames whose opens are not reads of the text by a test.
_IMPORTING = ("<frozen importlib._bootstrap_external>", "get_code")
# zipimport asks whether a path is a zip archive: Python does it for the script it is
# about to run (`python pkg/cli.py`), and for path entries.
_ZIPIMPORT = "<frozen zipimport>"
_WARNINGS_FILE = warnings.__file__
_LINECACHE_FILE = linecache.__file__
_HYPOTHESIS_CONSTANTS = os.path.join("hypothesis", "internal", "constants_ast.py")
_FRAMES_TO_CHECK = 6


class SourceReads:
    """An audit hook on `open` under the source roots; `found` maps real path -> tests.

    `record`, if given, is told each (test, real path) as well: a followed process
    writes it to a file its child reads back (child/follow.py). Without it (the test
    process itself), `direct` keeps the reads that did not go through linecache.
    """

    def __init__(
        self, roots: Iterable[str], record: Callable[[str, str], None] | None = None
    ) -> None:
        self._roots = tuple(_as_root(os.path.realpath(r)) for r in roots)
        self._record = record
        self.current = ""  # the running test's id ("" outside a test)
        self.found: dict[str, set[str]] = {}
        self.direct: dict[str, set[str]] = {}
        if self._roots:  # for good: a baseline process
            cached = self._read_cached if record is None else None
            watch_text_reads(self._inside, self._read, cached)

    def _inside(self, real: str) -> bool:
        return bool(self.current) and real.startswith(self._roots)

    def _read(self, real: str) -> None:
        self.direct.setdefault(real, set()).add(self.current)
        self._read_cached(real)

    def _read_cached(self, real: str) -> None:
        tests = self.found.setdefault(real, set())
        if self.current not in tests:
            tests.add(self.current)
            if self._record is not None:
                self._record(self.current, real)

    def by_file(self) -> dict[str, list[str]]:
        return {path: sorted(tests) for path, tests in sorted(self.found.items())}

    def through_linecache(self) -> dict[str, list[str]]:
        """Real path -> the tests whose every read of it went through linecache."""
        only = {
            path: sorted(tests - self.direct.get(path, set()))
            for path, tests in sorted(self.found.items())
        }
        return {path: tests for path, tests in only.items() if tests}


def watch_text_reads(
    wanted: Callable[[str], bool],
    on_read: Callable[[str], None],
    cached: Callable[[str], None] | None = None,
) -> None:
    """Call `on_read(real path)` whenever this process opens a wanted .py file to read it;
    `cached(real path)` instead, if given, when linecache opens it."""

    def audit(event: str, args: tuple[object, ...]) -> None:
        name = opened_name(event, args)
        if name is None or not name.endswith(".py"):
            return
        real = os.path.realpath(name)
        # No caller frame: the interpreter opening its own script (`python pkg/cli.py`),
        # which runs it; coverage sees that, and follow.py handles a mutated script.
        # (sys._getframe(1) would raise there, and a raising hook fails the open.)
        caller = sys._getframe(0).f_back
        if caller is None or not wanted(real) or _not_a_read(caller):
            return
        if cached is not None and _from(caller, _LINECACHE_FILE):
            cached(real)
        else:
            on_read(real)

    sys.addaudithook(audit)


def opened_name(event: str, args: tuple[object, ...]) -> str | None:
    """The file name an audit event opens, if it is an `open` of a path."""
    if event != "open" or not args:
        return None
    path = args[0]
    if not isinstance(path, str | bytes | os.PathLike):
        return None  # a file descriptor
    try:
        return os.fsdecode(os.fspath(path))
    except TypeError:  # a PathLike that gives neither str nor bytes
        return None


def _as_root(path: str) -> str:
    """A folder as a prefix that matches only what is inside it; a file as itself."""
    return path if path.endswith(".py") else path.rstrip(os.sep) + os.sep


def _codes(caller: FrameType) -> Iterator[CodeType]:
    """The code of `caller` and of the few frames above it: who asked for the open."""
    frame: FrameType | None = caller
    for _ in range(_FRAMES_TO_CHECK):
        if frame is None:
            return
        yield frame.f_code
        frame = frame.f_back


def _from(caller: FrameType, filename: str) -> bool:
    """Whether one of the first few frames up from `caller` runs code of `filename`."""
    return any(code.co_filename == filename for code in _codes(caller))


def _not_a_read(caller: FrameType) -> bool:
    """The open is an import's (or zipimport's), a warning's formatting of its source line,
    or Hypothesis'."""
    for code in _codes(caller):
        if (code.co_filename, code.co_name) == _IMPORTING or code.co_filename == _ZIPIMPORT:
            return True
        if code.co_filename == _WARNINGS_FILE and "warn" in code.co_name:
            return True
        if code.co_filename.endswith(_HYPOTHESIS_CONSTANTS):
            return True
    return False
