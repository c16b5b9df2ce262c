"""`edge-assist eval qa`: the question benchmark's action (template questions from the step
annotations, answered from a memory built from a caption-stream variant)."""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from edge_assist.commands.options import config_from_args, override_items
from edge_assist.errors import EdgeAssistError

if TYPE_CHECKING:
    from edge_assist.config import Config


def add_qa(esub: argparse._SubParsersAction, default_dataset: Path, variants: Sequence[str]) -> None:
    q = esub.add_parser(
        "qa", help="the question benchmark: template questions from the annotations, answered from memory"
    )
    q.add_argument(
        "--dataset",
        default=str(default_dataset),
        metavar="DIR",
        help="a built benchmark (default: the shipped CaptainCook4D build)",
    )
    q.add_argument("--split", default="val", help="which split (default val; develop on train)")
    q.add_argument(
        "--variant",
        default="original",
        choices=tuple(variants),
        help="caption stream the memory is built from (questions keep the annotated wording)",
    )
    q.add_argument(
        "--answerer",
        default="grounded,free",
        help="comma-separated rows: grounded (choose a moment, compose) and/or free "
        "(free-written, the old path)",
    )
    q.add_argument("--limit", type=int, default=0, help="only the first N recordings of the split (0 = all)")
    q.add_argument("--seed", type=int, default=0, help="question generator seed (default 0)")
    q.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="recordings answered at once, one worker process each with its own models (default 1)",
    )
    q.add_argument(
        "--read-back",
        action="store_true",
        help="resume an interrupted run: recordings whose answers are already in --out are read, "
        "not answered again (same code and configuration only)",
    )
    q.add_argument(
        "--questions",
        action="append",
        metavar="FILE",
        help="free-form questions written by hand (edge_assist/data/questions/*.jsonl) instead of the "
        "templates; repeat for several files, each reported apart. Answered as `edge-assist ask` "
        "answers (the configured reasoner.answerer); --split, --answerer, --seed, --limit do not apply",
    )
    q.add_argument("--out", required=True, metavar="DIR", help="where to write results.json and report.md")
    q.set_defaults(func=_qa)


def _qa(args: argparse.Namespace) -> int:
    from edge_assist.evaluation import qa_bench, qa_freeform_report

    cfg = config_from_args(args)
    if args.questions:
        return _freeform(args, cfg)
    if args.jobs < 1:
        raise EdgeAssistError(f"--jobs must be 1 or more, got {args.jobs}")
    rows = [x.strip() for x in args.answerer.split(",") if x.strip()]
    bad = [r for r in rows if r not in qa_bench.ROWS]
    if bad or not rows:
        raise EdgeAssistError(
            f"unknown answerer {bad[0] if bad else args.answerer!r}; choose from grounded, free"
        )
    dataset = Path(args.dataset)
    if not (dataset / args.split / "original").is_dir():
        raise EdgeAssistError(
            f"{dataset / args.split} holds no caption streams; "
            "build it with `edge-assist eval build-captaincook`"
        )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    command = "edge-assist " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:] else ""
    commit = qa_freeform_report.commit_of(Path(qa_bench.__file__).parent)
    result = qa_bench.run(
        cfg,
        dataset,
        args.split,
        args.variant,
        rows,
        limit=args.limit,
        seed=args.seed,
        progress=lambda msg: print(msg, file=sys.stderr, flush=True),
        out_dir=out,
        read_back=args.read_back,
        jobs=args.jobs,
    )
    overrides = dict(x.split("=", 1) for x in override_items(args) if "=" in x)
    result["command"] = command
    result["commit"] = commit
    result["models"] = f"llm={cfg.models.llm}, text_encoder={cfg.models.text_encoder}"
    result["config_overrides"] = overrides
    qa_bench.write_results(out / "results.json", result)
    (out / "report.md").write_text(qa_bench.report_md(result, command, overrides), encoding="utf-8")
    (out / "command.txt").write_text(f"{command}\ncommit {commit}\n", encoding="utf-8")
    print(qa_bench.report_md(result, command, overrides))
    print(f"wrote {out / 'results.json'}, {out / 'report.md'}")
    return 0


def _freeform(args: argparse.Namespace, cfg: Config) -> int:
    from edge_assist.evaluation import qa_bench, qa_freeform, qa_freeform_report

    files = [Path(f) for f in args.questions]
    missing = [f for f in files if not f.is_file()]
    if missing:
        raise EdgeAssistError(f"no question file {missing[0]}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    command = "edge-assist " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:] else ""
    # The code that answers is the code at the start: commits landing during a long run are not it.
    commit = qa_freeform_report.commit_of(Path(qa_freeform.__file__).parent)
    result = qa_freeform.run(
        cfg,
        Path(args.dataset),
        files,
        args.variant,
        progress=lambda msg: print(msg, file=sys.stderr, flush=True),
    )
    overrides = dict(x.split("=", 1) for x in override_items(args) if "=" in x)
    result["command"] = command
    result["commit"] = commit
    result["models"] = f"llm={cfg.models.llm}, text_encoder={cfg.models.text_encoder}"
    result["config_overrides"] = overrides
    qa_bench.write_results(out / "results.json", result)
    report = qa_freeform_report.report_md(result, command, overrides)
    (out / "report.md").write_text(report, encoding="utf-8")
    (out / "command.txt").write_text(f"{command}\ncommit {result['commit']}\n", encoding="utf-8")
    print(report)
    print(f"wrote {out / 'results.json'}, {out / 'report.md'}")
    return 0
