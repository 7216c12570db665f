"""guardcheck: prove that a pytest suite catches the regressions it claims to."""

__version__ = "0.1.0"
