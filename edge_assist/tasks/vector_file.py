"""Encoder vectors of fixed texts (each library task's steps, the hazard phrases), kept in one
small file in the data dir, so a start does not encode them again.

Encoding a task's steps and the hazard vocabulary costs about 0.3 s of CPU at every start on
this 2-core machine, before the first caption can be decided. The texts only change when a
task file or the vocabulary does, and their vectors only when the encoder does.

Each entry sits in a slot (a task's name, or a part of the vocabulary) with the hash of the
file its texts came from and the hash of the texts themselves; the file as a whole belongs to
one encoder (its `identity`: model and tokenizer files, settings, runtime versions). An entry
is used only when all of these match and its vectors are intact (their own hash); anything
else (another encoder, a changed file, a corrupt or truncated cache, an unknown format) is a
miss: the texts are encoded as before and the file rewritten. A cache that cannot be read or
written costs time, never the start.

Format: a magic line, a 4-byte header length, a JSON header, then float32 rows.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import logging
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

Encode = Callable[[Sequence[str]], np.ndarray]

MAGIC = b"edge-assist-vectors/1\n"
FILE_NAME = "text-vectors.bin"


def digest(data: bytes | str) -> str:
    return hashlib.sha256(data.encode("utf-8") if isinstance(data, str) else data).hexdigest()


def texts_digest(texts: Sequence[str]) -> str:
    return digest("\x00".join(texts))


@dataclass(frozen=True)
class Wanted:
    """Vectors for `texts`, which came from a file whose content hash is `source`."""

    slot: str
    source: str
    texts: tuple[str, ...]


@dataclass(frozen=True)
class _Entry:
    source: str
    texts: str  # texts_digest of the texts the rows encode
    vectors: np.ndarray


class VectorFile:
    """One encoder's vectors of fixed texts, read once per process and rewritten on a miss."""

    def __init__(self, path: str | Path, identity: str) -> None:
        if not identity:
            raise ValueError("a vector file needs the encoder's identity")
        self.path = Path(path)
        self.identity = identity
        self.hits = 0
        self.misses = 0
        self._entries: dict[str, _Entry] | None = None
        self._lock = threading.Lock()

    @classmethod
    def for_encoder(cls, path: str | Path, encoder: object) -> VectorFile | None:
        """A vector file for this encoder, or None for one that cannot say which model it is (a
        test's wrapper): vectors on disk might then be another model's."""
        identity = getattr(encoder, "identity", "")
        return cls(path, identity) if isinstance(identity, str) and identity else None

    def vectors(self, wanted: Sequence[Wanted], encode: Encode) -> list[np.ndarray]:
        """Per item, its texts' vectors: from the file when it holds them, else from `encode`
        (one call for every miss) and then written back."""
        with self._lock:
            entries = self._load()
            out: list[np.ndarray | None] = []
            todo: list[int] = []
            for i, w in enumerate(wanted):
                e = entries.get(w.slot)
                if e is not None and e.source == w.source and e.texts == texts_digest(w.texts):
                    out.append(e.vectors)
                else:
                    out.append(None)
                    todo.append(i)
            self.hits += len(wanted) - len(todo)
            self.misses += len(todo)
            if todo:
                texts = list(dict.fromkeys(t for i in todo for t in wanted[i].texts))
                fresh = dict(zip(texts, np.asarray(encode(texts), dtype=np.float32), strict=True))
                for i in todo:
                    w = wanted[i]
                    vecs = np.stack([fresh[t] for t in w.texts]) if w.texts else np.zeros((0, 0), np.float32)
                    entries[w.slot] = _Entry(w.source, texts_digest(w.texts), vecs)
                    out[i] = vecs
                self._save(entries)
        return [v for v in out if v is not None]

    # -- the file ------------------------------------------------------------------------
    def _load(self) -> dict[str, _Entry]:
        if self._entries is None:
            try:
                self._entries = self._read()
            except FileNotFoundError:
                self._entries = {}
            except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
                log.warning("vector cache %s is unreadable (%s); it is rebuilt", self.path, e)
                self._entries = {}
        return self._entries

    def _read(self) -> dict[str, _Entry]:
        data = self.path.read_bytes()
        if not data.startswith(MAGIC):
            raise ValueError("not a vector cache of this format")
        at = len(MAGIC)
        size = int.from_bytes(data[at : at + 4], "little")
        header = json.loads(data[at + 4 : at + 4 + size].decode("utf-8"))
        if header["identity"] != self.identity:
            return {}  # another encoder's vectors: none of them is ours
        body = memoryview(data)[at + 4 + size :]
        entries: dict[str, _Entry] = {}
        for slot, e in header["entries"].items():
            start, rows, dim = int(e["offset"]), int(e["rows"]), int(e["dim"])
            raw = body[start : start + rows * dim * 4]
            if len(raw) != rows * dim * 4 or digest(raw.tobytes()) != e["sha256"]:
                raise ValueError(f"the vectors of {slot!r} do not match their hash")
            vecs = np.frombuffer(raw, dtype="<f4").reshape(rows, dim).astype(np.float32)
            entries[str(slot)] = _Entry(str(e["source"]), str(e["texts"]), vecs)
        return entries

    def _save(self, entries: dict[str, _Entry]) -> None:
        header: dict[str, object] = {"identity": self.identity}
        listed: dict[str, dict[str, object]] = {}
        chunks: list[bytes] = []
        offset = 0
        for slot, e in entries.items():
            raw = np.ascontiguousarray(e.vectors, dtype="<f4").tobytes()
            rows, dim = e.vectors.shape
            listed[slot] = {
                "source": e.source,
                "texts": e.texts,
                "rows": rows,
                "dim": dim,
                "offset": offset,
                "sha256": digest(raw),
            }
            chunks.append(raw)
            offset += len(raw)
        header["entries"] = listed
        head = json.dumps(header).encode("utf-8")
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(tmp, "wb") as fh:
                fh.write(MAGIC + len(head).to_bytes(4, "little") + head)
                for c in chunks:
                    fh.write(c)
            # Whole or not at all: a reader (another process) never sees half a file.
            os.replace(tmp, self.path)
        except OSError as e:
            # A full disk is the memory store's one line to say (it stops ingest); a cache that
            # cannot be saved only costs encoding again at the next start.
            full = e.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT)
            log.log(
                logging.INFO if full else logging.WARNING,
                "vector cache %s cannot be written (%s); vectors are encoded at each start",
                self.path,
                e,
            )
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
