"""Stop words: the English words that name nothing to look up, compare or remember.

`FUNCTION_WORDS` is what every content-word filter leaves out. Each filter then leaves out
the words its own texts use without saying anything, and those are named sets here:
`STEP_STOP_WORDS` (a caption against a recipe step), `QUERY_STOP_WORDS` (a question against
memory's entity names), `ANSWER_STOP_WORDS` (an answer against its evidence) and
`PERIOD_FILLER` (a "what did I cook" question around its time). The caption parse reads the
same kind of words by class (determiners, prepositions, ...), because each class does
something different in a clause.
"""

from __future__ import annotations

from edge_assist.text.numbers import CARDINALS


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Determiners, pronouns, auxiliaries, prepositions, conjunctions and question words.
FUNCTION_WORDS = _words(
    """a an the this that these those some any all no i me my we our you your he she it its they
    them their is am are was were be been being do does did have has had will would should could
    can may might not and or but so then to of in on at by for with from into onto over under up down
    out off about before after again there here just now first one what where when which who how"""
)

# A step and a caption share these without being the same step: grammar words, the verbs
# and manner of every step, hands and shapes, the wearer, small numbers (amounts are
# compared by value, not as words).
STEP_STOP_WORDS = (
    FUNCTION_WORDS
    | _words(
        """also another as both during each few further having doing mine more most must nor once
        only other own per quite really same shall still such than too until very whom whose why
        without yet while i'm im i've i'll it's let's"""
    )
    | _words(
        """begin beginning continue continuing get getting go going gone got make making made put
        putting set setting start starting take taking took taken use uses used using place
        placing placed"""
    )
    | _words("carefully gently slowly quickly well")
    | _words("hand hands left right side sides bit little piece pieces way thing things last next")
    | _words("person wearer someone user")
    | {w for w, n in CARDINALS.items() if n <= 10}
    | _words("half quarter")
)

# Words of a question that never name a thing in memory: the words of asking and of time.
QUERY_STOP_WORDS = FUNCTION_WORDS | _words(
    """whom whose why shall must if yes did done left put get got go going ones thing things time
    step steps please tell remind show find let know see saw use used next last"""
)

# An answer may add these to its evidence without adding a fact: the words of telling a
# memory back, of its time, and of talk.
ANSWER_STOP_WORDS = FUNCTION_WORDS | _words(
    """yours yourself done if yes right while each every also very too later earlier ago min h
    yesterday days day time moment saw see remember recall think okay ok well oh"""
)

# Words that may stand beside a named period without naming a thing to look up: "What did I
# cook for dinner at home yesterday?" (a meal, the place, filler).
PERIOD_FILLER = _words(
    "for dinner breakfast lunch supper brunch a the in kitchen at home all day then again there"
)

# -- by class, for the caption parse -----------------------------------------------------
DETERMINERS = _words(
    """a an the some any this that these those my your his her their our its each every another
    other all both few several more less much many enough no same such whole half remaining rest
    excess extra"""
)
PREPOSITIONS = _words(
    """into in on onto from with to of for over under at by off out inside across through around
    before after about near beside between without within along per against towards toward upon
    via using as like than behind above below beneath next up down away back together apart"""
)
# Words that end one clause and start the next: what follows has its own verb.
CLAUSE_CONJUNCTIONS = _words(
    "and then until till while or but so when once if unless because whilst where after before"
)
# "c" is the camera wearer in Ego4D-style narrations ("C picks up the knife").
PRONOUNS = _words(
    """i me you he him she it we us they them c itself themselves yourself myself someone
    something everything anything one ones which who what there here"""
)
AUXILIARIES = _words(
    """is are was were be been being am do does did has have had can could will would should may
    might must not let lets let's"""
)
# Words that finish a phrasal verb: "pick up", "put away", "set aside".
PARTICLES = _words("up down out off away back in over on aside together")
