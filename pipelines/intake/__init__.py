"""The drop folder, in one place: its rules (`rules`: layout, stability, names, the outage
rule), and the watcher that runs them (`watcher`), one module a step: `claim` a stable file,
`record` it in the intake ledger, `submit` batches, `place` each finished file in its outbox
folder, `report`.  The ledger itself is storage/intake.py; the command, pipelines/cli/intake.py.

Its modules sit on different floors (tests/test_architecture.py), so this package imports none
of them: importing `pipelines.intake.rules` must not pull in Celery.
"""
