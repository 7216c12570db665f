"""The trees one `guardcheck refactor` compares: today's project, the base, and the mix."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from guardcheck.gitbase import Base
from guardcheck.options import RunOptions
from guardcheck.refactor.moves_file import Move
from guardcheck.refactor.request import RefactorRequest


@dataclass(frozen=True)
class Trees:
    request: RefactorRequest
    base: Base
    today: RunOptions  # the user's project, as configured today
    then: RunOptions  # the base revision's project root, in a worktree, as configured then
    mixed: Path  # a second worktree of the base with today's source paths overlaid
    scratch: Path  # for run output (never inside the user's tree)
    moves: tuple[Move, ...] = ()  # the moves file's [[move]] tables

    @property
    def label(self) -> str:
        return f"{self.base.label} ({self.base.sha[:10]})"
