"""Anonymizers: planners from the encoded class table and the policy to a plan
(``privcheck.plan``) — the full-domain searches (MinGen, Incognito, DataFly, on
``generalization``, ``problem`` and ``evaluator``), Mondrian, local suppression, SafePub, the
masking methods and ``auto``, a planner over planners. They import no engine: the pipeline
(``privcheck.pipeline``) has a plan written by the engine that holds the data."""
