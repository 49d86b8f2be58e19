"""Clause types a legal team teaches from examples (issue 44; the design: docs/CLAUSE_TYPES_DESIGN.md).

A taught type is a category like CUAD's, defined by a name, a description a reviewer reads, and
quotes that are examples of it (and, optionally, quotes that are not).  The pure rules live here:
what a name may be (`names`), and what a quote must be to count as an example (`examples`).
"""
