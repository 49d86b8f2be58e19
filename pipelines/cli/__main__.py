"""`python -m pipelines.cli`: how embedded workers are started (same as `clausemill`)."""
from pipelines.cli import app

try:
    app()
finally:
    # CPython (3.11, 3.12): a Ctrl-C that lands inside a string exec/eval (a dataclass or typing
    # forward reference being built) sets a flag that makes `python -m` die by SIGINT even after
    # the command caught it and chose its exit code (130); a string exec clears that flag.  A
    # KeyboardInterrupt nobody caught still sets it again on the way out.
    exec("pass")
