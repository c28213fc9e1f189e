"""Profiling a table to draft its policy (``privcheck init``, ``privcheck.draft_policy``).

One module per concern: ``columns`` (each column read once: distinct values, counts, missing,
a row sample), ``types`` and ``dates`` (integer, decimal, date with its format, text, boolean),
``checksums`` and ``recognizers`` (e-mail, phone, IBAN, card, national identifiers, IP, URL …
on the sample), ``vocabulary`` and ``rules`` (a role for every column, with its reason: a
``decision``), ``names`` and ``name_rules`` (values that read as people's names or user names,
a first-name column paired with a last-name column), ``tags`` (a catalog's roles win),
``individual`` (the repeated person key: people counted, not rows), ``age_like`` (one age-like
quasi-identifier), ``hierarchies`` and ``groupings`` (a generalization for every
quasi-identifier), ``postcodes`` (postal codes nested in a place column), ``profile`` (the
profile and its figures), ``writer`` (the policy as commented YAML, table hierarchies as ARX
CSV), ``preview`` (what ``anonymize`` will cost, on a sample), ``draft`` (the whole path, the
check it implies, the files) and ``render`` (what the command prints).
"""
