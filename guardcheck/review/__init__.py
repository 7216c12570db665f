"""`guardcheck review --base REV`: how strong are the tests of a pull request?

The change (REV to the working tree) decides the scope: catalogue entries that
touch changed functions and operator mutants on changed lines, run as a kill
matrix through `guardcheck.pipeline`. From the matrix, the base revision and an audit
of file opens come the findings: survivors on changed lines, vacuous tests,
tests that do not pin the change, source-reading tests and named mutations the
change made stale (see docs/review.md). `verify.review` is the entry point; the
API imports it only when a review runs (it loads libcst).
"""
