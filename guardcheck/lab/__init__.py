"""The parent's side of a run.

Baseline, plan, scheduling, verdicts, and the clients of the host and fresh runs.
"""
