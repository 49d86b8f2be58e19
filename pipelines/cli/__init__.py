"""`clausemill`: audit contracts, run workers, read results.

With no configuration `audit` runs embedded (its own workers, filesystem broker, SQLite);
with CLAUSEMILL_BROKER_URL / _RESULT_BACKEND / _DATABASE_URL set it submits to the workers
started by `clausemill worker` on those servers and waits for them.
"""
from __future__ import annotations

import typer

from pipelines.cli import batches, clauses, data, feedback, health, intake, monitoring, nightly, processes, prune, review, stopping, users, web

app = typer.Typer(help=__doc__, no_args_is_help=True, add_completion=False, pretty_exceptions_show_locals=False)


@app.callback()
def _every_command() -> None:
    stopping.stop_on_sigterm()


# One module per kind of use; each command is a plain function registered here, in the order
# `clausemill --help` lists them.
for command in (batches.audit, batches.status, batches.report, intake.watch, intake.intake,
                nightly.nightly, nightly.scheduler, prune.prune,
                processes.worker, processes.migrate, monitoring.flower, monitoring.metrics, health.health,
                data.samples, data.train, web.serve, feedback.recalibrate):
    app.command()(command)
app.add_typer(review.review, name="review")
app.add_typer(users.users, name="users")
app.add_typer(clauses.clauses, name="clauses")
