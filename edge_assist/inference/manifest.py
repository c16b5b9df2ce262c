"""The model manifest: which models exist, what files they need and where those files are.

The built-in manifest is `models/manifest.toml` (shipped inside the wheel too); a `manifest.toml` in
the configured models directory adds or overrides entries (a wearer's own fine-tune, or
the tiny models the tests generate). A file resolves, in order, to an absolute `path`
given in the manifest, to a file inside an installed PyPI package (the offline
defaults), or to `<models.dir>/<model name>/<file name>` where `models pull` puts it.
Nothing here downloads: a missing file is a `ModelError` that names the pull command.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from edge_assist.config import Config
from edge_assist.errors import ModelError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROLES = ("llm", "vlm", "text-encoder", "image-encoder")
UNKNOWN_SHA = "unknown"
# `models/manifest.toml` is the one source; `edge_assist/data/models-manifest.toml` is a
# symlink to it, which a wheel build turns into a copy, so an installed (non-editable)
# edge-assist finds the same manifest without the source tree.
_SOURCE_MANIFEST = Path(__file__).resolve().parents[2] / "models" / "manifest.toml"
_PACKAGED_MANIFEST = Path(__file__).resolve().parents[1] / "data" / "models-manifest.toml"
BUILTIN_MANIFEST = _SOURCE_MANIFEST if _SOURCE_MANIFEST.is_file() else _PACKAGED_MANIFEST


@dataclass(frozen=True)
class ModelFile:
    kind: str  # "model", "mmproj", "tokenizer", "image", "text"
    name: str
    url: str = ""
    size: int | None = None
    sha256: str = UNKNOWN_SHA
    package: str = ""
    package_path: str = ""
    path: str = ""  # an absolute path given by a local manifest


@dataclass(frozen=True)
class ModelEntry:
    name: str
    role: str
    files: tuple[ModelFile, ...]
    description: str = ""
    licence: str = ""
    source: str = ""
    hardware: str = ""
    install: str = ""
    options: dict[str, Any] = field(default_factory=dict)

    def file(self, kind: str) -> ModelFile | None:
        return next((f for f in self.files if f.kind == kind), None)


def _parse(path: Path, data: dict[str, Any]) -> dict[str, ModelEntry]:
    out: dict[str, ModelEntry] = {}
    base = path.parent
    for name, body in (data.get("model") or {}).items():
        if not isinstance(body, dict):
            raise ModelError(f"manifest {path}: [model.{name}] must be a table")
        role = body.get("role", "")
        if role not in ROLES:
            raise ModelError(
                f"manifest {path}: model {name} has role {role!r}; use one of {', '.join(ROLES)}"
            )
        files = []
        for f in body.get("files") or []:
            if "kind" not in f or "name" not in f:
                raise ModelError(f"manifest {path}: every file of model {name} needs kind and name")
            p = str(f.get("path", ""))
            if p and not os.path.isabs(os.path.expanduser(p)):
                p = str(base / p)  # relative to the manifest that names it
            files.append(
                ModelFile(
                    kind=str(f["kind"]),
                    name=str(f["name"]),
                    url=str(f.get("url", "")),
                    size=int(f["size"]) if f.get("size") is not None else None,
                    sha256=str(f.get("sha256", UNKNOWN_SHA)).lower(),
                    package=str(f.get("package", "")),
                    package_path=str(f.get("package_path", "")),
                    path=os.path.expanduser(p),
                )
            )
        known = {"role", "files", "description", "licence", "source", "hardware", "install"}
        out[name] = ModelEntry(
            name=name,
            role=role,
            files=tuple(files),
            description=str(body.get("description", "")),
            licence=str(body.get("licence", "")),
            source=str(body.get("source", "")),
            hardware=str(body.get("hardware", "")),
            install=str(body.get("install", "")),
            options={k: v for k, v in body.items() if k not in known},
        )
    return out


def _read(path: Path) -> dict[str, ModelEntry]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise ModelError(f"model manifest {path} is not valid TOML: {e}") from None
    except OSError as e:
        raise ModelError(f"cannot read model manifest {path}: {e}") from None
    return _parse(path, data)


def load_manifest(cfg: Config) -> dict[str, ModelEntry]:
    """Built-in entries, then the models directory's own manifest on top."""
    entries: dict[str, ModelEntry] = {}
    if BUILTIN_MANIFEST.exists():
        entries.update(_read(BUILTIN_MANIFEST))
    local = cfg.models_dir / "manifest.toml"
    if local.exists() and local.resolve() != BUILTIN_MANIFEST:
        entries.update(_read(local))
    return entries


def get_entry(cfg: Config, name: str, role: str | None = None) -> ModelEntry:
    entries = load_manifest(cfg)
    entry = entries.get(name)
    if entry is None:
        known = ", ".join(sorted(n for n, e in entries.items() if role is None or e.role == role))
        raise ModelError(f"model {name!r} is not in the manifest; known {role or 'models'}: {known}")
    if role is not None and entry.role != role:
        raise ModelError(f"model {name!r} is a {entry.role}, not a {role}; pick another in [models]")
    return entry


def _package_dir(package: str) -> Path | None:
    # find_spec, never import: some model packages import heavy or missing deps at import.
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def candidate_path(cfg: Config, entry: ModelEntry, f: ModelFile) -> Path:
    """Where the file is, or where it would be after `models pull` (may not exist)."""
    if f.path:
        return Path(f.path)
    if f.package:
        pkg = _package_dir(f.package)
        if pkg is not None:
            return pkg / (f.package_path or f.name)
    return download_path(cfg, entry, f)


def download_path(cfg: Config, entry: ModelEntry, f: ModelFile) -> Path:
    return cfg.models_dir / entry.name / f.name


def missing_hint(entry: ModelEntry, f: ModelFile) -> str:
    if f.url:
        return f"run `edge-assist models pull {entry.name}`"
    if f.package:
        return f"install it: `{entry.install or 'pip install ' + f.package.replace('_', '-')}`"
    return "put the file there or fix the manifest"


def resolve_file(cfg: Config, entry: ModelEntry, kind: str, *, required: bool = True) -> Path | None:
    f = entry.file(kind)
    if f is None:
        if required:
            raise ModelError(
                f"manifest entry {entry.name!r} has no {kind} file; add one to models/manifest.toml"
            )
        return None
    p = candidate_path(cfg, entry, f)
    if not p.is_file():
        raise ModelError(f"{entry.role} {entry.name!r}: {f.name} not found at {p}; {missing_hint(entry, f)}")
    return p
