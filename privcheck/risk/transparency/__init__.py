"""Transparency attacks: the intruder knows the masking method and its published parameters.

- ``univariate`` — rank swapping (``rank_swap_transparency``, the RSLD linkage of Nin, Herranz &
  Torra 2008, for the plain, p-buckets and p-distribution variants) and univariate
  microaggregation (``microaggregation_transparency``; Nin & Torra 2009): candidate sets from the
  windows the method allows, then distance-based linkage within them.
- ``multivariate`` — multivariate microaggregation (MDAV, whole-file or partitioned): the replay
  by an intruder holding the whole original file (``microaggregation_replay``) and the
  nearest-cluster linkage from its own records (``multivariate_microaggregation_transparency``;
  Nin, Herranz & Torra 2008, Data & Knowledge Engineering).
- ``measures`` — ``rank-swap-transparency``, ``microaggregation-transparency`` and
  ``microaggregation-multivariate-transparency`` as ``privcheck risk`` attacks.
"""
