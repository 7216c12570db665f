"""The user's PYTHONHASHSEED, put back in a child before its tests run.

The lab starts every interpreter of one invocation with the same seed
(lab/execute/processes.py, `one_hash_seed`), so that set order, and with it the
lines a test runs, is the same in the baseline and in each mutant's run. The seed
has done its work once the interpreter has started: the tests, and the
processes they start, see the environment the user gave us.
"""

from __future__ import annotations

import os

from guardcheck import messages


def restore_user_hash_seed() -> None:
    own = os.environ.pop(messages.HASHSEED_ENV, None)
    if own is None:
        return  # the lab did not choose the seed (the user fixed one)
    if own.startswith("="):
        os.environ["PYTHONHASHSEED"] = own[1:]
    else:
        os.environ.pop("PYTHONHASHSEED", None)
