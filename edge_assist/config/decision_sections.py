"""The settings of deciding: the reasoner, retrieval, the intervention policy and the scheduler.

Every key is declared once with its default, its unit and its range (`setting`).
"""

from __future__ import annotations

from dataclasses import dataclass

from edge_assist.config.setting import setting


@dataclass(frozen=True)
class ReasonerConfig:
    context_captions: int = setting(
        4, "recent captions shown to the reasoner with the current one (count)", lo=0, hi=64
    )
    max_tokens: int = setting(
        256,
        "longest reasoner answer (tokens); the schemas cap each field, so this only binds on a rambling "
        "model",
        lo=16,
        hi=4096,
    )
    temperature: float = setting(0.0, "sampling temperature of decisions", lo=0, hi=2)
    task_context: str = setting("", "what the wearer is doing (a recipe, a procedure), given to every pass")
    task: str = setting(
        "",
        "the task under way, by its name in the task library (`edge-assist tasks list`); empty: the stream's "
        "metadata names it, the task context lists its steps, or it is recognised from the captions",
    )
    decider: str = setting(
        "gate",
        "who decides a proactive step: gate (a classifier learned from people's labels over the task "
        "tracker's "
        "findings, milliseconds), llm (the reasoner's pass 1), or gate+llm (the LLM where the gate is "
        "unsure)",
        choices=("gate", "llm", "gate+llm"),
    )
    gate_file: str = setting(
        "", "trained gate model (path); empty: the one that ships (edge_assist/data/gate.json)"
    )
    unsure_band: float = setting(
        0.1,
        "gate+llm: a gate probability this close to the threshold is left to the LLM (probability)",
        lo=0,
        hi=1,
    )
    phrasing: str = setting(
        "template",
        "how a gate decision is worded: template (at once), or llm (one sentence checked against the "
        "template; "
        "about 2 s more to the first word with SmolLM2 on 2 cores, benchmarks/results/bench_decider.json)",
        choices=("llm", "template"),
    )
    hazards: bool = setting(
        True,
        "Safety alerts from the hazard detector (edge_assist/data/hazard_lexicon.toml, hazard_model.json)",
    )
    query_search: str = setting(
        "always",
        "a wearer's question: always search memory first, or let pass 1 answer from the recent captions when "
        "it can",
        choices=("always", "auto"),
    )
    answerer: str = setting(
        "grounded",
        "how questions are answered: grounded (the model chooses a remembered moment, the answer is composed "
        "from it, or 'I don't remember') or free (the model writes the answer from retrieved context)",
        choices=("grounded", "free"),
    )
    answer_min_score: float = setting(
        0.0,
        "grounded answers: a moment whose probability of being what the question is about (the answer gate, "
        "reasoner.answer_gate_file) is below this is not evidence; 0 = the gate's own threshold, chosen on "
        "val (0-1)",
        lo=0,
        hi=1,
    )
    answer_gate_file: str = setting(
        "",
        "grounded answers: trained answer gate (path); empty: the one that ships "
        "(edge_assist/data/answer_gate.json, "
        "`python -m edge_assist.evaluation.qa_tune`)",
    )
    answer_choice_margin: float = setting(
        0.05,
        "grounded answers: moments within this probability of the best one are put to the model to choose "
        "among; "
        "a clear winner is taken as is (a 135M model chooses near chance among far-apart options); 1 = the "
        "model "
        "always chooses (for a bigger model) (0-1)",
        lo=0,
        hi=1,
    )
    answer_rephrase: bool = setting(
        False, "grounded answers: let the model rephrase the composed answer (kept only when faithful to it)"
    )
    reconstruction_max_tokens: int = setting(
        256, "longest reconstructed account per path group (tokens)", lo=16, hi=4096
    )
    progress_cue: str = setting(
        "off",
        "when pass 1 stays silent but the task tracker has a finding of a kind in `cue_findings`: "
        "off, or speak an Error Recovery about it (for a reasoner too small to act on the findings it is "
        "shown)",
        choices=("off", "speak"),
    )
    cue_findings: str = setting(
        "prerequisite_missing,order_violation,deviation",
        "tracker finding kinds the progress cue speaks, comma-separated (prerequisite_missing, "
        "order_violation, "
        "repeated_step, deviation, unmatched_action)",
    )


@dataclass(frozen=True)
class RetrievalConfig:
    top_k: int = setting(5, "hits per retrieval path (count)", lo=1, hi=100)
    temporal: bool = setting(True, "search the caption / activity / session vectors")
    graph: bool = setting(True, "search the entity graph")
    visual: bool = setting(True, "search keyframe vectors (needs an image encoder)")
    multiscale: bool = setting(True, "search activity and session summaries too (false: clip level only)")
    reconstruction: bool = setting(True, "turn retrieved clips into a query-conditioned account")
    past_sessions: bool = setting(
        True,
        "a proactive search also reads earlier sessions (earlier hours and days; Memory Link, Habit Coaching "
        "and Routine Optimization need them); false: the current session only",
    )
    max_clips_per_group: int = setting(6, "clips one path group hands to reconstruction (count)", lo=1, hi=64)
    context_chars: int = setting(
        2400, "longest fused retrieved context given to pass 2 (characters)", lo=200, hi=100000
    )


@dataclass(frozen=True)
class PolicyConfig:
    chattiness: str = setting(
        "quiet",
        "how readily it speaks: the gate's threshold for quiet (about 1 false alarm per hour on val), "
        "normal (2.5), chatty (5); normal and chatty also shorten cooldowns and say a step done late "
        "after it was reported skipped",
        choices=("quiet", "normal", "chatty"),
    )
    cooldown_s: dict = setting(
        {
            "NSG": 30.0,
            "ER": 20.0,
            "RR": 60.0,
            "MR": 60.0,
            "TR": 120.0,
            "HC": 600.0,
            "ML": 300.0,
            "RO": 600.0,
            "TU": 30.0,
        },
        "per sub-type: no second proactive service of that kind within this time (seconds; "
        "normal keeps half of it, chatty a quarter)",
    )
    max_per_hour: int = setting(
        0, "global cap on proactive services per hour; 0 = off (count)", lo=0, hi=3600
    )
    repeat_window_s: float = setting(300.0, "never repeat the same advice within this time (seconds)", lo=0)
    error_repeat_window_s: float = setting(
        1800.0,
        "the same Error Recovery sentence (a step skipped, out of order or done otherwise) is not said "
        "again within this time; the same advice in another sentence keeps repeat_window_s (seconds)",
        lo=0,
    )
    do_not_disturb: bool = setting(False, "stay silent except for Safety and answers to questions")
    repeat_similarity: float = setting(
        0.9,
        "advice this similar (text-encoder cosine) to a recent one counts as a repeat; 1 = exact text only "
        "(0-1)",
        lo=0,
        hi=1,
    )
    safety_repeat_window_s: float = setting(
        30.0, "the same Safety alert is not repeated within this time (seconds)", lo=0
    )


@dataclass(frozen=True)
class SchedulerConfig:
    step_budget_s: float = setting(
        10.0, "time allowed for one step, caption to output (seconds)", lo=0.1, hi=3600
    )
    search_policy: str = setting(
        "degrade",
        "when a search does not fit the budget: degrade it or defer it to the next idle slot",
        choices=("degrade", "defer"),
    )
    retrieval_estimate_s: float = setting(
        0.5, "first guess of the three retrieval paths' cost, replaced by measurements (seconds)", lo=0
    )
    reconstruction_estimate_s: float = setting(
        6.0, "first guess of reconstructing all paths' hits, replaced by measurements (seconds)", lo=0
    )
    pass2_estimate_s: float = setting(
        2.0, "first guess of the second reasoner pass, replaced by measurements (seconds)", lo=0
    )
    stats_interval_s: float = setting(
        60.0, "how often run statistics go to the JSONL log; 0 = only at the end (seconds)", lo=0
    )
