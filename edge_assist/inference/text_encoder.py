"""The sentence encoder: a BERT-style ONNX model run with onnxruntime and `tokenizers`.

Mean pooling over real tokens (the attention mask keeps padding out of the average;
models trained on the first token, like bge, pool that instead), then L2 normalisation,
so a dot product is a cosine similarity. Texts are encoded in batches, sorted by length so a
batch pads to its own longest text, not the global one.

`encode_words` keeps what pooling throws away: one contextual vector per word (its word
pieces averaged), so a caller can ask whether each word of a question is covered by some
word of a caption (a BERTScore-style recall) rather than only whether the two sentences
are close overall.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from edge_assist.errors import ModelError
from edge_assist.inference.onnx_session import open_session


def load_tokenizer(path: Path, max_length: int, fix: str) -> Any:
    from tokenizers import Tokenizer

    try:
        tok = Tokenizer.from_file(str(path))
    except Exception as e:  # the tokenizers library raises a bare Exception on bad JSON
        raise ModelError(f"tokenizer {path} cannot be read ({str(e).splitlines()[0][:120]}); {fix}") from None
    tok.enable_truncation(max_length=max_length)
    return tok


class OnnxTextEncoder:
    """(texts) -> (n, dim) float32, rows L2-normalised."""

    def __init__(
        self,
        model_path: str | Path,
        tokenizer_path: str | Path,
        *,
        name: str = "",
        max_length: int = 256,
        batch_size: int = 32,
        threads: int = 0,
        pooling: str = "mean",
        fix_hint: str = "re-download it or fix [models] in the config",
    ) -> None:
        self.name = name or Path(model_path).stem
        self.batch_size = batch_size
        if pooling not in ("mean", "cls"):
            raise ModelError(f"text encoder pooling {pooling!r} is not mean or cls; fix the manifest")
        self.pooling = pooling
        self._session = open_session(Path(model_path), threads, fix_hint)
        self._inputs = {i.name for i in self._session.get_inputs()}
        if not {"input_ids", "attention_mask"} <= self._inputs:
            raise ModelError(
                f"{model_path} is not a sentence encoder (inputs {sorted(self._inputs)}); pick a BERT-style "
                f"ONNX model"
            )
        self._tokenizer = load_tokenizer(Path(tokenizer_path), max_length, fix_hint)
        pad_id = self._tokenizer.token_to_id("[PAD]")
        self._tokenizer.enable_padding(pad_id=pad_id if pad_id is not None else 0)
        out = self._session.get_outputs()[0]
        dim = out.shape[-1] if out.shape else None
        if not isinstance(dim, int):
            # A symbolic hidden size: ask the model once.
            dim = int(self._run(["dimension probe"]).shape[-1])
        self.dim: int = dim
        # onnxruntime sessions are thread-safe, but the tokenizer's padding state is not.
        self.lock = threading.Lock()

    def _hidden(self, texts: Sequence[str]) -> tuple[Any, np.ndarray, np.ndarray]:
        enc = self._tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        return enc, mask, self._session.run(None, feeds)[0]

    def _run(self, texts: Sequence[str]) -> np.ndarray:
        _, mask, hidden = self._hidden(texts)
        if hidden.ndim == 2:  # the model pools itself
            pooled = hidden.astype(np.float32)
        elif self.pooling == "cls":  # bge-style models are trained on the first token
            pooled = hidden[:, 0, :].astype(np.float32)
        else:
            m = mask[:, :, None].astype(np.float32)
            pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("encode() takes a list of texts, not one string")
        if not texts:
            return np.zeros((0, getattr(self, "dim", 0)), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        with self.lock:
            for start in range(0, len(order), self.batch_size):
                idx = order[start : start + self.batch_size]
                out[idx] = self._run([texts[i] or " " for i in idx])
        return out

    def encode_words(self, texts: Sequence[str]) -> list[tuple[list[str], np.ndarray]]:
        """Per text: its words (as the tokenizer splits them, lower-cased) and one L2-normalised
        contextual vector per word, (n_words, dim). Empty for a model that pools itself."""
        if isinstance(texts, str):
            raise TypeError("encode_words() takes a list of texts, not one string")
        out: list[tuple[list[str], np.ndarray]] = [([], np.zeros((0, self.dim), np.float32)) for _ in texts]
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        with self.lock:
            for start in range(0, len(order), self.batch_size):
                idx = order[start : start + self.batch_size]
                batch = [texts[i] or " " for i in idx]
                enc, _, hidden = self._hidden(batch)
                if hidden.ndim != 3:
                    continue
                for row, i in enumerate(idx):
                    out[i] = _word_vectors(batch[row], enc[row], hidden[row])
        return out


def _word_vectors(text: str, enc: Any, hidden: np.ndarray) -> tuple[list[str], np.ndarray]:
    """Average the word pieces of each word (special tokens have no word id)."""
    spans: dict[int, list[int]] = {}
    bounds: dict[int, tuple[int, int]] = {}
    for pos, (wid, (a, b)) in enumerate(zip(enc.word_ids, enc.offsets, strict=True)):
        if wid is None:
            continue
        spans.setdefault(wid, []).append(pos)
        lo, hi = bounds.get(wid, (a, b))
        bounds[wid] = (min(lo, a), max(hi, b))
    words = [text[bounds[w][0] : bounds[w][1]].lower() for w in spans]
    if not words:
        return [], np.zeros((0, hidden.shape[-1]), np.float32)
    vecs = np.stack([hidden[spans[w]].mean(axis=0) for w in spans]).astype(np.float32)
    vecs /= np.clip(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12, None)
    return words, vecs
