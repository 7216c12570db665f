"""Broad sweeps with mutmut's own operators, as guardcheck mutants.

    sweep = generate(root, ["target_app"], exclude=["*.__repr__"])
    sweep.mutants   # list[Mutant]: id "path:line:col: replace < with <=", one exact splice each
    sweep.skipped   # {"pragma": 0, "exclude": 3, "arid:logging": 12, ...}
    changed_lines_since(root, "origin/main", ["target_app"])  # for generate(changed_lines=...)
    emit_catalogue(survivors, root)  # ready-to-edit [[mutation]] TOML

The mutant set of a file is exactly what `mutmut run` generates for it (same
operators, same skip rules, same pragma handling); guardcheck's own filters
(exclude, arid code, since) then drop some and count them by rule.

mutmut internals used (why `mutmut==3.8.1` is pinned exactly):

- `mutmut.mutation.mutators.mutation_operators`: the (node type, operator)
  table; `operator_swap_op`, `operator_keywords` and `_keyword_mapping` to
  register those two for the node types they act on (a speed-up only).
- `mutmut.mutation.file_mutation.MutationVisitor`: the walk and its skip
  rules; subclassed only to keep the ancestor stack; its `mutations` and each
  `Mutation.contained_by_top_level_function` (mutmut makes mutants only inside
  module-level functions and methods).
- `mutmut.mutation.pragma_handling.PragmaVisitor`, `IgnoredCode` and
  `PragmaParseError`: mutmut's `# pragma: no mutate` lines.
- In tests only, `mutmut.mutation.file_mutation.mutate_file_contents` (what
  `mutmut run` calls per file) as the oracle for the mutant set.
"""

from guardcheck.sweep.changed import changed_lines_since
from guardcheck.sweep.emit import emit_catalogue
from guardcheck.sweep.filters import (
    ARID_RULES,
    AridRule,
    Candidate,
    Filter,
    arid_rules_except,
)
from guardcheck.sweep.generate import Sweep, generate

DEFAULT = ARID_RULES

__all__ = [
    "ARID_RULES",
    "DEFAULT",
    "AridRule",
    "Candidate",
    "Filter",
    "Sweep",
    "arid_rules_except",
    "changed_lines_since",
    "emit_catalogue",
    "generate",
]
