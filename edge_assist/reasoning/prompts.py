"""Every prompt the assistant sends, versioned and sized for a 2k-token context.

The reasoner may be a 135M-parameter model, so prompts are short, use plain words,
list the services once with their code, and ask the model to describe and compare
*before* it decides (the schemas order "observation"/"check" first). `PROMPT_VERSION`
is written into every decision trace: change it whenever a prompt's wording changes so
measured results can be tied to the prompts that produced them.
"""

from __future__ import annotations

from collections.abc import Sequence

from edge_assist.inference.base import Message
from edge_assist.retrieval.prompts import CONTEXT_CHARS, LINE_CHARS, caption_lines, clip, clip_time

PROMPT_VERSION = "2026-11-29.1"

# Characters, not tokens (about 4 a token); the line and context budgets are retrieval's.
TASK_CHARS = 900

SERVICES = (
    "SA safety: a hazard right now (knife, heat, fire, spill).\n"
    "TU tool use: how to use the tool in hand.\n"
    "NSG next step: the task's next step is due.\n"
    "ER error: the wearer did a step wrong or out of order.\n"
    "RR resource: something needed is missing or forgotten.\n"
    "MR memory recall, TR task reminder: needs what happened earlier.\n"
    "HC habit, ML memory link, RO routine: needs past days."
)

PASS1_SYSTEM = (
    "You are a quiet assistant inside smart glasses. You read captions of what the wearer does "
    "and decide whether to speak. Stay silent unless speaking clearly helps now.\n"
    "Services:\n" + SERVICES + "\n"
    "Write: observation = what the wearer does NOW; problem = compare it with the task steps: "
    "is it dangerous, wrong, or is a next step due? (or none). Then reply: silent, respond "
    "(say = one short sentence to the wearer, service = its code) or search (search_query = what "
    "to look up in memory). Leave unused fields empty, service none."
)

# Two worked examples on a task that is not in any test set: one where speaking helps,
# one where it does not. A 135M model copies form far better than it follows rules, and
# leans toward the last example it saw: silence goes last, as it is the common case.
PASS1_EXAMPLES: tuple[tuple[str, str], ...] = (
    (
        "Task: Make tea\nSteps done: boil water in the kettle; remove the tea bag\n"
        "Steps not done yet: put a tea bag in the cup; pour the water into the cup\n"
        "NOW is like the step: remove the tea bag\n"
        "Listed before it but not done: put a tea bag in the cup; pour the water into the cup\n"
        "Earlier captions:\n[0:00-0:40] boil water in the kettle\n"
        "NOW [0:41-0:50]: takes a tea bag out of an empty cup",
        '{"observation": "the wearer removes a tea bag that was never put in", '
        '"problem": "steps skipped: tea bag and water", "reply": "respond", '
        '"say": "You skipped a step: put the tea bag in and pour the water first.", '
        '"search_query": "", "service": "ER"}',
    ),
    (
        "Task: Make tea\nSteps done: boil water in the kettle; put a tea bag in the cup\n"
        "Steps not done yet: pour the water into the cup; remove the tea bag\n"
        "NOW is like the step: put a tea bag in the cup\n"
        "Earlier captions:\n[0:00-0:40] boil water in the kettle\n"
        "NOW [0:41-0:55]: put a tea bag in the cup",
        '{"observation": "the tea bag went in after the water boiled", '
        '"problem": "none, steps in order", "reply": "silent", '
        '"say": "", "search_query": "", "service": "none"}',
    ),
)

PASS2_SYSTEM = (
    "You are a quiet assistant inside smart glasses. Memory was searched for you. "
    "Decide whether to speak now, using the memory only if it is relevant.\n"
    "Services:\n" + SERVICES + "\n"
    "Write: facts = the memory facts that matter, with their times; then reply "
    "(silent or respond), say (one short sentence to the wearer) and service (its code)."
)

QUERY_SYSTEM = (
    "You are the assistant inside smart glasses. The wearer asked a question. Write facts = "
    "what the recent captions say about it. If they answer it, reply=answer and say the answer. "
    "Otherwise reply=search and write search_query: what to look up in the wearer's memory."
)

ANSWER_SYSTEM = (
    "You are the assistant inside smart glasses. Answer the wearer's question from the memory "
    "below. Write facts = the facts used, with their times; then the_answer = a short answer."
)

OFFLINE_COARSE_SYSTEM = (
    "You answer questions about a recorded video from its summaries. Write facts = the "
    "summary facts that matter; is_enough = true only if they answer the question; then the_answer."
)


def pass1_messages(
    *,
    task: str,
    activity_summary: str,
    recent: Sequence[tuple[float, float, str]],
    now: tuple[float, float, str],
    progress: str = "",
) -> list[Message]:
    """`progress` (the task tracker's `TrackerState.prompt_text`) replaces the raw task when known."""
    head = f"Task: {progress}" if progress else f"Task: {clip(task, TASK_CHARS) or 'unknown'}"
    if len(head) > TASK_CHARS + 300:
        head = head[: TASK_CHARS + 299] + "…"
    activity = f"Recent activity: {clip(activity_summary, LINE_CHARS)}\n" if activity_summary.strip() else ""
    user = (
        f"{head}\n{activity}"
        f"Earlier captions:\n{caption_lines(recent, CONTEXT_CHARS // 3)}\n"
        f"NOW [{clip_time(now[0], now[1])}]: {clip(now[2], LINE_CHARS)}"
    )
    msgs: list[Message] = [{"role": "system", "content": PASS1_SYSTEM}]
    for example_user, example_answer in PASS1_EXAMPLES:
        msgs.append({"role": "user", "content": example_user})
        msgs.append({"role": "assistant", "content": example_answer})
    msgs.append({"role": "user", "content": user})
    return msgs


def query_pass1_messages(
    *, task: str, recent: Sequence[tuple[float, float, str]], now: tuple[float, float, str], question: str
) -> list[Message]:
    user = (
        f"Task: {clip(task, TASK_CHARS) or 'unknown'}\n"
        f"Recent captions:\n{caption_lines([*recent, now], CONTEXT_CHARS // 3)}\n"
        f"Question: {clip(question, LINE_CHARS)}"
    )
    return [{"role": "system", "content": QUERY_SYSTEM}, {"role": "user", "content": user}]


def pass2_messages(
    *, task: str, now: tuple[float, float, str], query: str, why: str, retrieved: str
) -> list[Message]:
    user = (
        f"Task: {clip(task, TASK_CHARS // 2) or 'unknown'}\n"
        f"Memory (searched for: {clip(query, LINE_CHARS)}; because: {clip(why, LINE_CHARS) or '-'}):\n"
        f"{clip(retrieved, CONTEXT_CHARS) or '(nothing found)'}\n"
        f"NOW [{clip_time(now[0], now[1])}]: {clip(now[2], LINE_CHARS)}"
    )
    return [{"role": "system", "content": PASS2_SYSTEM}, {"role": "user", "content": user}]


def answer_messages(
    *, task: str, question: str, retrieved: str, choices: Sequence[str] = ()
) -> list[Message]:
    opts = ("\nOptions: " + " | ".join(choices) + "\nAnswer with one option exactly.") if choices else ""
    user = (
        f"Task: {clip(task, TASK_CHARS // 2) or 'unknown'}\n"
        f"Memory:\n{clip(retrieved, CONTEXT_CHARS) or '(nothing found)'}\n"
        f"Question: {clip(question, LINE_CHARS)}{opts}"
    )
    return [{"role": "system", "content": ANSWER_SYSTEM}, {"role": "user", "content": user}]


def coarse_messages(*, question: str, summaries: str, choices: Sequence[str] = ()) -> list[Message]:
    opts = ("\nOptions: " + " | ".join(choices)) if choices else ""
    user = (
        f"Summaries:\n{clip(summaries, CONTEXT_CHARS) or '(none)'}\n"
        f"Question: {clip(question, LINE_CHARS)}{opts}"
    )
    return [{"role": "system", "content": OFFLINE_COARSE_SYSTEM}, {"role": "user", "content": user}]
