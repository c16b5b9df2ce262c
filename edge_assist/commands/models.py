"""`edge-assist models list | pull NAME | verify [NAME...]`: the model manifest from the
command line. Downloads happen here and only here, when the wearer asks."""

from __future__ import annotations

import argparse

from edge_assist.commands.options import config_from_args
from edge_assist.config import Config
from edge_assist.errors import ModelError
from edge_assist.inference.manifest import (
    ModelEntry,
    candidate_path,
    download_path,
    get_entry,
    load_manifest,
    missing_hint,
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "models",
        help="list, download and verify models",
        description="Manage the models in models/manifest.toml.",
    )
    msub = p.add_subparsers(dest="models_command", metavar="ACTION", required=True)

    ls = msub.add_parser("list", help="every known model, its role, size, licence and whether it is here")
    ls.set_defaults(func=_list)

    pull = msub.add_parser("pull", help="download a model's files (resumes; checks sha256)")
    pull.add_argument("name", help="manifest name, see `edge-assist models list`")
    pull.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    pull.set_defaults(func=_pull)

    verify = msub.add_parser("verify", help="check size and sha256 of the files that are present")
    verify.add_argument("names", nargs="*", help="models to check (default: every model with files present)")
    verify.set_defaults(func=_verify)


def _configured(cfg: object) -> set[str]:
    m = cfg.models  # type: ignore[attr-defined]
    return {n for n in (m.llm, m.vlm, m.text_encoder, m.image_encoder) if n}


LICENCE_WIDTH = 22
UNKNOWN_SIZE = "unknown"


def _list(args: argparse.Namespace) -> int:
    cfg = config_from_args(args)
    used = _configured(cfg)
    print(f"{'':1} {'name':<26} {'role':<14} {'size':>9}  {'here':<5} {'licence':<{LICENCE_WIDTH}} hardware")
    unknown = False
    for name, e in sorted(load_manifest(cfg).items(), key=lambda kv: (kv[1].role, kv[0])):
        size = size_text(cfg, e)
        unknown |= size == UNKNOWN_SIZE
        here = all(candidate_path(cfg, e, f).is_file() for f in e.files)
        mark = "*" if name in used else ""
        print(
            f"{mark:1} {name:<26} {e.role:<14} {size:>9}  {'yes' if here else 'no':<5} "
            f"{fit(e.licence, LICENCE_WIDTH):<{LICENCE_WIDTH}} {e.hardware}"
        )
    print("\n* = configured in [models]. Get one with `edge-assist models pull NAME`.")
    if unknown:
        print(
            f"size {UNKNOWN_SIZE}: the manifest does not pin it and the files are not here; "
            "once pulled, the size on disk is shown"
        )
    return 0


def size_text(cfg: Config, entry: ModelEntry) -> str:
    """The files' total: the manifest's declared sizes, the size on disk of a file it leaves
    unpinned, or UNKNOWN_SIZE when a file is neither declared nor here."""
    total = 0
    for f in entry.files:
        where = candidate_path(cfg, entry, f)
        if f.size:
            total += f.size
        elif where.is_file():
            total += where.stat().st_size
        else:
            return UNKNOWN_SIZE
    return f"{total / 1e6:.0f} MB"


def fit(text: str, width: int) -> str:
    """`text` cut to `width` characters with an ellipsis, so it never runs into the next column."""
    return text if len(text) <= width else text[: width - 1] + "…"


def _pull(args: argparse.Namespace) -> int:
    from edge_assist.inference.download import check_file, download  # urllib, http: not at every start

    cfg = config_from_args(args)
    entry = get_entry(cfg, args.name)
    for f in entry.files:
        where = candidate_path(cfg, entry, f)
        if not f.url:
            if where.is_file():
                print(f"{f.name}: present at {where}")
                continue
            raise ModelError(f"{entry.name}: {f.name} is not downloadable; {missing_hint(entry, f)}")
        dest = download_path(cfg, entry, f)
        if dest.is_file():
            present = check_file(entry, f, dest)
            if present.status in ("ok", "unknown-sha"):
                print(f"{f.name}: already here ({present.detail})")
                continue
            print(f"{f.name}: present but {present.status} ({present.detail}); downloading again")
        result = download(entry, f, dest, quiet=args.quiet)
        print(f"{f.name}: {result.status} -> {result.path} ({result.detail})")
    print(f"{entry.name} is ready; select it with --set models.{_role_key(entry.role)}={entry.name}")
    return 0


def _role_key(role: str) -> str:
    return role.replace("-", "_")


def _verify(args: argparse.Namespace) -> int:
    from edge_assist.inference.download import check_file

    cfg = config_from_args(args)
    entries = load_manifest(cfg)
    names = args.names or sorted(entries)
    bad = 0
    for name in names:
        entry = get_entry(cfg, name)
        for f in entry.files:
            c = check_file(entry, f, candidate_path(cfg, entry, f))
            if c.status == "missing" and not args.names:
                continue  # a blanket verify checks what is here
            bad += c.bad or c.status == "missing"
            print(f"{c.status:<14} {name}/{f.name}  {c.detail or c.path}")
    if bad:
        raise ModelError(
            f"{bad} model file(s) missing or not matching the manifest; "
            "run `edge-assist models pull NAME` for each"
        )
    return 0
