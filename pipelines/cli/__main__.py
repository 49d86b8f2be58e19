"""`python -m pipelines.cli`: how embedded workers are started (same as `clausemill`)."""
import sys

from pipelines.cli import app

sys.exit(app())
