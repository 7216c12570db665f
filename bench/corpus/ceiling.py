"""The best ratio over mutmut any sweep could reach on each corpus library, from its tests' time.

A mutant that survives is a pass of every test that reaches it, and that pass must be
seen: whatever the tool, each survivor costs at least its selected tests' own time.
So a sweep with `jobs` workers cannot end before

    floor = plain pytest's wall for the whole suite (the baseline runs it at least once)
          + the survivors' selected tests' seconds / jobs

even if every other mutant, every fork and every start-up took no time at all, and its
ratio over mutmut can be at most `mutmut wall / floor`. The seconds are the tests' own
durations as guardcheck's children measured them in each survivor's last run (the run in
the suite's order, whose pass is the verdict), counting only the tests the mutant's
selection chose (not the earlier tests of their modules that the run in the suite's
order adds), so the floor is below what guardcheck could reach, never above.

Issue 22's order rule asks more of a survivor: its selected tests run again with their
modules' earlier tests, in the suite's order, before the verdict. Counting every test of
those runs gives a second bound, `floor in order` and its `best in order`: what a sweep
that keeps that rule could reach at best (sqlparse: survivors' selections of ~81 tests
run as ~165).

Reads the state `run.py` left (its sweep, mutmut and plain steps) and prints a table:

    .venv/bin/python bench/corpus/ceiling.py --only itsdangerous,iso8601
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run as corpus  # the corpus: its libraries and the state of their steps

SURVIVING = ("survived", "known-gap")


@dataclass(frozen=True)
class Ceiling:
    library: str
    mutants: int
    survivors: int
    selected_s: float  # the survivors' selected tests, summed over survivors
    context_s: float  # every test of the survivors' last runs
    plain_s: float
    guardcheck_s: float
    mutmut_s: float
    jobs: int

    @property
    def floor_s(self) -> float:
        return self.plain_s + self.selected_s / self.jobs

    @property
    def floor_in_order_s(self) -> float:
        return self.plain_s + self.context_s / self.jobs

    @property
    def best_in_order(self) -> float:
        return self.mutmut_s / self.floor_in_order_s

    @property
    def ratio(self) -> float:
        return self.mutmut_s / self.guardcheck_s

    @property
    def best_ratio(self) -> float:
        return self.mutmut_s / self.floor_s


def chosen(selection: Mapping[str, Any], test_id: str) -> bool:
    """Whether a mutant's selection (the report's compact form) chose this test."""
    for listed, selected, _reason in selection.get("except", []):
        if str(listed) == test_id:
            return bool(selected)
    return bool(selection.get("default", {}).get("selected"))


def survivor_seconds(report: Mapping[str, Any]) -> tuple[int, int, float, float]:
    """Mutants, survivors, and the survivors' selected and all test seconds (last runs)."""
    mutants = survivors = 0
    selected = context = 0.0
    for file in report["files"].values():
        for mutant in file["mutants"]:
            mutants += 1
            own = mutant["guardcheck"]
            if own["verdict"] not in SURVIVING:
                continue
            survivors += 1
            for test in own["tests"]:
                context += test["seconds"]
                if chosen(own["selection"], test["id"]):
                    selected += test["seconds"]
    return mutants, survivors, selected, context


def ceiling_of(lib: corpus.Library, jobs: int) -> Ceiling | None:
    if not corpus.mutmut_ran(lib):
        return None  # mutmut stopped before any mutant: no ratio to bound
    report, swept = corpus.load(lib.state("gc")), corpus.load(lib.state("sweep"))
    mutated, plain = corpus.load(lib.state("mutmut")), corpus.load(lib.state("plain"))
    if not (report and swept and plain and mutated.get("wall_s")):
        return None
    mutants, survivors, selected, context = survivor_seconds(report)
    return Ceiling(
        lib.name,
        mutants,
        survivors,
        selected,
        context,
        plain["wall_s"],
        swept["wall_s"],
        mutated["wall_s"],
        jobs,
    )


def table(rows: Sequence[Ceiling]) -> str:
    lines = [
        "| library | mutants | survivors | survivors' selected tests s | their last runs' "
        "tests s | plain pytest s | floor s | floor in order s | guardcheck s | mutmut s | ratio "
        "| best ratio | best in order |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row.library} | {row.mutants} | {row.survivors} | {row.selected_s:.1f} | "
            f"{row.context_s:.1f} | {row.plain_s:.1f} | {row.floor_s:.1f} | "
            f"{row.floor_in_order_s:.1f} | {row.guardcheck_s:.1f} | {row.mutmut_s:.1f} | "
            f"{row.ratio:.2f}x | {row.best_ratio:.2f}x | {row.best_in_order:.2f}x |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma list of library names")
    parser.add_argument("--jobs", "-j", type=int, default=2, help="the sweep's -j (2)")
    parser.add_argument("--work", type=Path, default=corpus.WORKS[0])
    args = parser.parse_args(argv)
    corpus.WORKS[0] = args.work.resolve()
    wanted = set(args.only.split(",")) - {""}
    libs = [lib for lib in corpus.load_libraries() if not wanted or lib.name in wanted]
    rows = [row for lib in libs if (row := ceiling_of(lib, args.jobs)) is not None]
    if not rows:
        raise SystemExit("no library with finished sweep, mutmut and plain steps; run run.py")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
