"""The release path above planners and engines, one module per call: ``check`` (read where the
data lives, then judge it), ``anonymize`` (read → encode → plan → release → re-check → report,
for every algorithm and engine) and ``apply`` (the same with the plan given). Import them from
their modules (``privcheck.pipeline.anonymize.anonymize`` …) or as ``privcheck.anonymize``: this
package imports nothing itself, so a check does not load what a release needs (pandas)."""
