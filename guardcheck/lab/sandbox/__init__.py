"""Where the lab's tests run, away from the user's files.

The private copy of the project (`projectcopy`), its import roots first on `PYTHONPATH`
so the tests import the copy and not an editable install's tree (`importroots`), and the
scratch folder the children work in (`scratchdir`).
"""
