"""The internals of installed libraries guardcheck relies on, checked at start-up.

pyproject.toml declares ranges, not pins, so guardcheck can share a project's venv;
CI tests each range's lowest and highest end. A version outside them (installed
with `--no-deps`, or pinned by the project) may lack an internal we use: that is
said before anything runs, with what to install, instead of an AttributeError
in the middle of a baseline.
"""

from __future__ import annotations

import importlib
import importlib.metadata
from dataclasses import dataclass

from packaging.requirements import InvalidRequirement, Requirement

from guardcheck.errors import GuardcheckError
from guardcheck.exitcodes import ExitCode


@dataclass(frozen=True)
class Internal:
    module: str
    attribute: str  # dotted, inside the module
    requirement: str  # what to install when it is missing

    def present(self) -> bool:
        try:
            found: object = importlib.import_module(self.module)
        except ImportError:
            return False
        for part in self.attribute.split("."):
            if not hasattr(found, part):
                return False
            found = getattr(found, part)
        return True


INTERNALS = (
    Internal("_pytest.capture", "MultiCapture", "pytest>=7.4,<9.3"),
    Internal("_pytest.capture", "_get_multicapture", "pytest>=7.4,<9.3"),
    Internal("_pytest.capture", "CaptureManager", "pytest>=7.4,<9.3"),
    Internal("_pytest.runner", "CallInfo", "pytest>=7.4,<9.3"),
    Internal("_pytest.tmpdir", "TempPathFactory.getbasetemp", "pytest>=7.4,<9.3"),
    Internal("coverage", "CoverageData.contexts_by_lineno", "coverage>=7.9,<8"),
    Internal("coverage", "Coverage.switch_context", "coverage>=7.9,<8"),
    Internal("coverage.config", "CoverageConfig.__init__", "coverage>=7.9,<8"),
    Internal("libcst._nodes.internal", "CodegenState", "libcst>=1.9,<2"),
)


def missing_internals(internals: tuple[Internal, ...] = INTERNALS) -> list[Internal]:
    """Each internal looked up for real (its module imported)."""
    found = [i for i in internals if not i.present()]
    covered = any(i.module.startswith("coverage") for i in internals)
    lacking = any(i.module.startswith("coverage") for i in found)
    if covered and not lacking and not _coverage_has_core():
        found.append(Internal("coverage.config", "CoverageConfig.core", "coverage>=7.9,<8"))
    return found


def in_tested_range(requirement: str) -> bool:
    """Whether the library `requirement` names is installed at a version its range allows.

    CI runs the suite at both ends of every range, so such a version has every
    internal: no need to import it (pytest and coverage cost a third of a second,
    on every command).
    """
    try:
        wanted = Requirement(requirement)
        version = importlib.metadata.version(wanted.name)
    except (InvalidRequirement, importlib.metadata.PackageNotFoundError):
        return False
    return bool(wanted.specifier) and wanted.specifier.contains(version, prereleases=True)


def _coverage_has_core() -> bool:
    """The `run:core` setting (coverage 7.9) chooses the C tracer, the one with contexts."""
    try:
        from coverage.config import CoverageConfig
    except ImportError:
        return False
    return hasattr(CoverageConfig(), "core")


def check_installed(internals: tuple[Internal, ...] = INTERNALS) -> None:
    """Raise a usage error (exit 2) naming every missing internal and what to install.

    Only the internals of libraries installed outside their tested range are looked up.
    """
    doubtful = tuple(i for i in internals if not in_tested_range(i.requirement))
    missing = missing_internals(doubtful) if doubtful else []
    if not missing:
        return
    lines = "\n".join(f"  {i.module}.{i.attribute} is missing" for i in missing)
    wanted = " ".join(sorted({f"'{i.requirement}'" for i in missing}))
    raise GuardcheckError(
        f"an installed library lacks what guardcheck uses:\n{lines}\n  fix: pip install {wanted}",
        ExitCode.USAGE,
    )
