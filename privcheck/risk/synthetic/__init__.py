"""Attacks on a synthetic table: does it leak the people it was made from?

Every attack runs on the members (the generator's training rows) and on a control set of people
it never saw; the risk is what the members add to what population knowledge gives anyway (Giomi
et al., PETS 2023 — Anonymeter).

- ``control`` — what the attacks share: the control set (``split_control``, ``control_set``), one
  mixed encoding of the three tables, nearest synthetic records with random tie-breaks, and the
  Wilson-score rates and residual risk of Anonymeter.
- ``singling_out``, ``linkability``, ``inference`` — the three risks of the Article 29 Working
  Party (opinion 05/2014), measured as Anonymeter does.
- ``membership`` — membership inference, ``membership_inference``: on a synthetic table the
  distance to the closest synthetic record and model confidence, cross-fitted; on a released
  model (``model=``) the shadow-model attack of ``privcheck.risk.disclosure.model_membership``.
- ``measures`` — ``singling-out``, ``linkability``, ``inference`` and ``membership-inference``
  as ``privcheck risk`` attacks.
"""
