"""How fast is the expert model, against the physical limit of its backbone?

On N real CUAD segments (the validation contracts' segments, in document order) this times:

  backbone   tokenization + the bare all-MiniLM-L6-v2 forward pass, in the model's own
             length-sorted batches: what no model on this backbone can beat
  prepare    the CPU's part alone: tokenizing segments and headings and padding the batches,
             which on a GPU is what the forward pass waits on
  sparse     ClauseModel.predict_many: backbone + router + top-k experts + calibration + spans
  sparse without cascade   the same with every segment through the backbone (the cascade's
             lexical pre-pass saves backbone work on a CPU; on a GPU it may cost more than it saves)
  dense      the same with every expert on every segment
  linear     the same with the linear baseline head instead of router and experts
  heads      router + experts alone on backbone outputs (and word-piece bags) computed
             beforehand, sparse vs dense, which isolates what top-k routing saves

On a CPU each is measured with the fp32 backbone and with the int8 one (the gpu worker's CPU
default), each model against the bare backbone of its own precision.

Each figure is the best of --repeats runs after a warm-up, in segments per second.

    python ops/benchmarks/model_speed.py --device cuda --segments 20000
    python ops/benchmarks/model_speed.py --device cpu --segments 2000

A GPU machine without CUAD or the project's parsers reads the same segments from a file that
`--write-segments` makes here (ops/benchmarks/cuda_bundle.py packs it for the device tool).

CUAD: CC BY 4.0, The Atticus Project.
"""
from __future__ import annotations

import argparse
import cProfile
import json
import lzma
import pstats
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from models.batching import length_batches, pad_ids  # noqa: E402
from models.checkpoint import DEFAULT_CHECKPOINT, load_checkpoint  # noqa: E402
from models.features import segment_features  # noqa: E402
from models.inference import ClauseModel  # noqa: E402
from models.lexical import lexical_bag  # noqa: E402
from models.runtime import pick_device  # noqa: E402
from pipelines.settings import cores  # noqa: E402
from pipelines.datamodel import Segment  # noqa: E402

CUAD = REPO.parent / "shared" / "data" / "cuad"


def first_segments(docs: Iterable[list[Segment]], n_segments: int) -> list[list[Segment]]:
    """Whole documents (positions are features) until n_segments are reached, the last cut."""
    out: list[list[Segment]] = []
    total = 0
    for segments in docs:
        out.append(segments[: n_segments - total])
        total += len(out[-1])
        if total >= n_segments:
            break
    return out


def documents(cuad: Path, n_segments: int) -> list[list[Segment]]:
    """The first n_segments of the validation documents, as CUAD's segmentation cuts them."""
    # Imported here: CUAD's segmentation pulls in the parsers (pdf, docx), which a GPU machine
    # reading --segments-file need not have.
    from models.corpus import load_cuad, read_split
    from models.training import SPLIT_FILE

    validation = read_split(SPLIT_FILE)
    return first_segments((doc.segments() for doc in load_cuad(cuad) if doc.name in validation), n_segments)


def write_segments(docs: list[list[Segment]], path: Path) -> None:
    rows = [[[s.index, s.text, s.start, s.end, s.page] for s in doc] for doc in docs]
    path.write_bytes(lzma.compress(json.dumps(rows).encode()))


def read_segments(path: Path, n_segments: int) -> list[list[Segment]]:
    rows = json.loads(lzma.decompress(path.read_bytes()))
    return first_segments(([Segment(*row) for row in doc] for doc in rows), n_segments)


def best_rate(run: Callable[[], None], n: int, repeats: int, device: torch.device) -> float:
    """Segments per second of the fastest of `repeats` runs, after one warm-up run."""
    run()
    best = float("inf")
    for _ in range(repeats):
        if device.type == "cuda":
            torch.cuda.synchronize()
        started = time.perf_counter()
        run()
        if device.type == "cuda":
            torch.cuda.synchronize()
        best = min(best, time.perf_counter() - started)
    return n / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default=None, help="cpu or cuda (default: cuda when present)")
    parser.add_argument("--segments", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--checkpoint", type=Path, default=DEFAULT_CHECKPOINT)
    parser.add_argument("--fp32-only", action="store_true", help="on a CPU, skip the int8 backbone")
    parser.add_argument("--cuad", type=Path, default=CUAD, help="a CUAD folder (files.csv, txt/, spans.jsonl)")
    parser.add_argument("--documents-per-call", type=int, default=8,
                        help="documents per predict_many call, as a gpu worker batches waiting documents")
    parser.add_argument("--write-segments", type=Path, metavar="FILE.json.xz",
                        help="write the first --segments validation segments to FILE and stop")
    parser.add_argument("--segments-file", type=Path, metavar="FILE.json.xz",
                        help="read the segments from a --write-segments file instead of CUAD")
    parser.add_argument("--profile", action="store_true",
                        help="also print where one sparse pass spends its time (cProfile, by own time)")
    args = parser.parse_args()

    if args.write_segments:
        docs = documents(args.cuad, args.segments)
        write_segments(docs, args.write_segments)
        print(f"{sum(len(d) for d in docs)} segments of {len(docs)} documents -> {args.write_segments}")
        return
    device = pick_device(args.device)
    checkpoint = load_checkpoint(args.checkpoint)
    # On a CPU both precisions are measured in one run (the machine is shared: only ratios
    # taken together are meaningful); CUDA runs fp16.
    models = [ClauseModel(checkpoint, device)]
    if device.type == "cpu" and not args.fp32_only:
        models.append(ClauseModel(checkpoint, device, int8=True))
    docs = read_segments(args.segments_file, args.segments) if args.segments_file else documents(args.cuad, args.segments)
    n = sum(len(d) for d in docs)
    per_call = args.documents_per_call
    calls = [docs[i : i + per_call] for i in range(0, len(docs), per_call)]
    model = models[0]
    where = torch.cuda.get_device_name(device) if device.type == "cuda" else f"CPU, {torch.get_num_threads()} threads of {cores()} cores"
    print(f"{n} CUAD segments in {len(docs)} documents, {len(calls)} calls of {per_call} documents; "
          f"{where}; model {model.version}, k={model.config.top_k}, {model.network.experts.n_experts} experts")

    rates: dict[str, float] = {}
    for m in models:
        def backbone(m: ClauseModel = m) -> None:
            # the same batches as predict: per document with int8 (models/inference.py)
            groups = [[d] for d in docs] if m.backbone.int8 else calls
            for call in groups:
                ids = m.backbone.token_ids([s.text for d in call for s in d])
                for rows in length_batches([len(r) for r in ids], m.limits):
                    m.backbone.states(*pad_ids([ids[i] for i in rows], m.backbone.pad_id))

        rates[f"backbone {m.precision}"] = best_rate(backbone, n, args.repeats, device)
        for mode in ("sparse", "dense", "linear"):
            rates[f"{mode} {m.precision}"] = best_rate(
                lambda m=m, mode=mode: [m.predict_many(call, mode=mode) for call in calls], n, args.repeats, device)
        m.cascade = False
        rates[f"sparse without cascade {m.precision}"] = best_rate(
            lambda m=m: [m.predict_many(call) for call in calls], n, args.repeats, device)
        m.cascade = True

    def prepare() -> None:
        for call in calls:
            ids = model.backbone.token_ids([s.text for d in call for s in d])
            headings = model.heading_ids(call, [""] * len(call))
            for rows in length_batches([len(r) for r in ids], model.limits):
                pad_ids([ids[i] for i in rows], model.backbone.pad_id)
                if headings:
                    pad_ids([headings[i] for i in rows], model.backbone.pad_id)

    rates["prepare"] = best_rate(prepare, n, args.repeats, device)

    # heads alone on precomputed backbone outputs
    texts = [s.text for d in docs for s in d]
    features = torch.cat([segment_features(d) for d in docs]).to(device)
    ids = model.backbone.token_ids(texts)
    heading_ids = model.heading_ids(docs, [""] * len(docs))
    batches = []
    for rows in length_batches([len(r) for r in ids], model.limits):
        input_ids, mask = (t.to(device) for t in pad_ids([ids[i] for i in rows], model.backbone.pad_id))
        heading = pad_ids([heading_ids[i] for i in rows], model.backbone.pad_id) if heading_ids else None
        bag = lexical_bag(input_ids, mask, model.backbone.vocab_size, model.backbone.special_ids, heading)
        batches.append((model.backbone.states(input_ids, mask), mask, features[rows], bag))
    for mode in ("sparse", "dense"):
        rates[f"heads {mode}"] = best_rate(
            lambda mode=mode: [model.network.scores(s, m, f, b, mode, model.config.top_k) for s, m, f, b in batches],
            n, args.repeats, device)

    print("| what | segments/s | vs bare backbone of the same precision |")
    print("| --- | ---: | ---: |")
    for name, rate in rates.items():
        precision = name.split()[-1]
        base = rates.get(f"backbone {precision}")
        print(f"| {name} | {rate:,.0f} | {f'{rate / base:.2f}x' if base else ''} |")
    for m in models:
        p = m.precision
        print(f"{p}: predict (sparse) / bare backbone {rates[f'sparse {p}'] / rates[f'backbone {p}']:.2f}x (target >= 0.8x); "
              f"sparse / dense end to end {rates[f'sparse {p}'] / rates[f'dense {p}']:.2f}x")
    print(f"heads alone sparse / dense: {rates['heads sparse'] / rates['heads dense']:.2f}x")
    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(lambda: [model.predict_many(call) for call in calls])
        if device.type == "cuda":
            torch.cuda.synchronize()
        pstats.Stats(profile).sort_stats("tottime").print_stats(20)
    if len(models) > 1:
        print(f"int8 / fp32: bare backbone {rates['backbone int8'] / rates['backbone fp32']:.2f}x, "
              f"predict {rates['sparse int8'] / rates['sparse fp32']:.2f}x")


if __name__ == "__main__":
    main()
