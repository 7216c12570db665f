"""Preparing a mutant for the lab, before any test runs (no processes).

Whether it runs in a fork (its changed functions' code swapped, or only their default
values set: `classify`, `default_values`) or in a fresh interpreter, and the code the
child runs, with evidence markers, compiled from only the part the mutant touches
(`instrument`, `methodview`).
"""
