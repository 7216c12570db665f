"""Running the tests: the lab's processes and what they report.

A session's lifetime (`session`: the host started, collection, the baseline, every
mutant), the baseline's results and coverage (`baseline`), the mutants run at most
`jobs` at a time (`scheduler`), and the parent's handles on the host and fresh runs
(`processes`).
"""
