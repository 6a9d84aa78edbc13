"""KCL's own cut of its long precedents in the with-precedents essay setting, and LEXam rows whose text
shows fewer statements than their n_statements (warned about and counted, not dropped)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lexsym.exams.datasets import load_exam
from lexsym.exams.precedents import KCL_CUT_MARKER, KCL_LONG_PRECEDENT_QUESTIONS, kcl_cut
from lexsym.exams.statements import lexam_item, shown_statements
from lexsym.exams.tasks import ConvertOptions, exam_records

LONG = "변호사시험 14회 형사법 제2문 1."  # one of KCL's eleven long-precedent essay questions
HEAD = "【판시사항】 면제 재산의 선택은 신청일을 기준으로 한다."
TAIL = "사건 2020다1234 면제재산확인\n【원고】 갑\n【이유】 긴 본문."


def lexsym(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lexsym", *args], capture_output=True, text=True, timeout=120
    )


def essay(meta: str, **extra) -> dict:
    precedents = [
        json.dumps(
            {"대법원 2020. 1. 1. 선고 2020다1234 판결": HEAD + KCL_CUT_MARKER + TAIL}, ensure_ascii=False
        ),
        json.dumps({"대법원 2021. 2. 2. 선고 2021다5678 판결": "짧은 판례."}, ensure_ascii=False),
    ]
    return {
        "meta": meta,
        "question": "갑의 면제 재산 선택에 관하여 논하시오.",
        "rubrics": ["신청일 기준을 언급한다.", "선택의 효과를 설명한다."],
        "score": 10,
        "supporting_precedents": precedents,
        **extra,
    }


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


def test_kcl_cut_keeps_the_head_of_the_listed_questions_precedents_only():
    from lexsym.exams.items import Precedent

    precedents = [
        Precedent(name="a", text=HEAD + KCL_CUT_MARKER + TAIL + KCL_CUT_MARKER + "더"),
        Precedent(text="x"),
    ]
    kept, cuts = kcl_cut(LONG, precedents)
    assert [p.text for p in kept] == [HEAD, "x"]  # cut before the first marker, no marker added
    assert cuts == [{"index": 0, "name": "a", "kept": len(HEAD), "chars": len(precedents[0].text)}]
    assert kcl_cut("변호사시험 14회 형사법 제2문 2.", precedents) == (precedents, [])
    assert len(KCL_LONG_PRECEDENT_QUESTIONS) == 11


def test_with_precedents_essays_are_cut_as_kcl_cuts_them(tmp_path):
    source = write_jsonl(tmp_path / "kcl.jsonl", [essay(LONG), essay("변호사시험 14회 형사법 제2문 2.")])
    loaded = load_exam(source, "kcl-essay")
    listed, other = exam_records(loaded, ConvertOptions(context="precedents"))
    assert HEAD in listed["prompt"]["user"] and "긴 본문" not in listed["prompt"]["user"]
    assert "짧은 판례." in listed["prompt"]["user"]
    (cut,) = listed["metadata"]["context"]["kcl_cut"]
    assert cut["index"] == 0 and cut["kept"] == len(HEAD)
    assert listed["metadata"]["context"]["chars_total"] == len(HEAD) + len("짧은 판례.")
    assert "긴 본문" in other["prompt"]["user"] and other["metadata"]["context"]["kcl_cut"] == []
    # --no-kcl-cut gives the texts whole, and says so (no cut record at all).
    whole, _ = exam_records(loaded, ConvertOptions(context="precedents", kcl_cut=False))
    assert "긴 본문" in whole["prompt"]["user"] and whole["metadata"]["context"]["kcl_cut"] is None


def test_kcl_mcqa_precedents_are_never_cut(tmp_path):
    row = {
        "meta": LONG,
        "question": "옳은 것은?",
        **{letter: f"선택지 {letter}" for letter in "ABCDE"},
        "label": "B",
        "supporting_precedents": essay(LONG)["supporting_precedents"],
    }
    loaded = load_exam(write_jsonl(tmp_path / "mcqa.jsonl", [row]), "kcl-mcqa")
    (record,) = exam_records(loaded, ConvertOptions(context="precedents"))
    assert "긴 본문" in record["prompt"]["user"] and record["metadata"]["context"]["kcl_cut"] is None


def test_the_manifest_records_the_cut_and_the_cli_can_turn_it_off(tmp_path):
    source = write_jsonl(tmp_path / "kcl.jsonl", [essay(LONG)])
    for flag, expected in (([], True), (["--no-kcl-cut"], False)):
        out = tmp_path / f"out{len(flag)}"
        done = lexsym(
            "exam",
            "convert",
            str(source),
            "--format",
            "kcl-essay",
            "--context",
            "precedents",
            "--out",
            str(out),
            *flag,
        )
        assert done.returncode == 0, done.stderr
        manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
        assert manifest["datasets"][0]["config"]["kcl_cut"] is expected
        assert (manifest["precedent_cut"] is not None) is expected
        record = json.loads((out / "tasks.jsonl").read_text(encoding="utf-8"))
        assert ("긴 본문" in record["prompt"]["user"]) is not expected


# -- LEXam rows showing fewer statements than n_statements -----------------------------------------------


@pytest.mark.parametrize(
    ("question", "count"),
    [
        ("Which are correct?\ni. a\nii. b\niii. c", 3),
        ("Which are correct? (i) a; (ii) b; (iii) c; (iv) d.", 4),
        ("X. sells a car.\ni. a\nii. b", 2),  # a person called X is not statement x
        ("Which are correct?\ni. a\nii. b\niv. d\nv. e", 2),  # iii is missing: iv and v are not counted
        ("No statements here.", 0),
    ],
)
def test_shown_statements_counts_the_run_of_numbered_statements(question, count):
    assert shown_statements(question) == count


def perturbation_rows() -> list[dict]:
    statements = [
        ("Exemptions are fixed on the petition date.", True),
        ("A debtor domiciled 730 days in one state uses its law.", True),
        ("The wildcard covers only cash.", False),
        ("An opt-out state bars § 522(d).", True),
        ("Federal non-bankruptcy exemptions are lost by electing state law.", False),
    ]
    good = lexam_item("fx-ok", "Which statements are correct?", statements, ks=(4, 8), extra={"course": "X"})
    short = lexam_item("fx-short", "Which statements are correct?", statements, ks=(4, 8))
    short["question"] = short["question"].rsplit("\n", 1)[0]  # statement v lost from the text
    return [good, short]


def test_rows_showing_fewer_statements_are_warned_about_once_and_kept(tmp_path):
    source = write_jsonl(tmp_path / "lexam.jsonl", perturbation_rows())
    loaded = load_exam(source, "lexam-mcq")
    assert len(loaded.items) == 4  # both rows, two k each: nothing dropped
    (warning,) = loaded.warnings
    assert warning == (
        f"{source}:2: id 'fx-short': the question shows 4 numbered statement(s), but n_statements is 5"
    )


def test_convert_counts_the_short_rows_in_its_summary_and_manifest(tmp_path):
    source = write_jsonl(tmp_path / "lexam.jsonl", perturbation_rows())
    done = lexsym("exam", "convert", str(source), "--format", "lexam-mcq", "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    assert "4 tasks written to" in done.stdout
    assert "1 rows show fewer statements than n_statements" in done.stdout
    assert done.stderr.count("lexsym: warning: ") == 1 and "id 'fx-short'" in done.stderr
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text(encoding="utf-8"))
    assert len(manifest["warnings"]) == 1 and "n_statements is 5" in manifest["warnings"][0]
    # A file without short rows says nothing of the kind.
    fine = write_jsonl(tmp_path / "fine.jsonl", perturbation_rows()[:1])
    done = lexsym("exam", "convert", str(fine), "--format", "lexam-mcq", "--out", str(tmp_path / "fine"))
    assert done.returncode == 0 and "fewer statements" not in done.stdout and "warning" not in done.stderr
