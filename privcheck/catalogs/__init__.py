"""Data catalogs privcheck reads column classifications from and writes verdicts to.

Each back-end is one module registered through the ``privcheck_catalogs`` hook (built-ins the
same way as third-party plugins): ``datahub`` (DataHub Lite by default, a GMS server when
configured), ``iceberg`` (the publication gate over a pyiceberg catalog) and ``openmetadata``
(payloads only: its server does not run here). ``base`` holds the interface they share.
"""
