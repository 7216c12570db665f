"""Each folder once on a test process's sys.path (child/syspath.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SHOW = (
    "import json, sys\n"
    "from guardcheck.child.syspath import drop_repeated_entries\n"
    "before = list(sys.path)\n"
    "drop_repeated_entries()\n"
    "print(json.dumps([before, sys.path]))\n"
)


def test_the_working_folder_also_on_pythonpath_is_listed_once(tmp_path: Path):
    """Regression: the copy's folder, first as the working folder and again from
    PYTHONPATH, made mypy (which skips only the first entry) silence errors inside the
    project's own modules, so mutants only mypy catches survived."""
    other = tmp_path / "other"
    other.mkdir()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(other)])}
    done = subprocess.run(
        [sys.executable, "-c", SHOW], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    before, after = json.loads(done.stdout)
    assert before[:3] == ["", str(tmp_path), str(other)]  # "" is the working folder
    assert after[:2] == ["", str(other)]
    assert after[2:] == [p for p in before[3:] if p not in after[:2]]
