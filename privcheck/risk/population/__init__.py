"""Population and uniqueness: how many people share a record's quasi-identifiers?

Figures of the class sizes f (in the release) and F (in the population), never a pass over
records:

- ``prosecutor`` — prosecutor risk of a class table (highest, average, records above a
  threshold), the figures an anonymization report and ``privcheck compare`` sign a release off
  on (El Emam; ARX's and sdcMicro's risk views).
- ``uniqueness`` — sample uniques and the prosecutor / journalist / marketer risks, with
  population sizes when known (El Emam, as ARX's ``RiskModelSampleSummary``): ``uniqueness_risk``,
  ``record_risks``, ``class_sizes_of``; the ``uniqueness`` attack.
- ``estimators`` — population uniques from a sample's class sizes: Zayatz (1991), Pitman
  (Hoshino 2001), SNB (Chen & Keller-McNulty 1998) and Dankar et al. (2012)'s rule, as ARX ships
  them (the ``population-uniqueness`` model).
- ``suda`` — minimal sample uniques and SUDA scores (SUDA2: Manning, Haglin & Keane 2008;
  scores as Elliot et al. and sdcMicro's ``suda2``); ``explain`` — ``privcheck check --explain``
  and ``privcheck.explain``: the minimal sample uniques and each quasi-identifier's contribution.
- ``intersection`` — the intersection attack across several releases of the same people
  (Ganta, Kasiviswanathan & Smith 2008, composition attacks): ``release_intersection``, the
  ``release-intersection`` attack. It lives here because what it measures is each record's
  anonymity set once the releases are intersected — a class size — reported as this family's
  figures (prosecutor risk 1 / size, uniques, the share below the policy's k); it works on
  quasi-identifier codes, hierarchies and classes as the rest of this family does, not on
  distances as record linkage does.
- ``measures`` — ``uniqueness`` and ``release-intersection`` as ``privcheck risk`` attacks.
"""
