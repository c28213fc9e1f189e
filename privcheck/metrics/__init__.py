"""Utility / information-loss metrics: how much a release costs its users.

``generalization`` scores full-domain generalizations (Prec, discernibility, AECS, height, loss);
``information_loss`` scores perturbative masking and microaggregation against the original file.
"""
