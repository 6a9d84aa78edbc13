"""Loading LEXam- and KCL-shaped items from JSONL, CSV, XLSX and Hugging Face `datasets`: the fixtures
load alike from every file type, bad rows are named by file:line and field, and every source is pinned."""

from __future__ import annotations

import hashlib
import json
import sys
import types
from pathlib import Path

import pytest

from lexsym._util.errors import InputError
from lexsym.exams.datasets import load_exam
from lexsym.exams.items import ExamFormat, KclEssay, KclMCQA, LexamMCQ, LexamOpen
from lexsym.exams.sources import source_fingerprint

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "exams"


def items(loaded):
    return [entry.item for entry in loaded.items]


def test_lexam_open_questions_load_with_their_metadata():
    loaded = load_exam(FIXTURES / "lexam_open.jsonl", "lexam-open")
    first = items(loaded)[0]
    assert isinstance(first, LexamOpen)
    assert [i.language for i in items(loaded)] == ["en", "de", "fr", "it"]
    assert (first.course, first.area, first.jurisdiction, first.year) == (
        "Bankruptcy Law",
        "Private",
        "US",
        2024,
    )
    assert loaded.items[0].where.endswith("lexam_open.jsonl:1")


def test_lexam_mcqs_load_alike_from_jsonl_csv_and_xlsx():
    pytest.importorskip("openpyxl")
    loaded = {
        suffix: load_exam(FIXTURES / f"lexam_mcq.{suffix}", "lexam-mcq")
        for suffix in ("jsonl", "csv", "xlsx")
    }
    assert items(loaded["jsonl"]) == items(loaded["csv"]) == items(loaded["xlsx"])
    mcq = items(loaded["jsonl"])
    assert all(isinstance(i, LexamMCQ) for i in mcq)
    assert [i.negative_question for i in mcq] == [False, True, False, False]
    assert [i.none_as_an_option for i in mcq] == [False, False, True, True]
    assert mcq[2].choices[mcq[2].gold] == "keine der Aussagen"
    # each file is pinned by its own bytes
    shas = {loaded[s].fingerprint["sha256"] for s in loaded}
    assert len(shas) == 3
    path = FIXTURES / "lexam_mcq.csv"
    assert loaded["csv"].fingerprint == {
        "kind": "file",
        "path": str(path),
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "bytes": path.stat().st_size,
    }


def test_a_robustness_set_row_becomes_one_item_per_k():
    loaded = load_exam(FIXTURES / "lexam_mcq_perturbation.jsonl", "lexam-mcq")
    mcq = items(loaded)
    assert [i.id for i in mcq] == [f"fx-pert-001/k{k}" for k in (4, 8, 16, 32)]
    assert [len(i.choices) for i in mcq] == [4, 8, 16, 32] == [i.choice_set for i in mcq]
    assert len({i.choices[i.gold] for i in mcq}) == 1, "the same gold subset in every version"
    assert [i.none_as_an_option for i in mcq][-1] is True  # 5 statements, 32 choices: every subset


def test_kcl_items_parse_precedents_and_rubric_points():
    essays = items(load_exam(FIXTURES / "kcl_essay.jsonl", "kcl-essay"))
    assert all(isinstance(e, KclEssay) for e in essays)
    first, second = essays
    assert first.id == first.meta  # KCL has no id: the meta names the question
    assert [p.name for p in first.supporting_precedents][1].startswith("In re Example")
    assert first.rubric_points() == ([5.0] * 4, 20.0)  # the question's points shared evenly
    assert second.id == "fx-essay-002"
    assert second.rubric_points() == ([4.0, 6.0], 10.0)  # the points given per rubric
    mcqa = items(load_exam(FIXTURES / "kcl_mcqa.jsonl", "kcl-mcqa"))
    assert all(isinstance(m, KclMCQA) for m in mcqa)
    assert [m.label for m in mcqa] == ["C", "A", "E"] and [m.gold for m in mcqa] == [2, 0, 4]
    assert items(load_exam(FIXTURES / "kcl_mcqa.csv", "kcl-mcqa")) == mcqa


@pytest.mark.parametrize(("label", "letter"), [("b", "B"), ("(C)", "C"), (4, "D"), ("5", "E"), ("②", "B")])
def test_kcl_labels_in_other_spellings(label, letter):
    item = KclMCQA.model_validate(
        {
            "id": "x",
            "meta": "m",
            "question": "q",
            "A": "a",
            "B": "b",
            "C": "c",
            "D": "d",
            "E": "e",
            "label": label,
        }
    )
    assert item.label == letter


def write(path: Path, rows: list[object]) -> Path:
    path.write_text(
        "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8"
    )
    return path


GOOD_MCQ = {"id": "g1", "question": "Q?", "choices": ["a", "b", "c", "d"], "gold": 1, "language": "en"}


@pytest.mark.parametrize(
    ("row", "fragment"),
    [
        (dict(GOOD_MCQ, gold=4), ":2: gold index 4 is outside the 4 choices"),
        (dict(GOOD_MCQ, choices=["a", "a", "b", "c"]), ":2: choice 'a' appears twice"),
        ({k: v for k, v in GOOD_MCQ.items() if k != "choices"}, ":2: choices: Field required"),
        (dict(GOOD_MCQ, question="   "), ":2: question: is empty"),
        (dict(GOOD_MCQ, year="soon"), ":2: year: Input should be a valid integer"),
        ("{not json", ":2: invalid JSON"),
        ("[1, 2]", ":2: not a JSON object (list)"),
        (dict(GOOD_MCQ, id="g0"), ":2: id: 'g0' repeats (first at"),
    ],
)
def test_a_bad_row_is_named_by_file_line_and_field(tmp_path, row, fragment):
    path = write(tmp_path / "mcq.jsonl", [dict(GOOD_MCQ, id="g0"), row])
    with pytest.raises(InputError) as raised:
        load_exam(path, "lexam-mcq")
    assert str(raised.value).startswith(str(path))
    assert fragment in str(raised.value)
    loose = load_exam(path, "lexam-mcq", strict=False)
    assert [i.item.id for i in loose.items] == ["g0"] and len(loose.errors) == 1


def test_kcl_rows_are_checked_too(tmp_path):
    essay = {"meta": "m1", "question": "q", "rubrics": ["r1", {"text": "r2", "points": 3}], "score": 10}
    path = write(tmp_path / "essay.jsonl", [essay])
    with pytest.raises(InputError, match=r"essay\.jsonl:1: .*give points for every rubric or for none"):
        load_exam(path, ExamFormat.kcl_essay)
    path = write(tmp_path / "essay.jsonl", [dict(essay, rubrics=[{"text": "r", "points": 4}])])
    with pytest.raises(InputError, match="rubric points sum to 4, not the question's score 10"):
        load_exam(path, "kcl-essay")
    mcqa = {"meta": "m", "question": "q", "A": "a", "B": "b", "C": "c", "D": "d", "E": "e", "label": "F"}
    with pytest.raises(InputError, match=r"mcqa\.jsonl:1: label: .*not 'F'"):
        load_exam(write(tmp_path / "mcqa.jsonl", [mcqa]), "kcl-mcqa")
    # a repeated meta (KCL's only name for a question) gets the line appended instead of failing
    twice = load_exam(
        write(tmp_path / "twice.jsonl", [dict(mcqa, label="A"), dict(mcqa, label="B")]), "kcl-mcqa"
    )
    assert [i.item.id for i in twice.items] == ["m", "m#2"]


def test_csv_cells_name_their_line_and_lists_may_be_python_literals(tmp_path):
    path = tmp_path / "mcq.csv"
    path.write_text(
        "id,question,choices,gold\n"
        "a1,Q?,\"['x', 'y', 'z']\",2\n"
        'a2,"A question\nover two lines","[""x"", ""y""]",B\n'
        "a3,Q?,not a list,0\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError, match=r"mcq\.csv:5: choices: not a list"):
        load_exam(path, "lexam-mcq")
    loose = load_exam(path, "lexam-mcq", strict=False)
    assert [(i.item.id, i.item.gold) for i in loose.items] == [("a1", 2), ("a2", 1)]


def test_unknown_file_types_and_missing_files_are_input_errors(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load_exam(tmp_path / "absent.jsonl", "lexam-open")
    (tmp_path / "data.parquet").write_bytes(b"PAR1")
    with pytest.raises(InputError, match=r"unknown file type \.parquet"):
        load_exam(tmp_path / "data.parquet", "lexam-open")
    (tmp_path / "empty.jsonl").write_text("\n", encoding="utf-8")
    with pytest.raises(InputError, match="no items"):
        load_exam(tmp_path / "empty.jsonl", "lexam-open")


# --- Hugging Face `datasets` ---------------------------------------------------------------------------

REVISION = "0123456789abcdef0123456789abcdef01234567"


class FakeDataset(list):
    """Enough of `datasets.Dataset` for the loader: iteration, len, info and a fingerprint."""

    def __init__(self, rows, urls=()):
        super().__init__(rows)
        self.info = types.SimpleNamespace(download_checksums={url: {} for url in urls})
        self._fingerprint = "fake-fingerprint"
        self.cache_files = []


def fake_datasets(rows, urls=()):
    module = types.ModuleType("datasets")
    calls = []

    def load_dataset(name, config, *, split, revision, cache_dir):
        calls.append((name, config, split, revision, cache_dir))
        return FakeDataset(rows, urls)

    def load_from_disk(path):
        calls.append(("disk", path))
        return {"test": FakeDataset(rows)}

    module.load_dataset = load_dataset
    module.load_from_disk = load_from_disk
    module.calls = calls
    return module


def test_without_the_datasets_package_a_hub_source_is_a_one_line_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "datasets", None)  # import datasets -> ImportError
    with pytest.raises(InputError) as raised:
        load_exam("hf:owner/exam:mcq_4_choices", "lexam-mcq")
    message = str(raised.value)
    assert "needs the `datasets` package (pip install datasets)" in message and "\n" not in message


def test_a_hub_source_is_loaded_and_pinned_to_its_revision(monkeypatch):
    rows = [dict(GOOD_MCQ, id=f"h{i}") for i in range(3)]
    url = f"hf://datasets/owner/exam@{REVISION}/mcq_4_choices/test-00000.parquet"
    module = fake_datasets(rows, [url])
    monkeypatch.setitem(sys.modules, "datasets", module)
    loaded = load_exam("hf:owner/exam:mcq_4_choices", "lexam-mcq", cache_dir="/cache")
    assert [i.item.id for i in loaded.items] == ["h0", "h1", "h2"]
    assert loaded.items[1].where == "hf:owner/exam:mcq_4_choices[test] row 1"
    assert module.calls == [("owner/exam", "mcq_4_choices", "test", None, "/cache")]
    fingerprint = loaded.fingerprint
    assert fingerprint["kind"] == "huggingface" and fingerprint["revision"] == REVISION
    assert fingerprint["pinned"] is True and fingerprint["rows"] == 3
    # an explicit revision is passed on and recorded; none known means "pinned": false
    monkeypatch.setitem(sys.modules, "datasets", fake_datasets(rows))
    assert source_fingerprint("hf:owner/exam:mcq_4_choices@v2")["revision"] == "v2"
    assert source_fingerprint("hf:owner/exam")["pinned"] is False


def test_a_saved_datasets_directory_is_pinned_by_its_bytes(monkeypatch, tmp_path):
    saved = tmp_path / "saved"
    saved.mkdir()
    (saved / "data-00000.arrow").write_bytes(b"arrow bytes")
    (saved / "state.json").write_text("{}", encoding="utf-8")
    monkeypatch.setitem(sys.modules, "datasets", fake_datasets([dict(GOOD_MCQ, id="d1")]))
    loaded = load_exam(saved, "lexam-mcq")
    assert [i.item.id for i in loaded.items] == ["d1"]
    assert loaded.fingerprint["kind"] == "datasets-directory" and len(loaded.fingerprint["sha256"]) == 64
    before = loaded.fingerprint["sha256"]
    (saved / "data-00000.arrow").write_bytes(b"other bytes")
    assert source_fingerprint(saved)["sha256"] != before
    with pytest.raises(InputError, match="no split 'dev'"):
        load_exam(saved, "lexam-mcq", split="dev")
