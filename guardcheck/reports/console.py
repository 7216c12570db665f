"""The terminal: live progress while the lab runs, then a verdict table and a summary line.

On a terminal the progress is a rich bar (counts, ETA); elsewhere (CI logs, pipes) it is
one plain line per mutant, because a redrawn bar turns into noise in a log file.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from enum import StrEnum
from types import TracebackType

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from guardcheck.model import BaselineTest, Mutant, MutantResult, RunReport, Status, TestOutcome
from guardcheck.reports import (
    STATUS_ORDER,
    Gate,
    counts_phrase,
    gate_phrase,
    killer_or_reason,
    run_label,
)

STATUS_STYLE: dict[Status, str] = {
    Status.CAUGHT: "green",
    Status.TIMEOUT: "cyan",
    Status.SURVIVED: "bold red",
    Status.NO_COVERAGE: "magenta",
    Status.CAUGHT_ELSEWHERE: "dark_orange",
    Status.WEAKENED: "dark_orange",
    Status.KNOWN_GAP: "yellow",
    Status.GAP_CLOSED: "bold red",
    Status.ERROR: "bold red",
}
OUTCOME_STYLE: dict[TestOutcome, str] = {
    TestOutcome.PASSED: "green",
    TestOutcome.FAILED: "red",
    TestOutcome.ERROR: "red",
    TestOutcome.SKIPPED: "yellow",
}
VERDICT_WIDTH = max(len(status.value) for status in Status)


# Wide enough for a pytest node id beside the verdict without wrapping.
CI_LOG_WIDTH = 160


class Verbosity(StrEnum):
    QUIET = "quiet"  # nothing while running; the caller prints only the summary
    NORMAL = "normal"
    VERBOSE = "verbose"  # also every test each mutant ran


def _seconds(value: float) -> str:
    return f"{value:.2f} s" if value < 10 else f"{value:.1f} s"


def verdict_text(status: Status) -> Text:
    return Text(status.value, style=STATUS_STYLE[status])


def summary_line(report: RunReport, gate: Gate | None = None) -> str:
    """'20 mutants: 19 caught, 1 timeout, 0 survived in 3.1 s (baseline 0.4 s) — gate passed'."""
    gate = gate or Gate()
    label = run_label(report)
    line = (
        f"{counts_phrase(report)} in {report.wall_seconds:.1f} s{_cached_phrase(report)} "
        f"(baseline {report.baseline_seconds:.1f} s) — {gate_phrase(report, gate)}"
    )
    return f"{label}: {line}" if label else line


def _cached_phrase(report: RunReport) -> str:
    """' (cached)' when every result came from guardcheck's cache, ' (N cached)' for some."""
    if not report.cached:
        return ""
    return " (cached)" if report.cached >= len(report.results) else f" ({report.cached} cached)"


def make_console() -> Console:
    """The run's console; CI logs get a wide page instead of rich's 80-column default."""
    console = Console()
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(width=CI_LOG_WIDTH)
    return console


def baseline_counts(tests: list[BaselineTest]) -> str:
    """'184 tests passed', or '536 passed, 1 skipped, 2 xfailed' when not all of them ran."""
    counts = {kind: 0 for kind in (TestOutcome.PASSED, TestOutcome.SKIPPED, TestOutcome.XFAILED)}
    for test in tests:
        counts[test.outcome] = counts.get(test.outcome, 0) + 1
    if counts[TestOutcome.PASSED] == len(tests):
        return f"{len(tests)} {'test' if len(tests) == 1 else 'tests'} passed"
    return ", ".join(f"{n} {kind.value}" for kind, n in counts.items() if n)


class ConsoleProgress:
    """Run events rendered on a console; use as a context manager around the lab.

    `live=None` picks the bar on a terminal and plain lines otherwise.
    """

    def __init__(
        self,
        console: Console | None = None,
        *,
        total: int | None = None,
        verbosity: Verbosity | str = Verbosity.NORMAL,
        gate: Gate | None = None,
        live: bool | None = None,
    ) -> None:
        self.console = console or Console(stderr=True)
        self.total = total
        self.verbosity = Verbosity(verbosity)  # accepts the CLI's plain string too
        self.gate = gate or Gate()
        self.live = self.console.is_terminal if live is None else live
        self.counts: dict[Status, int] = dict.fromkeys(Status, 0)
        self.finished = 0
        # Workers may report from threads; keep counts and output lines consistent.
        self._lock = threading.Lock()
        self._progress: Progress | None = None
        self._baseline_task: TaskID | None = None
        self._mutant_task: TaskID | None = None

    # -- lifecycle ---------------------------------------------------------------------

    def __enter__(self) -> ConsoleProgress:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self) -> None:
        if not self.live or self.verbosity is Verbosity.QUIET or self._progress:
            return
        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[counts]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=self.console,
            transient=True,  # the final table replaces the bar
        )
        self._progress.start()

    def stop(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    def set_total(self, total: int) -> None:
        """The number of mutants, once the plan is known (enables the bar's ETA)."""
        with self._lock:
            self.total = total
            if self._progress is not None and self._mutant_task is not None:
                self._progress.update(self._mutant_task, total=total)

    # -- events ------------------------------------------------------------------------

    def run_started(self, mutants: Sequence[Mutant]) -> None:
        self.set_total(len(mutants))

    def baseline_started(self) -> None:
        if self._progress is not None:
            self._baseline_task = self._progress.add_task("baseline", total=None, counts="")
        elif self._plain:
            self.console.print("baseline: running the unmutated tests", highlight=False)

    def baseline_finished(self, tests: list[BaselineTest], seconds: float) -> None:
        if self.verbosity is Verbosity.QUIET:
            return
        if self._progress is not None and self._baseline_task is not None:
            self._progress.remove_task(self._baseline_task)
            self._baseline_task = None
        self.console.print(
            f"baseline: {baseline_counts(tests)} in {_seconds(seconds)}", soft_wrap=True
        )

    def mutant_started(self, mutant: Mutant) -> None:
        with self._lock:
            task = self._ensure_mutant_task()
            if task is not None and self._progress is not None:
                # Truncated: a long sweep name would squeeze the bar off the line.
                name = mutant.id if len(mutant.id) <= 32 else mutant.id[:31] + "…"
                self._progress.update(task, description=f"mutants [dim]{escape(name)}[/]")

    def mutant_finished(self, result: MutantResult, log: str) -> None:
        with self._lock:
            self.finished += 1
            self.counts[result.status] += 1
            task = self._ensure_mutant_task()
            if task is not None and self._progress is not None:
                self._progress.update(task, advance=1, counts=self._counts_markup())
            if self.verbosity is Verbosity.QUIET:
                return
            # On the bar, only news a reader must act on (or everything when verbose).
            if self._plain or self.verbosity is Verbosity.VERBOSE or not self.gate.passes(result):
                # soft_wrap: a log line stays one line however narrow the CI console is.
                self.console.print(self._line(result), soft_wrap=True)
                if self.verbosity is Verbosity.VERBOSE:
                    for line in self._test_lines(result):
                        self.console.print(line, soft_wrap=True)

    # -- rendering helpers -------------------------------------------------------------

    @property
    def _plain(self) -> bool:
        return self._progress is None and self.verbosity is not Verbosity.QUIET

    def _ensure_mutant_task(self) -> TaskID | None:
        if self._progress is not None and self._mutant_task is None:
            self._mutant_task = self._progress.add_task(
                "mutants", total=self.total, counts=self._counts_markup()
            )
        return self._mutant_task

    def _counts_markup(self) -> str:
        parts = [
            f"[{STATUS_STYLE[status]}]{self.counts[status]} {status.value}[/]"
            for status in STATUS_ORDER
            if self.counts[status] or status is Status.CAUGHT
        ]
        return " ".join(parts)

    def _line(self, result: MutantResult) -> Text:
        width = len(str(self.total)) if self.total else 1
        counter = f"[{self.finished:>{width}}/{self.total}]" if self.total else f"[{self.finished}]"
        line = Text(f"{counter} ")
        line.append(f"{result.status.value:<{VERDICT_WIDTH}}", style=STATUS_STYLE[result.status])
        line.append(f" {result.mutant.id}")
        detail = killer_or_reason(result)
        if detail:
            joiner = "by" if result.status is Status.CAUGHT and result.killers else "—"
            line.append(f"  {joiner} {detail}", style="dim")
        line.append(f"  ({_seconds(result.duration)}, {result.path})", style="dim")
        return line

    def _test_lines(self, result: MutantResult) -> list[Text]:
        lines = []
        for test in result.tests:
            line = Text("    ")
            line.append(f"{test.outcome.value:<7}", style=OUTCOME_STYLE[test.outcome])
            line.append(f" {test.nodeid}  {_seconds(test.duration)}")
            if test.message:
                line.append(f"  {test.message}", style="dim")
            lines.append(line)
        return lines


def render_table(report: RunReport, console: Console, *, gate: Gate | None = None) -> None:
    """The verdict of every mutant, then the summary line.

    Passing mutants come first so the ones that need action sit right above the summary.
    """
    gate = gate or Gate()
    table = Table(title="guardcheck", title_justify="left")
    table.add_column("Mutant", overflow="fold")
    table.add_column("Verdict", no_wrap=True)
    table.add_column("Caught by / reason", overflow="fold")
    table.add_column("Path", no_wrap=True)
    table.add_column("Time", justify="right", no_wrap=True)
    gaps = [r for r in report.results if r.status is Status.KNOWN_GAP]
    ordered = sorted(  # stable; known gaps are listed apart, below
        (r for r in report.results if r.status is not Status.KNOWN_GAP),
        key=lambda r: not gate.passes(r),
    )
    for result in ordered:
        table.add_row(
            Text(result.mutant.id),
            verdict_text(result.status),
            Text(killer_or_reason(result)),
            result.path,
            _seconds(result.duration),
        )
    if ordered:
        console.print(table)
    if gaps:
        console.print(Text(f"Known gaps ({len(gaps)}), accepted by the gate:", style="bold"))
        for result in gaps:
            console.print(
                Text(f"  {result.mutant.id}  ({result.mutant.expect_reason})"), soft_wrap=True
            )
    style = "bold green" if gate.passed(report) else "bold red"
    console.print(Text(summary_line(report, gate), style=style), soft_wrap=True)


def kill_matrix(report: RunReport) -> dict[str, list[str]]:
    """Test node id -> ids of the mutants it failed against, for every test seen.

    Baseline tests come first (in baseline order) so a test that no mutant selected still
    appears with an empty list.
    """
    matrix: dict[str, list[str]] = {t.nodeid: [] for t in report.baseline}
    for result in report.results:
        for test in result.tests:
            matrix.setdefault(test.nodeid, [])
        for nodeid in result.killers:
            matrix[nodeid].append(result.mutant.id)
    return matrix


def _runs_per_test(report: RunReport) -> dict[str, int]:
    runs: dict[str, int] = {}
    for result in report.results:
        for test in result.tests:
            runs[test.nodeid] = runs.get(test.nodeid, 0) + 1
    return runs


def render_matrix(report: RunReport, console: Console) -> None:
    """For `--matrix` runs: which tests kill which mutants, and which tests kill nothing."""
    matrix = kill_matrix(report)
    runs = _runs_per_test(report)
    table = Table(title="Kill matrix", title_justify="left")
    table.add_column("Test", overflow="fold")
    table.add_column("Kills", justify="right")
    table.add_column("Mutants", overflow="fold")
    killers = {nodeid: ids for nodeid, ids in matrix.items() if ids}
    for nodeid, ids in sorted(killers.items(), key=lambda item: (-len(item[1]), item[0])):
        table.add_row(Text(nodeid), str(len(ids)), Text(", ".join(ids)))
    console.print(table)
    idle = [nodeid for nodeid, ids in matrix.items() if not ids]
    if not idle:
        console.print("Every test kills at least one mutant.")
        return
    console.print(Text(f"Tests that kill nothing ({len(idle)}):", style="bold"))
    for nodeid in idle:
        count = runs.get(nodeid, 0)
        plural = "" if count == 1 else "s"
        why = f"ran against {count} mutant{plural}" if count else "executes no mutated line"
        console.print(Text(f"  {nodeid}  ({why})"))
    if not report.matrix:
        # Without --matrix each mutant stops at its first failure, so "kills nothing" may
        # only mean "never got the chance".
        console.print(Text("  (bail mode: rerun with --matrix for the full picture)", style="dim"))
