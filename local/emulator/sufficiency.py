"""When is the evidence enough? What the emulator's planner reads a question to ask, and which passages answer it.

A question becomes needs, one per intent (planner.decompose's sub-queries), each with
- anchors: the names it mentions (codes, CamelCase, capitalised words: `ACME-4012`, `Team Falcon`);
- terms: its other content words as roots (`owns`, `owner` -> `own`); words every question has
  (`mean`, `long`, `many`) do not count;
- focus: for a wh-question, the words right after the wh-word ("Who leads ..." -> lead, "In which
  city is ..." -> city, "How long are audit logs kept" -> audit logs): what the answer is about.

A need is supported by a passage (one retrieved chunk) that names one of its anchors and holds
SUFFICIENT of its weighted terms (an anchor counts double) including the focus — or by a chain:
a passage about the anchor that names a new entity (a lead) on a line bearing on the need, then a
passage about that lead holding what the first lacked (a hop), at most MAX_LINKS passages long.
The planner (agentic_stream.py) stops when every need is supported, searches for what is missing
otherwise, and stops as well when nothing is left to try. Deterministic: no randomness, ties
broken by order of retrieval. It makes no claim about how Bedrock's planner judges evidence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

from local.emulator.index import Hit
from local.emulator.planner import MAX_SUB_QUERIES, Intent, intents, is_comparative
from local.emulator.text import STOPWORDS, counted, root, roots, sentences, statements, words

SUFFICIENT = 0.75  # share of a need's weighted terms the supporting passages must hold...
SUFFICIENT_ANCHORED = 0.6  # ...or, when they name the entity the need is about, this share
ANCHOR_WEIGHT = 2
MAX_LINKS = 3  # a supporting chain: the anchor's passage and up to two hops
CHAIN_STARTS = 5  # passages about the anchor tried as the start of a chain
CANDIDATES_PER_LEAD = 3  # passages tried as the next link for one lead
LEADS_PER_NEED = 2  # leads one need follows per planning step
FOCUS_WORDS = 2
LABEL_CHARS = 40  # "Owner: ...", "Team lead: ...": a statement's label is short
# Words a question needs but an answer rarely repeats ("What does X mean?", "How long ...").
_WEAK_TEXT = """mean means meaning happen happened work works working need needs use used get got make kind type
    way long many much often quickly quick soon must can could should would may might exactly currently still
    really tell know explain describe become became like want wanted first behind below above after before
    under within without per via across among against during"""
_WEAK = frozenset(root(w) for w in _WEAK_TEXT.split())
_DETERMINERS_TEXT = "the a an its their his her our my your this that these those"
_DETERMINERS = frozenset(_DETERMINERS_TEXT.split())
_AUX_TEXT = "is are was were do does did can could must should will would has have had may might"
_AUX = frozenset(_AUX_TEXT.split())
_WH = re.compile(
    r"^\s*(?:(?:in|on|for|at|from|to|by|under|with|of)\s+)?"
    r"(?:who|whom|whose|what|which|where|when|why|how(?:\s+(?:many|much|long|often|quickly|soon|far|big|large))?)\b",
    re.IGNORECASE,
)
_FIGURE = re.compile(r"(?<![-\w.])\d")  # a number, not the digits of a code such as ACME-4012
_FIGURE_QUESTION = re.compile(
    r"^\s*(?:(?:in|on|for|at)\s+)?(?:how\s+(?:many|much|long|often|quickly|soon|far|big|large)|when)\b"
    r"|\b(?:maximum|minimum|default|limits?|price|size|number|cost)\b",
    re.IGNORECASE,
)
_NUMBER_WORD = re.compile(
    r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|hundred)\b", re.I
)
_PLACE = re.compile(r"\b(?:in|at|from|based|located)\s+(?:the\s+)?[A-Z][a-z]")
_MONEY = re.compile(
    r"\d[\d,.]*\s*(?:USD|EUR|GBP|dollars?|euros?)\b|[$\u20ac\u00a3]\s*\d|\b(?:free|custom pricing)\b", re.I
)
QUANTITY, PLACE, MONEY = "<quantity>", "<place>", "<money>"
# Words asking for a kind of value the answer states but does not name ("In which city ..." is
# answered by "based in Berlin", "What share of traffic ..." by "5%"): they ask for the kind.
_KIND_TEXT = {
    PLACE: "city country location place office",
    QUANTITY: "size amount share percentage percent",
    MONEY: "cost price pay charge fee",
}
_KIND_OF = {root(word): kind for kind, text in _KIND_TEXT.items() for word in text.split()}
_ASKS_QUANTITY = re.compile(r"^\s*(?:how\s+(?:many|much|long|often|quickly|soon|far|big|large)|when)\b", re.IGNORECASE)
_NAME_WORD = re.compile(r"[A-Z][A-Za-z0-9]*(?:[-_.][A-Za-z0-9]+)*")
_CODE_LIKE = re.compile(r"^(?:[A-Z][A-Z0-9]*-\d+|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+|[A-Z]{2,}[0-9]*)$")
_GENERIC_NAMES_TEXT = """API APIS HTTP HTTPS JSON URL URI SDK CLI REST TLS SSL CSV PDF UTC GET POST PUT PATCH DELETE
    NOTE FAQ TODO AND NOT THE DNS CPU RAM SLA UTF ISO YAML XML USD EUR GBP HMAC SHA256 SMS NTP I A
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July
    August September October November December"""
_GENERIC_NAMES = frozenset(_GENERIC_NAMES_TEXT.split())
_TRIGGER_TEXT = """compare comparison contrast differ differs difference differences versus vs list summarize
    summarise summary overview enumerate every explain tell describe please show give find"""
_TRIGGERS = frozenset(_TRIGGER_TEXT.split())


@dataclass(frozen=True)
class Need:
    """One intent of the question, as the planner judges evidence for it."""

    text: str  # the sub-query planned for it
    anchors: tuple[frozenset[str], ...]  # each named entity, as the roots a passage must hold
    terms: frozenset[str]  # the other content roots
    focus: frozenset[str]  # roots the supporting passages must hold (empty: any)
    words_of: tuple[tuple[str, str], ...] = ()  # root -> the question's own word, for readable queries
    figure: bool = False  # the question asks for a figure (how many, how long, when, the maximum ...)
    compared: bool = False  # one side of a comparison: its aspects may come from several passages about it
    refers_back: bool = False  # "which version fixed it": starts from what supports the first part

    @property
    def named(self) -> frozenset[str]:
        return frozenset().union(*self.anchors) if self.anchors else frozenset()

    @property
    def weight(self) -> int:
        return ANCHOR_WEIGHT * len(self.anchors) + len(self.terms)

    def held(self, found: frozenset[str]) -> float:
        """Weighted share of the need that `found` (a passage's or a chain's roots) holds."""
        if not self.weight:
            return 1.0
        got = ANCHOR_WEIGHT * sum(1 for anchor in self.anchors if anchor <= found) + len(self.terms & found)
        return got / self.weight

    def about(self, found: frozenset[str]) -> bool:
        """Does a passage name one of the need's anchors (any passage does, for a need without one)?"""
        return not self.anchors or any(anchor <= found for anchor in self.anchors)

    def satisfied_by(self, found: frozenset[str]) -> bool:
        threshold = SUFFICIENT_ANCHORED if self.anchors and not self.compared else SUFFICIENT
        return self.held(found) >= threshold and self.focus <= found

    def missing_words(self, found: frozenset[str]) -> list[str]:
        """The need's own words for the roots `found` lacks (focus first): what a follow-up asks for."""
        wanted = [r for r in self.focus if r not in found] + sorted(self.terms - found - self.focus)
        lookup = dict(self.words_of)
        return [lookup.get(r, r) for r in dict.fromkeys(wanted)]


@dataclass(frozen=True)
class Chain:
    """Passages supporting a need: the anchor's passage first, then one per hop, with the leads followed."""

    links: tuple[Hit, ...]
    leads: tuple[str, ...] = ()  # leads[i] names the entity that links[i + 1] was found by
    found: frozenset[str] = field(default_factory=frozenset)

    def sufficient_for(self, need: Need) -> bool:
        return need.satisfied_by(self.found)


def kinds_in(text: str) -> frozenset[str]:
    """The kinds of value a text states, as pseudo-roots: a figure (`<quantity>`), a place
    ("based in Berlin": `<place>`), a price (`<money>`)."""
    kinds = set()
    if _FIGURE.search(text) or _NUMBER_WORD.search(text):
        kinds.add(QUANTITY)
    if _PLACE.search(text):
        kinds.add(PLACE)
    if _MONEY.search(text):
        kinds.add(MONEY)
    return frozenset(kinds)


@lru_cache(maxsize=8192)
def passage_roots(text: str) -> frozenset[str]:
    """A text's roots and the kinds of value it states."""
    return roots(text) | kinds_in(text)


def passage_text(hit: Hit) -> str:
    """The chunk under its document's title (a later chunk no longer holds it): what a passage is
    about. The title is a heading, so it is context, never a statement an answer quotes."""
    first = hit.document.text.lstrip().split("\n", 1)[0]
    if first.startswith("#") and not hit.chunk.text.lstrip().startswith(first):
        return f"{first}\n{hit.chunk.text}"
    return hit.chunk.text


def _hit_roots(hit: Hit) -> frozenset[str]:
    return passage_roots(passage_text(hit))


# -- reading the question ------------------------------------------------------------------------


def names_in(text: str, initial_names: bool = False) -> list[str]:
    """Names a sentence mentions, in order: codes, CamelCase and ALLCAPS words anywhere, and runs of
    capitalised words that are more than a sentence's (or a label's) capitalised first word
    ("Owner: Team Kestrel" -> Team Kestrel; with `initial_names`, as in a question, "Starter versus
    Pro" -> Starter, Pro). Generic acronyms, days and months are not names."""
    names: list[str] = []
    run: list[str] = []
    run_initial = False
    previous = ""

    def close() -> None:
        if run and (len(run) > 1 or initial_names or not run_initial or _CODE_LIKE.fullmatch(run[0])):
            names.append(" ".join(run))
        run.clear()

    for raw in text.split():
        core = raw.strip("()[]{}\"'`,.;:!?")
        initial = not previous or previous.endswith((":", ".", "!", "?"))
        capital = bool(_NAME_WORD.fullmatch(core)) and core not in _GENERIC_NAMES
        if capital and initial and core.lower() in STOPWORDS | _TRIGGERS | _AUX:
            capital = False  # "The", "What", "Compare" opening a sentence
        if raw[0] in "([{\"'" or not capital:
            close()
        if capital:
            run_initial = run_initial if run else initial
            run.append(core)
        if raw[-1] in ",.;:!?)]}\"'":
            close()
        previous = raw
    close()
    return list(dict.fromkeys(names))


def _name_roots(name: str) -> frozenset[str]:
    return frozenset(root(w) for w in words(name))


def _is_name(word: str) -> bool:
    return bool(_NAME_WORD.fullmatch(word)) and word not in _GENERIC_NAMES


def focus_of(question: str) -> list[str]:
    """The words a wh-question asks about: up to FOCUS_WORDS content words right after the wh-word
    (auxiliaries, articles and a name qualifying the next word skipped: "Which Acme team handles"
    -> team handles), ending at a name or a function word. A comparison has none: each of its sides
    is a need of its own."""
    match = _WH.match(question)
    if not match or is_comparative(question):
        return []
    rest = words(question[match.end() :])
    focus: list[str] = []
    for n, word in enumerate(rest):
        lower = word.lower()
        filler = lower in STOPWORDS or lower in _AUX or root(lower) in _WEAK
        qualifier = _is_name(word) and n + 1 < len(rest) and not _is_name(rest[n + 1])
        if not focus and (filler or qualifier):
            continue
        if filler or _is_name(word):
            break
        following = rest[n + 1] if n + 1 < len(rest) else ""
        if focus and (following.lower() in _DETERMINERS or _is_name(following)):
            break  # "team owns the runbook", "channel handles ACME-4290": a verb ends the noun phrase
        focus.append(word)
        if len(focus) == FOCUS_WORDS:
            break
    return focus


def need_for(
    intent: Intent,
    question_names: Sequence[str],
    focus: Sequence[str],
    figure: bool = False,
    inherited: Sequence[frozenset[str]] = (),
) -> Need:
    """The need behind one intent: its anchors are the question's names among its own words (or,
    for an intent that refers back to the first one's subject, that intent's anchors)."""
    own_roots = frozenset(root(w) for w in words(" ".join(intent.own)))
    anchors = tuple(dict.fromkeys(r for r in (_name_roots(n) for n in question_names) if r and r <= own_roots))
    if not anchors and intent.refers_back:
        anchors = tuple(inherited)
    named = frozenset().union(*anchors) if anchors else frozenset()
    plain = [w for w in intent.own if w.lower() not in _TRIGGERS]
    terms = frozenset(_KIND_OF.get(r, r) for r in (root(w) for w in words(" ".join(plain)))) - named - _WEAK - STOPWORDS
    focus_roots = frozenset(_KIND_OF.get(root(w), root(w)) for w in focus) & (terms | named)
    words_of = tuple((root(w), w) for w in plain)
    refers_back = intent.refers_back and not any(r <= own_roots for r in anchors)
    return Need(intent.query, anchors, terms, focus_roots, words_of, figure, refers_back=refers_back)


def needs_for(question: str) -> list[Need]:
    """One need per intent of the question (planner.intents), the focus on the first."""
    names = names_in(question, initial_names=True)
    focus = focus_of(question)
    figure = bool(_FIGURE_QUESTION.search(question))
    needs: list[Need] = []
    for n, intent in enumerate(intents(question)):
        own_focus = focus if n == 0 else focus_of(re.sub(r"^\s*(?:and|or|but)\s+", "", intent.raw))
        need = need_for(intent, names, own_focus, figure, needs[0].anchors if needs else ())
        need = replace(need, compared=is_comparative(question))
        if n == 0 and _ASKS_QUANTITY.match(question):  # "How long ...", "When ...": the answer is a figure
            need = replace(need, terms=need.terms | {QUANTITY}, focus=need.focus | {QUANTITY})
        needs.append(need)
    return needs


# -- judging the evidence ------------------------------------------------------------------------

# Whether a passage was retrieved by a query naming an entity (its roots): a hop counts only once
# the planner has searched for the lead; a passage that came back by chance links nothing.
Reached = Callable[[Hit, frozenset[str]], bool]


def leads_in(hit: Hit, need: Need, known: frozenset[str]) -> list[str]:
    """New names on the passage's sentences that bear on the need (share one of its terms): entities
    worth a hop, codes and CamelCase names (the most specific) first. The question's names
    (`known`) are not new."""
    wanted = need.terms | need.focus
    out = []
    for sentence in sentences(hit.chunk.text):
        if not roots(sentence) & wanted:
            continue
        for name in names_in(sentence):
            name_roots = _name_roots(name)
            if name_roots and not name_roots <= known and name not in out:
                out.append(name)
    return sorted(out, key=lambda name: 0 if _CODE_LIKE.fullmatch(name) else 1)


def _about(need: Need, hits: Sequence[Hit]) -> list[Hit]:
    """Passages naming the need's anchor, holding most of it first (ties: retrieval order)."""
    return sorted((h for h in hits if need.about(_hit_roots(h))), key=lambda h: -need.held(_hit_roots(h)))


def chains_for(
    needs: Sequence[Need], hits: Sequence[Hit], known: frozenset[str], reached: Reached
) -> list[Chain | None]:
    """Each need's best chain; a need referring back continues the first need's chain."""
    chains: list[Chain | None] = []
    for need in needs:
        prefix = chains[0] if need.refers_back and chains else None
        chains.append(best_chain(need, hits, known, reached, prefix))
    return chains


def best_chain(
    need: Need, hits: Sequence[Hit], known: frozenset[str], reached: Reached, prefix: Chain | None = None
) -> Chain | None:
    """The best supporting chain in the evidence: of the passages that support the need alone, the
    one with the best answering sentence (ties: retrieval order); else the first sufficient chain
    of hops; else the chain holding most of the need. With `prefix` (the chain of the part this
    one refers back to), chains continue it."""
    if prefix is not None:
        return _best_extension(need, prefix, hits, known, reached)
    about = _about(need, hits)
    direct = [Chain((h,), (), _hit_roots(h)) for h in about if need.satisfied_by(_hit_roots(h))]
    if direct:
        return max(direct, key=lambda chain: (*answer_score(need, chain), titled(need, chain.links[0])))
    best: Chain | None = None
    if need.compared:  # the aspects of one side, from two passages about it
        joined = _joined(need, about)
        if joined is not None:
            return joined
    for start in about[:CHAIN_STARTS] if need.anchors else ():  # a hop starts from the entity named
        for chain in _chains_from(Chain((start,), (), _hit_roots(start)), need, hits, known, reached):
            if chain.sufficient_for(need):
                return chain
            if best is None or need.held(chain.found) > need.held(best.found):
                best = chain
    return best


def _best_extension(need: Need, prefix: Chain, hits: Sequence[Hit], known: frozenset[str], reached: Reached) -> Chain:
    best = prefix
    for chain in _chains_from(prefix, need, hits, known, reached, MAX_LINKS + len(prefix.links) - 1):
        if chain.sufficient_for(need):
            return chain
        if need.held(chain.found) > need.held(best.found):
            best = chain
    return best


def _joined(need: Need, about: Sequence[Hit]) -> Chain | None:
    """Two passages naming the compared item that together hold its aspects (the second linked by
    the item's own name), or None."""
    for start in about[:CHAIN_STARTS]:
        first = _hit_roots(start)
        anchor = next(a for a in need.anchors if a <= first) if need.anchors else frozenset()
        for other in about:
            found = first | _hit_roots(other)
            if other is not start and anchor <= _hit_roots(other) and need.satisfied_by(found):
                name = " ".join(sorted(anchor))
                return Chain((start, other), (name,), found)
    return None


# -- which sentence answers ----------------------------------------------------------------------


def chain_adds(need: Need, chain: Chain) -> frozenset[str]:
    """What the chain's last passage adds to the earlier ones, of what the need asks."""
    before = frozenset().union(*(_hit_roots(h) for h in chain.links[:-1])) if len(chain.links) > 1 else frozenset()
    return ((need.terms | need.focus | need.named) & _hit_roots(chain.links[-1])) - before


def ranked_statements(need: Need, hit: Hit, weights: dict[str, int]) -> list[tuple[float, int, int, str]]:
    """The passage's statements, best answer first: (score, -length, -position, statement).

    A statement scores the weights of the roots it holds, and of those only its heading or list
    introduction holds (half, but whole for the question's names: a section titled by the entity
    is about it), one more under a heading naming the focus ("## Rotating an API key"), two more
    for a figure when the question asks for one, and two more for a fact labelled with the focus
    or a name of the question ("Team lead: Dana Okafor.")."""
    scored = []
    for position, (statement, context) in enumerate(statements(passage_text(hit))):
        if statement.endswith(":"):
            continue  # "Checks:" introduces a list; it states nothing
        own, around = passage_roots(statement), passage_roots(context)
        score: float = sum(w for r, w in weights.items() if r in own)
        score += sum(w * (1 if r in need.named else 0.5) for r, w in weights.items() if r in around and r not in own)
        score += 2 if need.figure and _FIGURE.search(statement) else 0
        score += 1 if need.focus and need.focus <= around else 0  # under a heading naming what is asked
        label, colon, _ = statement.partition(":")
        if (
            colon
            and len(label) <= LABEL_CHARS
            and (need.focus & roots(label) or any(a <= roots(label) for a in need.anchors))
        ):
            score += 2  # "Team lead: Dana Okafor.", "ACME-2204: invalid tax region.": a labelled fact
        scored.append((score, -len(statement.split()), -position, statement))
    return sorted(scored, reverse=True)


def answer_weights(need: Need, chain: Chain) -> dict[str, int]:
    """What a statement of the chain's last passage is scored on: what that passage adds (the
    question's names and its focus weigh 2, other terms 1) and the lead it was found by (2)."""
    # The lead counts for the part it was followed for, not for a part that refers back to it.
    weights = {r: 2 for r in _name_roots(chain.leads[-1])} if chain.leads and not need.refers_back else {}
    for r in chain_adds(need, chain):
        weights[r] = 2 if r in need.named or r in need.focus else 1
    return weights


def titled(need: Need, hit: Hit) -> bool:
    """Is the passage under a heading naming one of the need's anchors (the document about it)?"""
    headings = " ".join(line for line in passage_text(hit).splitlines() if line.lstrip().startswith("#"))
    return any(anchor <= roots(headings) for anchor in need.anchors)


def answer_score(need: Need, chain: Chain) -> tuple[float, int]:
    """The score of the chain's best answering statement, and minus its length (shorter is better)."""
    ranked = ranked_statements(need, chain.links[-1], answer_weights(need, chain))
    return (ranked[0][0], ranked[0][1]) if ranked else (0.0, 0)


def _chains_from(
    chain: Chain, need: Need, hits: Sequence[Hit], known: frozenset[str], reached: Reached, limit: int = MAX_LINKS
) -> Iterator[Chain]:
    """`chain`, then every chain extending it by a passage that a search for a lead of its last link
    reached and that adds something the need still lacks (depth first, best additions first)."""
    yield chain
    if chain.sufficient_for(need) or len(chain.links) >= limit:
        return
    wanted = (need.terms | need.focus) - chain.found
    taken = {h.chunk.chunk_id for h in chain.links}
    for lead in leads_in(chain.links[-1], need, known):
        lead_roots = _name_roots(lead)
        nexts = [
            h
            for h in hits
            if h.chunk.chunk_id not in taken
            and lead_roots <= _hit_roots(h)
            and wanted & _hit_roots(h)
            and reached(h, lead_roots)
        ]
        nexts.sort(key=lambda h: -len(wanted & _hit_roots(h)))
        for hit in nexts[:CANDIDATES_PER_LEAD]:
            extended = Chain((*chain.links, hit), (*chain.leads, lead), chain.found | _hit_roots(hit))
            yield from _chains_from(extended, need, hits, known | lead_roots, reached, limit)


# -- what to do next -----------------------------------------------------------------------------


@dataclass(frozen=True)
class NextStep:
    """A planning decision: sub-queries to run now (none: stop), and the needs still unsupported."""

    queries: tuple[str, ...]
    leads: tuple[str, ...]  # the leads those sub-queries follow
    unsupported: tuple[Need, ...]

    def message(self) -> str:
        own = len(self.queries) - len(self.leads)
        parts = []
        if own:
            parts.append(f"Split the question into {counted(own, 'sub-query', 'sub-queries')}")
        if self.leads:
            parts.append(
                f"Following {counted(len(self.leads), 'new lead')} found in the evidence: {', '.join(self.leads)}"
            )
        return "; ".join(parts)

    def stop_message(self) -> str:
        if not self.unsupported:
            return "The evidence answers every part of the question; it is sufficient. Stopping."
        missing = "; ".join(need.text for need in self.unsupported)
        return f"No further leads in the evidence for: {missing}. Stopping with what was found."


@dataclass
class PlanState:
    """What the planner has done so far: queries run, leads followed, needs whose anchor passages
    have had their leads followed once (a need gets one such round; later hops follow the chain)."""

    asked: set[frozenset[str]] = field(default_factory=set)
    followed: set[str] = field(default_factory=set)
    opened: set[str] = field(default_factory=set)
    planned: bool = False  # a planning step was made

    def ask(self, query: str) -> bool:
        """Records the query; False if an equivalent one already ran."""
        key = roots(query)
        if key in self.asked:
            return False
        self.asked.add(key)
        return True


def next_step(
    needs: Sequence[Need], hits: Sequence[Hit], known: frozenset[str], reached: Reached, state: PlanState
) -> NextStep:
    """What the evidence still lacks and how to look for it: a need's own sub-query (when the
    question has several parts: the speculative retrieval already ran a one-part question), then
    leads, each asked with the words still missing — from the last passage of a chain that grew, or
    once from the passages about the need's anchor. Nothing left: stop."""
    queries: list[str] = []
    leads: list[str] = []
    unsupported: list[Need] = []
    first, state.planned = not state.planned, True
    for need, chain in zip(needs, chains_for(needs, hits, known, reached), strict=True):
        if len(needs) > 1 and first and state.ask(need.text):
            queries.append(need.text)  # the first plan splits a question of several parts, part by part
        if chain is not None and chain.sufficient_for(need):
            continue
        unsupported.append(need)
        if len(needs) > 1 and state.ask(need.text):
            queries.append(need.text)
        for lead in _leads_for(need, chain, hits, known, state)[:LEADS_PER_NEED]:
            query = " ".join([lead, *need.missing_words(chain.found if chain else frozenset())])
            if state.ask(query):
                queries.append(query)
                leads.append(lead)
                state.followed.add(lead)
    kept = queries[:MAX_SUB_QUERIES]
    return NextStep(
        tuple(kept), tuple(lead for lead in leads if any(q.startswith(lead) for q in kept)), tuple(unsupported)
    )


def _leads_for(
    need: Need, chain: Chain | None, hits: Sequence[Hit], known: frozenset[str], state: PlanState
) -> list[str]:
    """Leads not yet followed: from the last passage of a chain that made a hop, else (once per
    need) from the passages about its anchor."""
    if chain is not None and len(chain.links) > 1:
        sources = [chain.links[-1]]
    elif need.text not in state.opened:
        state.opened.add(need.text)
        sources = _about(need, hits)[:CHAIN_STARTS]
    else:
        sources = []
    out: list[str] = []
    for hit in sources:
        out += [lead for lead in leads_in(hit, need, known) if lead not in state.followed and lead not in out]
    return out
