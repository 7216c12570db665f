"""guardcheck's library API: every command calls only this module.

Each capability (run, check, list, show, apply, lint-tests, equiv, ...) is one
function here that takes plain values and returns plain values; the click
commands parse flags, call one of these, render the result and map it to an
exit code.
"""

from __future__ import annotations
