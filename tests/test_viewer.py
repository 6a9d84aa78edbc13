"""The sample viewer: the detail records (checker messages with citations, parse errors, call errors, field
differences, judge replies), the page's safety with hostile model output, the local server, and the page
itself driven in headless Chromium (filter, sort, open a failing sample, compare two runs).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from lexsym.models.base import Completion, GenerationParams, ModelError
from lexsym.runner import RunOptions, run_tasks
from lexsym.viewer import ViewerServer, render_page, viewer_data
from lexsym.viewer.page import embed_json
from tests.task_sets import generate_task_set

REPO = Path(__file__).resolve().parents[1]
HOSTILE = "</script><img src=x onerror=alert(1)>"


class Scripted:
    """An answering model with one behaviour per task: AE dev-0000 fails, every other AE is right; EC is
    right but quotes hostile markup first; EV is right; NA cannot be read; OE claims far past every limit."""

    id = "test:scripted"
    cacheable = False

    async def generate(self, messages, params: GenerationParams, *, task: Any = None) -> Completion:
        kind, gold = task["task"], task["gold"]
        if kind == "AE" and task["id"].endswith("dev-0000"):
            raise ModelError("the provider refused the request (test)")
        if kind == "NA":
            return Completion(text="I cannot tell which amounts are left.", finish_reason="stop")
        if kind == "OE":
            schedule = {
                asset: [
                    {"citation": c["citation"], "claim_value": c["claim_value"] * 3 + 50_000} for c in claims
                ]
                for asset, claims in gold["schedule"].items()
            }
            answer = {"jurisdiction": gold["jurisdiction"], "schedule": schedule}
            return Completion(
                text="FINAL ANSWER: " + json.dumps(answer),
                reasoning="Claim as much as possible.",
                finish_reason="stop",
            )
        preface = f"Note {HOSTILE} done.\n" if kind == "EC" else ""
        return Completion(text=preface + "FINAL ANSWER: " + json.dumps(gold), finish_reason="stop")


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> list[Path]:
    root = tmp_path_factory.mktemp("viewer")
    tasks = generate_task_set(root / "tasks", {"task": ["AE", "EC", "EV", "NA", "OE"]})
    options = RunOptions(progress=False, cache=False, score_workers=1)
    run_tasks(Scripted(), tasks, root / "scripted", options=options)
    run_tasks("lexsym:baseline", tasks, root / "baseline", options=options)
    return [root / "scripted", root / "baseline"]


@pytest.fixture(scope="module")
def data(runs) -> dict[str, Any]:
    return viewer_data(runs)


def details_of(data: dict[str, Any], run: int, task: str) -> list[dict[str, Any]]:
    return [d for d in data["details"].values() if d["run"] == run and d["task"] == task]


def test_an_oe_sample_with_violations_has_plain_english_messages_with_citations(data, runs):
    scores = json.loads((runs[0] / "scores.json").read_text())
    named = {row["id"]: row["violations"] for row in scores["samples"] if row["task"] == "OE"}
    oe = details_of(data, 0, "OE")
    assert len(oe) == 4
    for detail in oe:
        assert detail["outcome"] == "invalid" and detail["violations"], detail["sample_id"]
        # The same rules scores.json names, each now a sentence with its amount and its citation.
        assert sorted(v["name"] for v in detail["violations"]) == sorted(named[detail["task_id"]])
        for violation in detail["violations"]:
            assert re.search(r"\d", violation["message"]) and len(violation["message"].split()) >= 5
        # Every rule the statutes state carries its citation (a claim past the asset's value cites none).
        cited = [v for v in detail["violations"] if v["name"] != "exceeds_value"]
        assert cited and all(re.search(r"U\.S\.C\.|Stat\.", v["citation"] or "") for v in cited)
        assert detail["reasoning"] == "Claim as much as possible."
        differing = [row for row in detail["fields"] if row["same"] == "no"]
        assert detail["fields"][0]["field"] == "jurisdiction" and detail["fields"][0]["same"] == "yes"
        assert differing and all(row["gold"].startswith("$") for row in differing)
    # A valid schedule gets the checker's verdict too: the baseline's are valid, mostly short of the optimum.
    notes = [note for d in details_of(data, 1, "OE") for note in d["checker_notes"]]
    assert len(notes) == 4 and any(note.startswith("valid but not optimal") for note in notes)
    assert not any(d["violations"] for d in details_of(data, 1, "OE"))


def test_a_parse_failure_shows_its_parse_error_and_a_failed_call_its_error(data, runs):
    samples = {
        line["task_id"]: line
        for line in map(json.loads, (runs[0] / "samples.jsonl").read_text().splitlines())
    }
    na = details_of(data, 0, "NA")
    assert len(na) == 4
    for detail in na:
        assert detail["outcome"] == "unparsed" and detail["fields"] == []
        assert detail["parse_error"] and detail["parse_error"] == samples[detail["task_id"]]["parse_error"]
        assert detail["completion"] == "I cannot tell which amounts are left."
    failed = [d for d in details_of(data, 0, "AE") if d["outcome"] == "error"]
    assert len(failed) == 1 and "refused the request" in failed[0]["error"]
    assert failed[0]["completion"] is None


def test_field_differences_agree_for_right_answers_and_name_the_wrong_fields(data):
    for task in ("EC", "EV"):
        for detail in details_of(data, 0, task):
            assert detail["outcome"] == "right" and detail["fields"]
            assert {row["same"] for row in detail["fields"]} == {"yes"}, detail["fields"]
    ae = [d for d in details_of(data, 1, "AE")]  # the baseline lists every jurisdiction in the prompt
    assert any(
        row == {**row, "gold": "not allowable", "answer": "listed", "same": "no"}
        for d in ae
        for row in d["fields"]
    )
    ev = [row for d in details_of(data, 1, "EV") for row in d["fields"]]
    assert {"yes", "no"} <= {row["same"] for row in ev}
    # The list's rows carry the outcome and point at their details; the prompts are shared, not repeated.
    assert {row["_key"] for row in data["rows"]} == set(data["details"])
    assert len(data["prompts"]) == 20 and len(data["details"]) == 40
    assert {"name": "outcome", "type": "string"} in data["columns"]


def test_a_judged_open_sample_shows_every_judge_reply(tmp_path, stub, offline):
    from lexsym.exams.datasets import load_exam
    from lexsym.exams.tasks import ConvertOptions, convert
    from lexsym.judges.session import judge_run
    from lexsym.judges.settings import JudgeOptions, JudgeSpec
    from lexsym.runner.limits import RetryPolicy

    tasks = tmp_path / "tasks-open"
    convert(load_exam(REPO / "tests/fixtures/exams/lexam_open.jsonl", "lexam-open"), tasks, ConvertOptions())
    run = tmp_path / "run-open"
    run_tasks("lexsym:oracle", tasks, run, options=RunOptions(concurrency=1, progress=False, cache=False))
    stub.say(
        "Covers the 730-day rule. [[0.9]]", "First [[0.4]], then [[0.6]]", "[[0.6]]", "[[0.3]]", "[[1.0]]"
    )
    judge = "litellm:openai/gpt-4o-mini"
    options = JudgeOptions(
        judges=(JudgeSpec(judge),),
        concurrency=1,
        cache_dir=tmp_path / "cache",
        retry=RetryPolicy(base=0.01, cap=0.05, max_attempts=4),
    )
    judge_run(run, options, model_options={"api_base": stub.url})
    found = viewer_data([run])
    details = sorted(found["details"].values(), key=lambda d: d["sample_id"])
    assert [d["outcome"] for d in details] == ["partial", "partial", "wrong", "right"]
    first, second = details[0]["judges"], details[1]["judges"]
    assert len(first) == 1 and first[0]["judge"] == judge and first[0]["score"] == 0.9
    assert first[0]["attempts"][0]["raw"] == "Covers the 730-day rule. [[0.9]]"
    # A reply that did not parse is kept with the reason it was asked again.
    assert [a["raw"] for a in second[0]["attempts"]] == ["First [[0.4]], then [[0.6]]", "[[0.6]]"]
    assert second[0]["attempts"][0]["problem"] and second[0]["attempts"][1]["problem"] is None
    assert details[0]["gold"].startswith("Under 11 U.S.C.") and details[0]["scores"]["judge_grade"] == 0.9


def test_an_mcq_sample_shows_the_choice_against_the_gold(tmp_path):
    from lexsym.exams.datasets import load_exam
    from lexsym.exams.tasks import ConvertOptions, convert

    tasks = tmp_path / "tasks-mcq"
    convert(load_exam(REPO / "tests/fixtures/exams/lexam_mcq.jsonl", "lexam-mcq"), tasks, ConvertOptions())
    run = tmp_path / "run-mcq"
    run_tasks("lexsym:oracle", tasks, run, options=RunOptions(concurrency=1, progress=False, cache=False))
    details = list(viewer_data([run])["details"].values())
    assert details and all(d["outcome"] == "right" for d in details)
    for detail in details:
        (row,) = detail["fields"]
        assert row["field"] == "choice" and row["same"] == "yes" and row["gold"] == row["answer"]


def test_hostile_model_output_stays_text_in_the_page(data):
    ec = details_of(data, 0, "EC")
    assert all(HOSTILE in d["completion"] for d in ec)
    page = render_page(data)
    assert HOSTILE not in page and "<img" not in page
    assert page.count("</script>") == 2  # the data's own and the script's: nothing in the data closes one
    embedded = re.search(r'<script type="application/json" id="lexsym-data">(.*?)</script>', page, re.S)
    assert embedded and json.loads(embedded.group(1)) == json.loads(json.dumps(data))
    assert not re.search(r"[<>&\u2028\u2029]", embed_json({"x": "<&>\u2028\u2029"}))
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1)
    assert "default-src &#x27;none&#x27;" in policy and "sha256-" in policy and "unsafe-inline" not in policy


def lexsym(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lexsym", *args], capture_output=True, text=True, env=os.environ, timeout=300
    )


def fetch(url: str, host: str | None = None) -> tuple[int, str, dict[str, str]]:
    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode("utf-8"), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8"), dict(error.headers)


def test_the_server_serves_the_page_on_loopback_only(data):
    page = render_page(data)
    server = ViewerServer(page, port=0, policy="default-src 'none'").start()
    try:
        assert server.url.startswith("http://127.0.0.1:") and server.port > 0
        status, body, headers = fetch(server.url)
        assert status == 200 and body == page
        assert headers["Content-Type"] == "text/html; charset=utf-8"
        assert headers["Content-Security-Policy"] == "default-src 'none'; frame-ancestors 'none'"
        assert fetch(f"http://127.0.0.1:{server.port}/index.html")[0] == 200
        assert fetch(f"http://127.0.0.1:{server.port}/samples.jsonl")[0] == 404
        status, body, _ = fetch(server.url, host="viewer.example.com")  # a rebound DNS name
        assert status == 403 and "127.0.0.1" in body
        assert fetch(server.url, host=f"localhost:{server.port}")[0] == 200
        assert server._server.server_address[0] == "127.0.0.1"
    finally:
        server.stop()
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(server.url, timeout=2)


def test_the_view_command_serves_until_interrupted_and_writes_a_file(runs, tmp_path):
    out = tmp_path / "page.html"
    done = lexsym("view", *map(str, runs), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "40 samples from 2 run(s) written to" in done.stderr and out.read_text().startswith(
        "<!DOCTYPE html>"
    )
    assert not list(tmp_path.glob(".page.html.*"))
    process = subprocess.Popen(
        [sys.executable, "-m", "lexsym", "view", str(runs[0]), "--no-browser"],
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ,
    )
    try:
        line = process.stderr.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert url, line
        status, body, headers = fetch(url.group(0))
        assert status == 200 and "lexsym-data" in body and "sha256-" in headers["Content-Security-Policy"]
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
        assert "stopped" in process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert lexsym("view", str(tmp_path / "nothing"), "--out", str(out)).returncode == 2


# --------------------------------------------------------------------------------------------------------
# The page in a real browser: Debian's headless Chromium, driven by Selenium (no browser download).
# --------------------------------------------------------------------------------------------------------


def column_values(driver, name: str) -> list[str]:
    from selenium.webdriver.common.by import By

    headers = [th.text.split(" ")[0] for th in driver.find_elements(By.CSS_SELECTOR, "#samples thead th")]
    index = headers.index(name) + 1
    return [td.text for td in driver.find_elements(By.CSS_SELECTOR, f"#samples tbody td:nth-child({index})")]


def test_the_page_in_a_browser(browser, runs, data, tmp_path):
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as when
    from selenium.webdriver.support.ui import Select, WebDriverWait

    page = tmp_path / "view.html"
    done = lexsym("view", *map(str, runs), "--out", str(page))
    assert done.returncode == 0, done.stderr
    driver, wait = browser, WebDriverWait(browser, 10)
    find = driver.find_element
    shots = tmp_path / "screenshots"
    shots.mkdir()
    driver.get(page.as_uri())
    wait.until(when.text_to_be_present_in_element((By.ID, "count"), "40 of 40 samples"))
    driver.save_screenshot(str(shots / "1-list.png"))

    # Filter by any column: task = OE, then sort by the violations, most first.
    Select(find(By.ID, "filter-column")).select_by_visible_text("task")
    Select(find(By.ID, "filter-op")).select_by_visible_text("=")
    find(By.ID, "filter-value").send_keys("OE")
    find(By.ID, "filter-add").click()
    wait.until(when.text_to_be_present_in_element((By.ID, "count"), "8 of 40 samples"))
    assert find(By.CSS_SELECTOR, "#filters .chip").text.startswith("task = OE")
    assert set(column_values(driver, "task")) == {"OE"}
    header = next(
        th for th in driver.find_elements(By.CSS_SELECTOR, "#samples th") if th.text == "n_violations"
    )
    header.click()
    find(By.XPATH, "//th[starts-with(., 'n_violations')]").click()
    assert find(By.CSS_SELECTOR, "#samples th.sorted").text == "n_violations ▼"
    counts = [int(value) for value in column_values(driver, "n_violations")]
    assert counts == sorted(counts, reverse=True) and counts[0] > 0 and counts[-1] == 0
    driver.save_screenshot(str(shots / "2-filtered-sorted.png"))

    # Open the sample that breaks the most rules.
    first = find(By.CSS_SELECTOR, "#samples tbody tr")
    sample_id = column_values(driver, "sample_id")[0]
    first.click()
    wait.until(when.text_to_be_present_in_element((By.ID, "detail-title"), sample_id))
    detail = data["details"][f"0|{sample_id}"]
    checker = find(By.CSS_SELECTOR, ".section.checker")
    assert len(checker.find_elements(By.CSS_SELECTOR, "ol.violations li")) == counts[0]
    assert detail["violations"][0]["message"] in checker.text
    assert any(
        "U.S.C." in cite.text or "Stat." in cite.text for cite in checker.find_elements(By.TAG_NAME, "cite")
    )
    differences = find(By.CSS_SELECTOR, ".section.answer-against-the-gold table.fields")
    assert "no" in [td.text for td in differences.find_elements(By.CSS_SELECTOR, "td.same")]
    assert find(By.CSS_SELECTOR, ".section.completion pre").text.startswith("FINAL ANSWER: {")
    assert '"non_exempt_total"' in find(By.CSS_SELECTOR, ".section.gold pre").text
    assert "Claim as much as possible." in find(By.CSS_SELECTOR, ".section.reasoning pre").text
    driver.set_window_size(1500, 2400)  # tall enough to see the whole detail, from the top
    driver.save_screenshot(str(shots / "3-detail.png"))
    prompt = data["prompts"][detail["prompt"]]["user"]
    assert not find(By.CSS_SELECTOR, ".section.prompt pre").is_displayed()  # folded: it is long
    find(By.CSS_SELECTOR, ".section.prompt summary").click()
    shown_prompt = find(By.CSS_SELECTOR, ".section.prompt pre:last-of-type")
    assert shown_prompt.is_displayed() and prompt.splitlines()[0] in shown_prompt.text
    driver.save_screenshot(str(shots / "3b-prompt.png"))
    driver.set_window_size(1500, 950)

    # The same sample in the baseline run, side by side.
    Select(find(By.ID, "compare")).select_by_visible_text("baseline (lexsym:baseline)")
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".summary")) == 2)
    summaries = driver.find_elements(By.CSS_SELECTOR, ".summary")
    assert "scripted" in summaries[0].text and "invalid" in summaries[0].text
    assert "baseline" in summaries[1].text and "lexsym:baseline" in summaries[1].text
    columns = find(By.CSS_SELECTOR, ".section.checker").find_elements(By.CSS_SELECTOR, ".column")
    assert (
        len(columns) == 2 and "valid" in columns[1].text and not columns[1].find_elements(By.TAG_NAME, "li")
    )
    assert (
        len(find(By.CSS_SELECTOR, ".section.prompt").find_elements(By.CSS_SELECTOR, ".column")) == 1
    )  # one task
    assert "compare=1" in driver.current_url
    driver.save_screenshot(str(shots / "4-compare.png"))

    # A failing sample is two clicks away.
    driver.get(page.as_uri())
    wait.until(when.text_to_be_present_in_element((By.ID, "count"), "40 of 40"))
    find(By.ID, "failing-only").click()
    find(By.CSS_SELECTOR, "#samples tbody tr").click()
    badge = find(By.CSS_SELECTOR, ".summary .badge")
    assert badge.text in data["failing"]

    # Hostile markup in a completion stays text: no image, no alert, the page still works.
    driver.get(page.as_uri())
    wait.until(when.text_to_be_present_in_element((By.ID, "count"), "40 of 40"))
    find(By.ID, "search").send_keys("task=EC/dev")
    Select(find(By.ID, "quick-run")).select_by_index(1)
    wait.until(when.text_to_be_present_in_element((By.ID, "count"), "1 of 40"))
    find(By.CSS_SELECTOR, "#samples tbody tr").click()
    assert HOSTILE in find(By.CSS_SELECTOR, ".section.completion pre").text
    assert driver.find_elements(By.TAG_NAME, "img") == []
    with pytest.raises(NoAlertPresentException):
        driver.switch_to.alert.text  # noqa: B018 (reading it is the check)
    driver.save_screenshot(str(shots / "5-hostile.png"))
    errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []
