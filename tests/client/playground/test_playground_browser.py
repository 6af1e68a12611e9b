"""`akb playground --local` in a real headless Chromium: one playground (with the `akb local` it starts)
and one browser for the whole module, a fresh tab per test.

Each question is asked once in this module (acme has a result cache: a repeated question would be a
hit, replayed without its planner trace); the cache lives in a temporary directory of this module.
"""

from __future__ import annotations

import json
import re

import httpx
import pytest

from client.render import incomplete_warning
from contract.events import DoneEvent
from lambdas.endpoint.filters import ATTRIBUTE_OPERATORS, LIST_OPERATORS
from tests.client.playground.harness import CHROMIUM_MISSING, REPO, chromium, open_page, running_playground

pytestmark = [
    pytest.mark.skipif(CHROMIUM_MISSING is not None, reason=CHROMIUM_MISSING or ""),
    pytest.mark.xdist_group("playground-browser"),  # one worker: one playground, one browser
    pytest.mark.slow,  # real processes and a browser: not part of `make test-fast`
]

REBIND_HOST = "rebind.test"  # resolved to 127.0.0.1 by this browser only: a DNS-rebinding page
EVENT_DELAY_MS = "30"  # the emulator's pause between events: the stream takes a visible while


@pytest.fixture(scope="module")
def playground(tmp_path_factory, monkeypatch_module):
    monkeypatch_module.setenv("AKB_LOCAL_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    with running_playground("--local", "--delay-ms", EVENT_DELAY_MS) as process:
        yield process


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


@pytest.fixture(scope="module")
def browser():
    with chromium(extra_args=(f"--host-resolver-rules=MAP {REBIND_HOST} 127.0.0.1",)) as context:
        yield context


@pytest.fixture
def page(browser, playground):
    tab = open_page(browser, playground)
    problems: list[str] = []
    tab.on("pageerror", lambda error: problems.append(str(error)))
    yield tab
    tab.close()
    assert problems == [], f"the page raised: {problems}"


def ask(page, question: str) -> None:
    page.fill("#question", question)
    page.click("#ask")


def wait_done(page, scope: str = "#single-run") -> None:
    page.wait_for_selector(f"{scope} .done:not([hidden]), {scope} .failure:not([hidden])", state="attached")
    page.wait_for_function("!document.querySelector('#stop') || document.querySelector('#stop').disabled")


def fact(page, name: str, scope: str = "#single-run") -> str:
    return page.inner_text(f"{scope} dd[data-fact='{name}']")


def test_a_question_shows_trace_steps_before_the_answer_completes(page):
    # Noted inside the page the moment the first step is drawn: if the server buffered the stream,
    # the whole answer would be drawn in the same task and be there already.
    page.evaluate(
        """() => {
        window.firstStep = null;
        new MutationObserver(() => {
          const step = document.querySelector('#single-run .step');
          if (step && !window.firstStep) {
            window.firstStep = {
              answer: document.querySelector('#single-run .answer').textContent,
              doneShown: !document.querySelector('#single-run .done').hidden,
              steps: document.querySelectorAll('#single-run .step').length,
            };
          }
        }).observe(document.querySelector('#single-run'), {childList: true, subtree: true});
    }"""
    )
    ask(page, "How do I rotate an API key without downtime?")
    page.wait_for_selector("#single-run .step")
    wait_done(page)
    first = page.evaluate("window.firstStep")
    # The first steps may come in one chunk (the endpoint sends its opening steps together); no answer yet.
    assert first["steps"] >= 1 and first["answer"] == "" and first["doneShown"] is False
    steps = page.locator("#single-run .step")
    assert steps.count() >= 4
    assert steps.first.get_attribute("data-step") == "SpeculativeRetrieval"
    assert "Planning" in [steps.nth(i).get_attribute("data-step") for i in range(steps.count())]
    assert re.fullmatch(r"\d+ of 3", fact(page, "Iterations"))
    assert fact(page, "Stop reason") == "complete"
    assert page.locator("#single-run .cite").count() >= 1
    assert "ms" in fact(page, "First event") and fact(page, "Request id")


def test_a_citation_marker_opens_its_passage_and_its_document(page):
    ask(page, "How do I rotate an API key?")
    wait_done(page)
    marker = page.locator("#single-run .cite").first
    number = int(marker.inner_text().strip("[]"))
    source = page.locator("#single-run .sources li").nth(number - 1).inner_text()
    marker.click()
    dialog = page.locator("#passage")
    assert dialog.is_visible()
    assert page.inner_text("#passage-title").startswith(f"Source {number}:")
    passage = page.inner_text("#passage-text")
    assert passage.strip() and source.split("\n")[0].split(" · ")[1] in page.inner_text("#passage-title")
    page.wait_for_selector("#passage-document mark")  # the whole document, the passage marked in it
    marked = page.inner_text("#passage-document mark")
    assert " ".join(marked.split()) == " ".join(passage.split())
    page.keyboard.press("Escape")
    assert not dialog.is_visible()
    assert page.evaluate("document.activeElement.classList.contains('cite')")  # focus back on the marker


def test_a_budget_limited_answer_is_marked_possibly_incomplete(page):
    page.click("#options-section summary")
    page.fill("#max-iterations", "1")
    ask(page, "How do I rotate an API key, and what are the rate limits?")
    wait_done(page)
    assert fact(page, "Stop reason") == "iteration_limit — possibly incomplete"
    assert fact(page, "Iterations") == "1 of 1"
    banner = page.locator("#single-run .incomplete")
    assert banner.is_visible()
    text = banner.inner_text()
    assert "Possibly incomplete (stop reason: iteration_limit)" in text
    said_by_akb_ask = incomplete_warning(DoneEvent("any", "iteration_limit", iterations=1, durationMs=0))
    assert said_by_akb_ask and said_by_akb_ask in text  # the same words as the terminal (client/render.py)
    assert "is-incomplete" in page.get_attribute("#single-run .run", "class")


def test_a_refused_request_shows_the_endpoints_code_and_message(page, playground):
    page.click("#options-section summary")
    page.fill("#max-iterations", "9")
    ask(page, "What does a refused request look like?")
    wait_done(page)
    refused = httpx.post(
        f"{playground.endpoint}/v1/query", json={"question": "x", "maxAgentIteration": 9}, timeout=10
    ).json()["error"]
    failure = page.locator("#single-run .failure")
    assert failure.is_visible() and failure.get_attribute("role") == "alert"
    assert page.get_attribute("#single-run .failure [data-code]", "data-code") == refused["code"] == "limit_exceeded"
    assert failure.inner_text().split("\n\n") == [
        "Refused before streaming: HTTP 400 limit_exceeded",
        refused["message"],  # the endpoint's message, which names the cap
    ]


def test_compare_shows_three_columns_with_times_cost_iterations_and_overlap(page):
    page.fill("#question", "Compare exports and webhooks")
    page.click("#compare")
    page.wait_for_selector("#overlap-table:not([hidden])")
    columns = page.locator("#compare-columns .column")
    assert [columns.nth(i).get_attribute("data-mode") for i in range(3)] == ["agentic", "retrieve", "auto"]
    for i in range(3):
        column = columns.nth(i)
        for metric in ("Time to first event", "Time to answer"):
            assert re.fullmatch(r"\d+ ms", column.locator(f"dd[data-metric='{metric}']").inner_text())
        assert column.locator("dd[data-metric='Estimated cost']").inner_text().startswith("$")
        assert re.fullmatch(r"\d+", column.locator("dd[data-metric='Iterations']").inner_text())
    rows = page.locator("#overlap-table tbody tr")
    assert [rows.nth(i).locator("th").inner_text() for i in range(rows.count())] == [
        "agentic & retrieve",
        "agentic & auto",
        "retrieve & auto",
        "agentic & retrieve & auto",
    ]
    shared, distinct = (int(rows.nth(0).locator("td").nth(n).inner_text()) for n in (0, 1))
    agentic = columns.nth(0).locator(".sources li[data-document]")
    retrieve = columns.nth(1).locator(".sources li[data-document]")
    documents = [{x.get_attribute("data-document") for x in group.all()} for group in (agentic, retrieve)]
    assert (shared, distinct) == (len(documents[0] & documents[1]), len(documents[0] | documents[1]))


def test_forged_origin_host_and_token_are_refused_by_the_server(playground):
    body = {"question": "Who may ask?"}
    honest = {"origin": playground.origin, "x-playground-token": playground.token}

    def post(**headers: str) -> httpx.Response:
        return httpx.post(f"{playground.origin}/api/query", json=body, headers=headers, timeout=10)

    forged = {
        "forbidden_origin": post(**{**honest, "origin": "http://evil.example"}),
        "forbidden_host": post(**{**honest, "host": "evil.example"}),
        "bad_token": post(**{**honest, "x-playground-token": "guess"}),
        "forbidden_site": post(**{**honest, "sec-fetch-site": "cross-site"}),
    }
    for code, response in forged.items():
        assert (response.status_code, response.json()["error"]["code"]) == (403, code)
    no_origin = post(**{"x-playground-token": playground.token})
    assert no_origin.status_code == 403 and no_origin.json()["error"]["code"] == "forbidden_origin"
    localhost = httpx.get(playground.page.replace("127.0.0.1", "localhost"), timeout=10)
    assert localhost.status_code == 403  # even localhost: only the exact origin it serves
    assert httpx.get(playground.origin + "/", timeout=10).status_code == 403  # the page needs the token
    with httpx.stream("POST", f"{playground.origin}/api/query", json=body, headers=honest, timeout=30) as ok:
        assert ok.status_code == 200 and ok.headers["content-type"].startswith("text/event-stream")


def test_a_dns_rebinding_page_is_refused(browser, playground):
    tab = browser.new_page()
    try:
        rebound = playground.page.replace("127.0.0.1", REBIND_HOST)
        response = tab.goto(rebound)
        assert response is not None and response.status == 403
        assert "forbidden_host" in tab.inner_text("body")
    finally:
        tab.close()


def _focused(page) -> dict:
    return page.evaluate(
        """() => {
        const el = document.activeElement;
        const style = getComputedStyle(el);
        return {id: el.id, cls: el.className, tag: el.tagName, outline: style.outlineStyle + ' ' + style.outlineWidth,
                inDialog: Boolean(el.closest('dialog'))};
    }"""
    )


def test_keyboard_only_ask_cite_and_close(page):
    page.keyboard.press("Tab")
    assert _focused(page)["cls"] == "skip-link"
    page.keyboard.press("Enter")
    assert _focused(page)["id"] == "question"
    page.keyboard.type("What are the API rate limits?")
    page.keyboard.press("Control+Enter")
    wait_done(page)
    for _ in range(60):  # Tab through the form to the answer's first citation marker
        page.keyboard.press("Tab")
        if "cite" in _focused(page)["cls"].split():
            break
    focused = _focused(page)
    assert "cite" in focused["cls"].split()
    assert not focused["outline"].startswith("none") and not focused["outline"].endswith(" 0px")  # visible focus
    page.keyboard.press("Enter")
    assert page.locator("#passage").is_visible() and _focused(page)["inDialog"]
    page.keyboard.press("Escape")
    assert not page.locator("#passage").is_visible()
    assert "cite" in _focused(page)["cls"].split()


def test_every_control_is_labelled_and_reachable_with_tab(page):
    page.click("#filter-section summary")
    page.click("#options-section summary")
    page.click("#filter-add")
    unlabelled = page.evaluate(
        """() => [...document.querySelectorAll('input, select, textarea')]
            .filter((c) => c.offsetParent !== null && !c.labels.length && !c.getAttribute('aria-label'))
            .map((c) => c.id || c.name)"""
    )
    assert unlabelled == []
    controls = page.evaluate(
        """() => {
        const all = [...document.querySelectorAll('a[href], button, input, select, textarea, summary')]
          .filter((c) => c.offsetParent !== null && !c.disabled && !(c.type === 'radio' && !c.checked));
        all.forEach((c, i) => c.dataset.tabIndexProbe = i);
        return all.length;
    }"""
    )
    page.evaluate("document.activeElement.blur()")
    reached = set()
    for _ in range(controls + 5):
        page.keyboard.press("Tab")
        probe = page.evaluate("document.activeElement.dataset.tabIndexProbe")
        if probe is not None:
            reached.add(int(probe))
    assert reached == set(range(controls))
    landmarks = page.evaluate("[...document.querySelectorAll('header, main')].map((e) => e.tagName)")
    assert landmarks == ["HEADER", "MAIN"]


def test_a_narrow_window_stacks_everything_without_sideways_scrolling(browser, playground):
    tab = open_page(browser, playground, width=400, height=800)
    try:
        tab.fill("#question", "How are webhooks signed?")
        tab.click("#compare")
        tab.wait_for_selector("#overlap-table:not([hidden])")
        assert tab.evaluate("document.documentElement.scrollWidth") <= 400
        boxes = [tab.locator("#compare-columns .column").nth(i).bounding_box() for i in range(3)]
        assert len({round(box["x"]) for box in boxes}) == 1  # one above the other
        assert all(box["width"] <= 400 for box in boxes)
        assert tab.locator("#ask").bounding_box()["width"] > 0
    finally:
        tab.close()


def _documents_matching(predicate) -> set[str]:
    found = set()
    for side_file in (REPO / "local" / "corpus").glob("*/**/*.metadata.json"):
        attributes = json.loads(side_file.read_text()).get("metadataAttributes", {})
        if predicate(attributes):
            alias = side_file.relative_to(REPO / "local" / "corpus").parts[0]
            document = side_file.relative_to(REPO / "local" / "corpus" / alias).as_posix()
            found.add(f"{alias}/{document.removesuffix('.metadata.json')}")
    return found


def test_the_filter_builder_sends_the_endpoints_filter(page):
    page.click("#filter-section summary")
    page.click("#filter-add")
    row = page.locator("#filter-rows li").first
    options = row.locator("select").first.locator("option")
    assert {options.nth(i).get_attribute("value") for i in range(options.count())} == ATTRIBUTE_OPERATORS
    joins = page.locator("#filter-join option")
    assert {joins.nth(i).get_attribute("value") for i in range(joins.count())} == LIST_OPERATORS
    row.locator(".filter-key").fill("tags")
    row.locator("select").first.select_option("listContains")
    row.locator(".filter-value").fill("api")
    page.click("#filter-add")
    second = page.locator("#filter-rows li").nth(1)
    second.locator(".filter-key").fill("year")
    second.locator("select").first.select_option("greaterThanOrEquals")
    second.locator(".filter-value").fill("2024")
    expected = {
        "andAll": [
            {"listContains": {"key": "tags", "value": "api"}},
            {"greaterThanOrEquals": {"key": "year", "value": 2024}},
        ]
    }
    assert json.loads(page.inner_text("#filter-preview")) == expected
    ask(page, "Which limits apply to API requests?")
    wait_done(page)
    shown = {li.get_attribute("data-document") for li in page.locator("#single-run .sources li[data-document]").all()}
    allowed = _documents_matching(lambda a: "api" in a.get("tags", []) and a.get("year", 0) >= 2024)
    assert shown and shown <= allowed  # the emulator applied the filter the page built


def test_a_filter_the_endpoint_refuses_shows_the_path_it_names(page):
    page.click("#filter-section summary")
    page.fill("#filter-json", '{"equals": {"key": "year"}}')
    ask(page, "Which filter is wrong?")
    wait_done(page)
    assert page.get_attribute("#single-run .failure [data-code]", "data-code") == "invalid_request"
    assert "filter.equals" in page.inner_text("#single-run .failure")


def test_a_conversation_continues_across_questions(page):
    page.check("#session-on")
    session = page.inner_text("#session-id")
    assert re.fullmatch(r"[0-9a-f-]{36}", session)
    ask(page, "My workspace is on the Enterprise plan. How long can keys live?")
    wait_done(page)
    assert fact(page, "Session") == f"{session} (turn saved)"
    ask(page, "And what happens when they expire?")
    wait_done(page)
    assert fact(page, "Session") == f"{session} (turn saved)"
    page.click("#session-new")
    assert page.inner_text("#session-id") != session


def test_the_page_fetches_nothing_but_its_own_origin(browser, playground):
    tab = browser.new_page()
    requested: list[str] = []
    tab.on("request", lambda request: requested.append(request.url))
    try:
        tab.goto(playground.page)
        tab.wait_for_selector("body[data-ready='true']")
        assert requested and all(url.startswith(playground.origin + "/") for url in requested)
        csp = httpx.get(playground.page, timeout=10).headers["content-security-policy"]
        assert "default-src 'none'" in csp and "connect-src 'self'" in csp
    finally:
        tab.close()


def test_citation_markers_sit_where_the_endpoint_counts_characters(page):
    # The endpoint counts Python characters (code points); JavaScript strings count UTF-16 units, so an
    # emoji before a citation would shift every marker by one if the page counted naively.
    answer = "🔑 Rotate keys 🔁 monthly. Revoke the old one."
    end = answer.index(".") + 1
    before = page.evaluate(
        """async ([answer, end]) => {
        const { RunView } = await import('/static/run-view.js');
        const box = document.createElement('div');
        const view = new RunView(box, {});
        view.start();
        view.handle('result', {results: [{knowledgeBase: 'docs', text: 'p', documentId: 'a.md'}], answer,
                               citations: [{start: 0, end, results: [0]}]});
        view.finish();
        const marker = box.querySelector('.answer .cite');
        return [...marker.parentNode.childNodes].slice(0, [...marker.parentNode.childNodes].indexOf(marker))
          .map((node) => node.textContent).join('');
    }""",
        [answer, end],
    )
    assert before == answer[:end]


def test_sse_frames_split_across_chunks_are_reassembled(page):
    decoded = page.evaluate(
        """async () => {
        const { splitFrames } = await import('/static/stream.js');
        const first = splitFrames('event: trace\\r\\ndata: {"step":"Plan');
        const rest = 'ning"}\\r\\n\\r\\n: keep-alive\\n\\n' + 'event: text\\ndata: {"delta":"a"}\\n\\n';
        const second = splitFrames(first.rest + rest);
        return [first.frames, second.frames, second.rest];
    }"""
    )
    assert decoded == [
        [],
        [{"type": "trace", "data": {"step": "Planning"}}, {"type": "text", "data": {"delta": "a"}}],
        "",
    ]


def test_an_endpoint_given_by_url_takes_typed_aliases_and_learns_them(browser, playground):
    with running_playground("--url", playground.endpoint) as by_url:
        tab = open_page(browser, by_url)
        try:
            assert tab.is_visible("#kb-aliases") and tab.locator("#kb-list li").count() == 0
            tab.fill("#kb-aliases", "tickets")
            ask(tab, "Which tickets mention webhooks?")
            wait_done(tab)
            assert tab.get_attribute("#kb-list input", "value") == "tickets"  # learned from the answer
            tab.fill("#kb-aliases", "nope")
            tab.uncheck("#kb-list input")
            ask(tab, "Is nope a knowledge base?")
            wait_done(tab)
            assert tab.get_attribute("#single-run .failure [data-code]", "data-code") == "knowledge_base_not_allowed"
        finally:
            tab.close()
