"""The parent's side of a run, by step.

`prepare/` (what is decided about a mutant before any test runs), `plan` (which tests,
in which order), `execute/` (the host, the baseline, the mutants' processes), `verdict`
(what a child reported to a Status) and `sandbox/` (the private copy the tests run in).
"""
