"""What `guardcheck refactor` is asked to do, as plain values."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from guardcheck.options import RunOptions

CHECKS = ("old-tests", "names", "lost-assertions", "mutations", "equiv", "moves")
DEFAULT_EQUIV_EXAMPLES = 2000  # inputs per changed function
# Checks that only inform unless `--fail-on` names them.
INFORMATIONAL = frozenset({"lost-assertions"})


@dataclass(frozen=True)
class RefactorRequest:
    options: RunOptions  # today's project (root, [tool.guardcheck])
    base: str | None = None  # a revision; None: the merge base with the default branch
    moves: Path | None = None  # moves.toml
    moves_scan_tests: bool = False
    fail_on: frozenset[str] = frozenset()  # informational checks that fail the command
    only: tuple[str, ...] = ()  # run only these checks (default: all)
    pytest_timeout: float = 900.0  # seconds for one pytest run of the base tests
    no_equiv: bool = False  # skip the differential check of changed functions
    equiv_examples: int = DEFAULT_EQUIV_EXAMPLES

    def wants(self, check: str) -> bool:
        return not self.only or check in self.only

    @property
    def root(self) -> Path:
        return self.options.root
