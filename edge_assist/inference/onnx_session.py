"""Opening an ONNX model with onnxruntime: CPU provider, thread count, clear errors.

onnxruntime's own message for a truncated or corrupt file is a multi-line protobuf
complaint; this turns it into one line that says which file and what to do.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from edge_assist.errors import ModelError


def open_session(path: Path, threads: int, fix: str) -> Any:
    import onnxruntime as ort

    if not path.is_file():
        raise ModelError(f"ONNX model {path} does not exist; {fix}")
    from edge_assist.inference.llama_llm import resolve_threads

    opts = ort.SessionOptions()
    # Same rule as llama.cpp: leave a core free, or spinning workers stall each other.
    opts.intra_op_num_threads = resolve_threads(threads)
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3  # warnings about unused initializers are noise here
    try:
        return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
    except Exception as e:  # onnxruntime raises its own Fail/InvalidProtobuf types
        first = str(e).strip().splitlines()[0][:160] if str(e).strip() else type(e).__name__
        raise ModelError(
            f"ONNX model {path} cannot be loaded (corrupt or truncated: {first}); {fix}"
        ) from None
