"""The pattern language and the engine.

Matching, splicing and building a Mutant: the only users of libcst.
"""
