"""Judges against real provider behaviour: a provider without `seed` (the judge pins seed=0), options from
`-J`, one endpoint per judge, and a judging session in which every judgement fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from lexsym.judges.session import judge_run
from lexsym.judges.settings import JudgeSpec
from tests.stub_server import FAKE_KEY, StubServer
from tests.test_judge_run import JUDGE, JUDGE_B, make_run, options

ANTHROPIC = "litellm:anthropic/claude-3-5-sonnet-20240620"

pytestmark = pytest.mark.usefixtures("offline")


def lexsym(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lexsym", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "160", **env},
        timeout=300,
    )


def test_a_judge_on_a_provider_without_seed_grades_and_records_the_seed_not_sent(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    run = make_run(tmp_path, "lexam_open.jsonl", "lexam-open")
    spec = JudgeSpec(ANTHROPIC, options=(("mock_response", "Sound. [[0.7]]"),))
    result = judge_run(run, options(tmp_path, cache=False, judges=(spec,)))
    assert result.header["status"] == "complete" and result.header["failed"] is None
    (judge,) = result.header["judges"]
    assert judge["params"]["seed"] == 0 and "seed" not in judge["params_sent"]
    assert judge["params_dropped"] == {"seed": "anthropic does not take seed"}
    lines = [json.loads(line) for line in (run / "judgements.jsonl").read_text().splitlines()]
    assert lines and all(line["status"] == "ok" and line["score"] == pytest.approx(0.7) for line in lines)


def test_every_judgement_failing_exits_1_with_the_reasons(tmp_path):
    run = make_run(tmp_path, "lexam_open.jsonl", "lexam-open")
    done = lexsym(
        "judge",
        str(run),
        "--judge",
        ANTHROPIC,
        "-J",
        "drop_params=false",
        "-J",
        "mock_response=[[0.7]]",
        "--no-cache",
        "--max-attempts",
        "1",
        ANTHROPIC_API_KEY=FAKE_KEY,
    )
    assert done.returncode == 1, done.stderr
    assert "lexsym judge: FAILED: every judgement failed" in done.stderr
    assert "UnsupportedParamsError" in done.stderr and " × " in done.stderr
    header = json.loads((run / "judge.json").read_text())
    assert header["failed"].startswith("every judgement failed") and header["failure_reasons"]


def test_each_judge_reaches_its_own_endpoint_with_the_shared_options(tmp_path, stub):
    run = make_run(tmp_path, "lexam_open.jsonl", "lexam-open")
    other = StubServer()
    other.start()
    try:
        stub.say(*["Fine. [[0.8]]"] * 8)
        other.say(*["Fine. [[0.6]]"] * 8)
        done = lexsym(
            "judge",
            str(run),
            "--judge",
            JUDGE,
            "--judge",
            JUDGE_B,
            "--api-base",
            stub.url,
            "--judge-api-base",
            f"{JUDGE_B}={other.url}",
            "-J",
            "user=lexsym-judge",
            "--concurrency",
            "1",
            "--cache-dir",
            str(tmp_path / "cache"),
            OPENAI_API_KEY=FAKE_KEY,
        )
        assert done.returncode == 0, done.stderr
        assert stub.requests and other.requests
        assert {body["model"] for body in stub.requests} == {"gpt-4o-mini"}
        assert {body["model"] for body in other.requests} == {"judge-b"}
        # litellm itself sends `user` only for models it knows (gpt-4o-mini, not judge-b)
        assert all(body["user"] == "lexsym-judge" for body in stub.requests)
        header = json.loads((run / "judge.json").read_text())
        endpoints = {judge["model"]: judge["options"]["api_base"] for judge in header["judges"]}
        assert endpoints == {JUDGE: stub.url, JUDGE_B: other.url}
        assert all(judge["options"]["user"] == "lexsym-judge" for judge in header["judges"])
    finally:
        other.stop()


def test_a_judge_endpoint_for_a_model_not_judging_is_refused(tmp_path):
    run = make_run(tmp_path, "lexam_open.jsonl", "lexam-open")
    done = lexsym("judge", str(run), "--judge", JUDGE, "--judge-api-base", "litellm:openai/other=http://x/v1")
    assert done.returncode == 2 and "not one of the --judge models" in done.stderr


def test_the_endpoint_is_part_of_a_judge_identity_and_no_options_keep_the_old_one():
    plain = JudgeSpec(JUDGE)
    assert plain.fingerprint == JudgeSpec(JUDGE, options=(("timeout", 30),)).fingerprint
    assert plain.fingerprint != JudgeSpec(JUDGE, options=(("api_base", "http://a/v1"),)).fingerprint
    assert "options" not in plain.describe()


def test_judges_come_from_the_judge_section_of_a_config_file(tmp_path, stub):
    run = make_run(tmp_path, "lexam_open.jsonl", "lexam-open")
    stub.say(*["Fine. [[0.9]]"] * 4)
    config = tmp_path / "run.yaml"
    config.write_text(
        "model: lexsym:oracle\n"
        "judge:\n"
        f"  judge: [{JUDGE}]\n"
        f"  api_base: {stub.url}\n"
        "  judge_options: {user: from-config}\n"
        "  concurrency: 1\n"
        f"  cache_dir: {tmp_path / 'cache'}\n"
    )
    done = lexsym("judge", str(run), "--config", str(config), OPENAI_API_KEY=FAKE_KEY)
    assert done.returncode == 0, done.stderr
    assert stub.requests and all(body["user"] == "from-config" for body in stub.requests)
    (judge,) = json.loads((run / "judge.json").read_text())["judges"]
    assert judge["options"] == {"api_base": stub.url, "user": "from-config"}
