"""How well a plain list's hard orderings (`edge_assist/tasks/listed.py`) match the task graphs
its steps came from, without any recording.

    python -m benchmarks.eval_list_orders [--splits train,val] [--show N] [--orders N] [--out FILE]

For each task with a graph, its steps are given as a plain list (in the order a stream's task
context lists them for CaptainCook4D recipes, in file order for the other tasks),
`list_task` orders them, and its orderings (the pairs "i before
j", transitively, as the tracker reads them) are compared with the graph's:

- precision: the list's orderings the graph holds too (a wrong one is a false "skipped" or
  "order" alert on a wearer's own list);
- recall: the graph's orderings the list recovers (the rest are swaps it lets through).

CaptainCook4D pairs are counted once per recipe of a split (the splits hold the same 24
recipes, so their figures are one). "other lists" are `tests/data/list_tasks/`. `--show N`
prints up to N wrong and missed orderings per source, to read. `--orders N` also tracks N
random orders each graph allows, per task, with the task given as its list: the skipped-step
and order findings raised on them are false alarms (loads the text encoder).
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from benchmarks.results_io import ROOT
from edge_assist.evaluation.captaincook import DEFAULT_DATASET
from edge_assist.evaluation.harness import Dataset
from edge_assist.tasks.formats import load_file
from edge_assist.tasks.library import TaskLibrary, parse_listed_steps
from edge_assist.tasks.listed import list_task
from edge_assist.tasks.model import Task

EXAMPLES = (
    ROOT / "edge_assist" / "data" / "tasks" / "examples",
    ROOT / "tests" / "data" / "tasks",
)
# Other cuisines, a lab protocol and an assembly, written while the rules were tuned: a
# check that they carry over, not a held-out set.
OTHER_LISTS = ROOT / "tests" / "data" / "list_tasks"


def closure(task: Task) -> set[tuple[str, str]]:
    """(earlier text, later text) for every ordering the task's graph implies."""
    masks = task.ancestor_masks()
    return {
        (task.steps[i].text, s.text)
        for j, s in enumerate(task.steps)
        for i in range(task.n)
        if masks[j] >> i & 1
    }


def listed_pairs(texts: Sequence[str]) -> set[tuple[str, str]]:
    return closure(list_task("listed", "listed", texts))


def recipe_lists(ds: Dataset, split: str) -> Iterator[tuple[str, tuple[str, ...]]]:
    seen: set[str] = set()
    for rid in ds.recordings(split):
        line = ds.stream(split, "paraphrased", rid).read_text(encoding="utf-8").splitlines()[0]
        meta = json.loads(line)["meta"]
        if meta["recipe"] not in seen:
            seen.add(meta["recipe"])
            yield meta["recipe"], parse_listed_steps(meta["task_context"])[1]


def valid_orders_findings(
    items: Sequence[tuple[str, Task, Sequence[str]]], orders: int, seed: int = 0
) -> int:
    """Skipped-step and order findings the tracker raises, on the task as its list, over
    `orders` random orders its graph allows per task, each step's own text as its caption:
    every one is a false alarm a wearer who did nothing wrong would hear."""
    from edge_assist.config import Config
    from edge_assist.inference.loader import load_text_encoder
    from edge_assist.tasks import findings as F
    from edge_assist.tasks.tracker import StepTracker
    from edge_assist.tasks.vector_cache import VectorCache

    vc = VectorCache(load_text_encoder(Config()).encode)
    rng = random.Random(seed)
    out = 0
    for name, graph, texts in items:
        anc = graph.ancestor_masks()
        for _ in range(orders):
            tracker = StepTracker(list_task(name, name, texts), vc.get, vectors=vc)
            done = 0
            while done != (1 << graph.n) - 1:
                j = rng.choice([j for j in range(graph.n) if not done >> j & 1 and anc[j] & ~done == 0])
                done |= 1 << j
                st = tracker.observe(graph.steps[j].text)
                out += sum(f.kind in (F.PREREQUISITE, F.ORDER) for f in st.findings)
    return out


def score(items: Sequence[tuple[str, Task, Sequence[str]]], show: int, orders: int = 0) -> dict[str, Any]:
    tp = fp = fn = 0
    wrong: list[str] = []
    missed: list[str] = []
    for name, graph, texts in items:
        truth, got = closure(graph), listed_pairs(texts)
        tp += len(got & truth)
        fp += len(got - truth)
        fn += len(truth - got)
        wrong += [f"{name}: {a!r} -> {b!r}" for a, b in sorted(got - truth)]
        missed += [f"{name}: {a!r} -> {b!r}" for a, b in sorted(truth - got)]
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    found = valid_orders_findings(items, orders) if orders else None
    return {
        "valid_orders": orders * len(items),
        "findings_on_valid_orders": found,
        "tasks": len(items),
        "orderings": tp + fn,
        "listed": tp + fp,
        "precision": round(p, 4),
        "recall": round(r, 4),
        "wrong": wrong[:show],
        "missed": missed[:show],
    }


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--splits", default="train,val")
    ap.add_argument("--dataset", default=str(DEFAULT_DATASET))
    ap.add_argument("--show", type=int, default=0, help="wrong and missed orderings printed per source")
    ap.add_argument("--out", default="", help="write the results as JSON here")
    ap.add_argument("--orders", type=int, default=0, help="random graph-valid orders tracked per task")
    args = ap.parse_args(argv)
    ds = Dataset.open(args.dataset)
    lib = TaskLibrary.load()
    res: dict[str, Any] = {}
    for split in args.splits.split(","):
        items = []
        for recipe, texts in recipe_lists(ds, split):
            graph = lib.get(recipe)
            assert graph is not None and {s.text for s in graph.steps} == set(texts), recipe
            items.append((recipe, graph, texts))
        res[f"captaincook4d {split}"] = score(items, args.show, args.orders)
    for source, dirs in (("examples", EXAMPLES), ("other lists", (OTHER_LISTS,))):
        tasks = [load_file(p) for d in dirs for p in sorted(d.glob("*.toml"))]
        res[source] = score([(t.name, t, [s.text for s in t.steps]) for t in tasks], args.show, args.orders)
    for source, r in res.items():
        print(
            f"{source}: {r['tasks']} tasks, {r['orderings']} orderings, precision {r['precision']:.3f}, "
            f"recall {r['recall']:.3f}"
            + (
                f"; {r['findings_on_valid_orders']} findings on {r['valid_orders']} valid orders"
                if args.orders
                else ""
            )
        )
        for w in r["wrong"]:
            print("  wrong ", w)
        for m in r["missed"]:
            print("  missed", m)
    if args.out:
        Path(args.out).write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
