"""`edge-assist tasks`: the task library (bundled recipes and procedures, and the wearer's own).

edge-assist tasks list                 every task: name, steps, where it comes from
edge-assist tasks show NAME            its steps, what must come first, details, hazards
edge-assist tasks check FILE           validate a task file (.toml, a .txt list of steps, or
                                       a CaptainCook4D .json)
edge-assist tasks add FILE             check it and copy it into <data_dir>/tasks/
"""

from __future__ import annotations

import argparse
import json

from edge_assist.commands.options import config_from_args
from edge_assist.errors import EdgeAssistError
from edge_assist.tasks.formats import load_file
from edge_assist.tasks.library import TaskLibrary, add_user_task
from edge_assist.tasks.model import Task

USER_DIR = "tasks"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "tasks",
        help="the task library: list, show, check or add tasks",
        description="The procedures the step tracker knows (recipes, repairs, protocols).",
    )
    s = p.add_subparsers(dest="tasks_cmd", metavar="ACTION")
    s.add_parser("list", help="every task in the library")
    show = s.add_parser("show", help="one task's steps and graph")
    show.add_argument("name")
    show.add_argument("--json", action="store_true", help="print the task as JSON")
    check = s.add_parser("check", help="validate a task file (.toml, .txt list, CaptainCook4D .json)")
    check.add_argument("file")
    add = s.add_parser("add", help="check a task file and add it to the wearer's library")
    add.add_argument("file")
    p.set_defaults(func=_tasks, _parser=p)


def _library(args: argparse.Namespace) -> TaskLibrary:
    return TaskLibrary.load([config_from_args(args).data_path(USER_DIR)])


def _render(task: Task) -> str:
    lines = [f"{task.name}: {task.title} ({task.kind}, {task.n} steps)", f"  source: {task.source}"]
    for s in (task.steps[i] for i in task.topological()):
        after = f"  after {', '.join(s.after)}" if s.after else "  (may start at once)"
        lines.append(f"  [{s.id}] {s.text}")
        extra = []
        d = s.details.to_json()
        if d:
            extra.append("details " + json.dumps(d, ensure_ascii=False))
        if s.hazards:
            extra.append("hazards " + ", ".join(s.hazards))
        lines.append("      " + after.strip() + ("; " + "; ".join(extra) if extra else ""))
    return "\n".join(lines)


def _tasks(args: argparse.Namespace) -> int:
    cmd = getattr(args, "tasks_cmd", None)
    if cmd is None:
        args._parser.print_help()
        return 2
    if cmd == "list":
        lib = _library(args)
        for t in lib.tasks():
            print(f"{t.name:32s} {t.n:3d} steps  {t.kind:10s} {t.title}")
        print(f"{len(lib)} tasks")
        return 0
    if cmd == "show":
        lib = _library(args)
        task = lib.get(args.name)
        if task is None:
            raise EdgeAssistError(f"no task named {args.name!r}; `edge-assist tasks list` shows the names")
        print(json.dumps(task.to_json(), indent=1, ensure_ascii=False) if args.json else _render(task))
        return 0
    if cmd == "check":
        task = load_file(args.file, max_bytes=config_from_args(args).limits.task_file_bytes)
        print(
            f"{args.file}: ok: {task.name!r}, {task.n} steps, {sum(len(s.after) for s in task.steps)} "
            f"ordering edges"
        )
        return 0
    if cmd == "add":
        cfg = config_from_args(args)
        task, dest = add_user_task(args.file, cfg.data_path(USER_DIR), max_bytes=cfg.limits.task_file_bytes)
        print(f"added {task.name!r} ({task.n} steps) as {dest}")
        return 0
    raise EdgeAssistError(f"unknown tasks action {cmd!r}")
