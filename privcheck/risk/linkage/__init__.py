"""Record linkage: which released record is Alice's? (identity disclosure)

The intruder holds some original records on some attributes and links each to the release;
every attack here ends with the same anonymity sets, tie-breaks and rates.

- ``distance`` — distance-based record linkage, ``dbrl``: Euclidean on attributes standardised
  file by file, or Mahalanobis (``metric="mahalanobis"``, the ``mahalanobis`` attack); nearest
  or one-to-one (sdcMicro's Hungarian linkage). Torra, *A Guide to Data Privacy*, ch. 3;
  Domingo-Ferrer & Torra.
- ``probabilistic`` — probabilistic record linkage, ``prl``: Fellegi & Sunter (1969)'s decision
  rule with the m/u probabilities estimated by EM on the agreement patterns.
- ``learned`` — worst-case learned distances, ``learned_distance``: weighted mean, OWA,
  symmetric bilinear form, Choquet integral, parameters chosen by a mixed-integer programme
  (Abril, Navarro-Arribas & Torra).
- ``inputs`` — the input checks every numeric attack shares (numeric matrices read exactly,
  attribute names, the true index, standardisation, chunk sizes); ``links`` — a block of scores
  turned into links (anonymity set, uniform tie-break, rates). The transparency attacks and
  interval disclosure use both.
- ``measures`` — ``dbrl``, ``mahalanobis``, ``prl`` and ``learned-*`` as ``privcheck risk``
  attacks; ``LinkageMeasure`` is the base of every measure that links the intruder's rows to the
  whole release.
"""
