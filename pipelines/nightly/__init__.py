"""Nightly audits of a contract repository, in one place: the schedule's time rules (`cron`),
what changed between runs (`deltas`), the webhook (`webhook`), which documents a run audits
again (`incremental`), and the scheduler process (`runs`, `beat`).

Its modules sit on different floors (tests/test_architecture.py), so this package imports none
of them: importing `pipelines.nightly.cron` must not pull in Celery.
"""
