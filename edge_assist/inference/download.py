"""Fetching and checking model files: `edge-assist models pull` and `verify`.

A download goes to `<file>.part`, resumes with an HTTP Range request after an
interruption, shows a progress bar, and becomes the real file (an atomic rename) only
after its size and sha256 match the manifest. A file already in place is never
overwritten by a bad download. Nothing here runs unless the wearer asks for it.
"""

from __future__ import annotations

import hashlib
import os
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from http.client import HTTPException, HTTPResponse
from pathlib import Path

from edge_assist.errors import ModelError
from edge_assist.inference.manifest import UNKNOWN_SHA, ModelEntry, ModelFile

CHUNK_BYTES = 1 << 20
DOWNLOAD_TIMEOUT_S = 60.0  # per socket operation, not for the whole file
USER_AGENT = "edge-assist-models/1"


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(CHUNK_BYTES), b""):
            h.update(block)
    return h.hexdigest()


@dataclass(frozen=True)
class FileCheck:
    model: str
    file: str
    path: Path
    status: str  # "ok", "missing", "size-mismatch", "sha-mismatch", "unknown-sha"
    detail: str = ""

    @property
    def bad(self) -> bool:
        return self.status in ("size-mismatch", "sha-mismatch")


def check_file(entry: ModelEntry, f: ModelFile, path: Path, *, hash_it: bool = True) -> FileCheck:
    if not path.is_file():
        return FileCheck(entry.name, f.name, path, "missing")
    size = path.stat().st_size
    if f.size is not None and size != f.size:
        return FileCheck(entry.name, f.name, path, "size-mismatch", f"{size} bytes, manifest says {f.size}")
    if not hash_it:
        return FileCheck(entry.name, f.name, path, "ok", f"{size} bytes (hash not checked)")
    digest = sha256_of(path)
    if f.sha256 == UNKNOWN_SHA:
        return FileCheck(
            entry.name, f.name, path, "unknown-sha", f"sha256 not pinned in the manifest; file has {digest}"
        )
    if digest != f.sha256:
        return FileCheck(
            entry.name, f.name, path, "sha-mismatch", f"sha256 {digest}, manifest says {f.sha256}"
        )
    return FileCheck(entry.name, f.name, path, "ok", f"{size} bytes, sha256 matches")


def _progress(total: int | None, initial: int, desc: str, quiet: bool) -> Callable[[int], None]:
    if quiet:
        return lambda _n: None
    from tqdm import tqdm

    bar = tqdm(
        total=total, initial=initial, unit="B", unit_scale=True, unit_divisor=1024, desc=desc, leave=True
    )

    def update(n: int) -> None:
        bar.update(n)
        if total is not None and bar.n >= total:
            bar.close()

    return update


def download(entry: ModelEntry, f: ModelFile, dest: Path, *, quiet: bool = False) -> FileCheck:
    """Fetch one file to `dest` (resuming a `.part`), then check it. Raises ModelError."""
    if not f.url:
        raise ModelError(
            f"{entry.name}: {f.name} has no download address in the manifest; install it another way"
        )
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_name(dest.name + ".part")
    have = part.stat().st_size if part.exists() else 0
    headers = {"User-Agent": USER_AGENT}
    if have:
        headers["Range"] = f"bytes={have}-"
    req = urllib.request.Request(f.url, headers=headers)
    try:
        resp = urllib.request.urlopen(req, timeout=DOWNLOAD_TIMEOUT_S)
    except urllib.error.HTTPError as e:
        if e.code == 416 and have:
            resp = None  # the .part is already whole: check it below
        else:
            raise ModelError(
                f"downloading {f.url} failed: HTTP {e.code} {e.reason}; check the address or try later"
            ) from None
    except (urllib.error.URLError, TimeoutError, ConnectionError) as e:
        raise ModelError(
            f"cannot reach {f.url} ({getattr(e, 'reason', e)}); check the network and run pull again"
        ) from None
    if resp is not None:
        with resp:
            _receive(resp, part, have, entry, f, quiet)
    result = check_file(entry, f, part)
    if result.bad:
        part.unlink(missing_ok=True)  # a bad download must not be resumed from
        raise ModelError(
            f"downloaded {f.name} does not match the manifest ({result.detail}); it was deleted and "
            f"{dest.name} was left as it was; check models/manifest.toml or the source"
        )
    os.replace(part, dest)
    return FileCheck(entry.name, f.name, dest, result.status, result.detail)


def _receive(resp: HTTPResponse, part: Path, have: int, entry: ModelEntry, f: ModelFile, quiet: bool) -> None:
    """The response into `part`, after its `have` bytes when the server resumed. Raises ModelError."""
    resumed = have > 0 and resp.status == 206
    if not resumed:
        have = 0  # the server ignored Range: start over
    length = resp.headers.get("Content-Length")
    total = have + int(length) if length is not None else f.size
    update = _progress(total, have, f.name, quiet)
    try:
        with open(part, "ab" if resumed else "wb") as out:
            while True:
                block = resp.read(CHUNK_BYTES)
                if not block:
                    break
                out.write(block)
                have += len(block)
                update(len(block))
    except (TimeoutError, ConnectionError, HTTPException, OSError) as e:
        raise ModelError(
            f"download of {f.name} interrupted at {have} bytes ({type(e).__name__}); "
            f"run `edge-assist models pull {entry.name}` again to resume"
        ) from None
    if total is not None and have < total:
        raise ModelError(
            f"download of {f.name} stopped at {have} of {total} bytes; "
            f"run `edge-assist models pull {entry.name}` again to resume"
        )
