"""Profiling a table to draft its policy (``privcheck init``, ``privcheck.draft_policy``).

One module per concern: ``columns`` (each column read once: distinct values, counts, missing,
a row sample), ``types`` and ``dates`` (integer, decimal, date with its format, text, boolean),
``checksums`` and ``recognizers`` (e-mail, phone, IBAN, card, national identifiers, IP, URL …
on the sample), ``vocabulary`` and ``rules`` (a role for every column, with its reason),
``tags`` (a catalog's roles win), ``hierarchies`` (a generalization for every
quasi-identifier), ``writer`` (the policy as commented YAML, table hierarchies as ARX CSV),
``draft`` (the whole path, the check it implies, the files) and ``render`` (what the command
prints).
"""
