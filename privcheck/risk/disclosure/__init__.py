"""Attribute and model disclosure: what does the release (or a model) tell about Alice?

- ``attribute`` — attribute disclosure, rows aligned by position: rank- and SD-based interval
  disclosure and their average over p (Domingo-Ferrer, Mateo-Sanz & Torra 2001; SDID:
  Mateo-Sanz, Sebé & Domingo-Ferrer 2004), sdcMicro's ``dRisk`` (``sdcmicro_drisk``), SADR for
  categorical attributes (``categorical_disclosure``) and model-based disclosure
  (``model_disclosure``, Torra's algorithm 10).
- ``absent_attribute`` — ``ddmbar``: agreement of models of an attribute built from the original
  and from a release that masks or lacks it (Torra's algorithm 11).
- ``model_membership`` — membership inference on a released model: shadow models (Shokri,
  Stronati, Song & Shmatikov 2017; Torra's ``mia``) and the loss-threshold baseline (Yeom et al.
  2018). Its entry point, ``membership_inference(..., model=...)``, is the synthetic-data
  family's (``privcheck.risk.synthetic.membership``), which holds the control set both need.
- ``measures`` — ``interval-disclosure`` and ``ddmbar`` as ``privcheck risk`` attacks.
"""
