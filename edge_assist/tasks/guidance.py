"""What the tracker's state says to a procedure question ("what's next?", "did I skip anything?",
"how far am I?"), as one sentence: the LLM may phrase it, never decide it."""

from __future__ import annotations

from edge_assist.tasks.findings import TrackerState
from edge_assist.tasks.tracker import StepTracker


def _missed(tracker: StepTracker, st: TrackerState) -> list[str]:
    """Steps not done although a step that must come after them is (graph, not list)."""
    task = tracker.task
    done = set(st.done)
    idx = task.index()
    anc = task.ancestor_masks()
    return [
        task.steps[i].text
        for i in task.topological()
        if task.steps[i].id not in done and any(anc[idx[d]] >> i & 1 for d in done)
    ]


def guidance(intent: str, st: TrackerState, tracker: StepTracker) -> str:
    """A sentence from the tracker's state; the LLM may phrase it, never decide it."""
    task = tracker.task
    title = task.title
    missed = _missed(tracker, st)
    if intent == "next":
        avail = [s for s in st.available if s != st.step_id]
        if not avail:
            return (
                f"That was the last step of {title}: it is done."
                if st.k >= st.n_steps
                else "Finish the step you are on first."
            )
        if st.n_steps - st.k == len(missed):
            # Nothing is left but what was skipped: the task is done, bar those.
            return f"Every other step of {title} is done; you skipped: " + "; ".join(missed[:3]) + "."
        first = st.text_of(avail[0])
        more = f" (or: {st.text_of(avail[1])})" if len(avail) > 1 else ""
        return f"Next: {first}.{more}"
    if intent == "missed":
        if not missed:
            # "did I skip anything?" is a yes/no question: with every step done, its answer is a "No"
            to_do = [st.text_of(s.id) for s in task.steps if s.id not in st.done]
            if not to_do:
                return f"No, nothing: every step of {title} is done."
            more = f"; and {len(to_do) - 3} more" if len(to_do) > 3 else ""
            # no "No" here: asked when the wearer has stopped, a step still to do was forgotten
            return (
                "Nothing skipped so far: every step that should be done by now is done. Still to do: "
                + "; ".join(to_do[:3])
                + more
                + "."
            )
        return "Not done yet, though later steps are: " + "; ".join(missed[:3]) + "."
    left = [s.id for s in task.steps if s.id not in st.done]
    said = f"{st.k} of {st.n_steps} steps of {title} done; {len(left)} to go"
    if not left:
        return f"{said}."
    # "am I nearly done?", "what's left?": the steps to go, by name, the first few of many
    more = f"; and {len(left) - 3} more" if len(left) > 3 else ""
    return f"{said}: " + "; ".join(st.text_of(s) for s in left[:3]) + more + "."
