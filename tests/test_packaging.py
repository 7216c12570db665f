"""What the wheel ships: guardcheck only, never the demo application."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_the_wheel_ships_guardcheck_and_not_target_app(tmp_path):
    """Regression: target_app (the demo and test fixture) was packaged into the wheel."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "-q",
            "-w",
            str(tmp_path),
            str(REPO),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    (wheel,) = tmp_path.glob("guardcheck-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names if not name.endswith(".dist-info/")}
    assert not any(name.startswith("target_app/") for name in names)
    assert "guardcheck/child/host.py" in names
    assert "guardcheck/api.py" in names
    assert {t for t in tops if not t.endswith(".dist-info")} == {"guardcheck"}
