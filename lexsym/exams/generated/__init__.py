"""Generated multiple-choice questions: LEXam-style k-choice questions whose statements our logic program
decides.

For a sampled case (`sample_scenario`) and its Solution (`solve`), statements of five kinds are drawn. Each
is true or false because of one fact of the gold, which the statement carries as its `reason` (prose) and
its `fact` (machine-readable, enough to re-check it against a fresh solve):

- AE  "The debtor may claim the exemptions of Oregon."            true iff OR ∈ allowable jurisdictions
- EC  'Under the Oregon exemptions, "…" falls under C.'           true iff C ∈ classification(OR, asset)
- EV  'The most that C on its own can protect of "…" is $X.'       true iff X = max_claim(J, asset, C)
- NA  'If the debtor claims the Oregon exemptions …, the least
       total value left non-exempt is $Y.'                         true iff Y = non_exempt_total(OR)
- OE  'Under the Oregon exemptions, the following claims together
       form a valid schedule …: …'                                 true iff `check_schedules` finds it valid

EC, EV, NA and OE statements speak of allowable jurisdictions only, as the gold of those tasks does. False EV
and NA statements change the true amount into a plausible wrong one (the asset's whole value, another
exemption's figure, another jurisdiction's total); false OE statements are the gold schedule (or another
allowable jurisdiction's optimal one) mutated, and they count as false only when the checker finds a
violation, which becomes the reason. A mutation the checker accepts is kept as a true statement.

Questions follow LEXam §2.1.2 and are built by `lexsym.exams.statements` (the shared construction): n
numbered statements (i, ii, …); each option is a subset of the statement numbers ("i and iii"), the empty
one reading "none of the statements"; one correct option and k − 1 distractors, k ∈ {4, 8, 16, 32} (k ≤ 2^n).
A negated stem asks for the incorrect statements, and then the gold option is the set of false statements.
The statements and their order are drawn once per case and shared by every k, as in LEXam's robustness set
(the choice count varies; stem and statements are held constant).

Records have the fields of `lexsym generate`'s (id, task "MCQ", variant "MCQ-k", split, prompt, gold = the
gold option's label, solved_steps, reference, metadata, case) with the MCQ conventions of
`lexsym.exams.tasks`: `reference` holds the question, the option labels and texts in display order (so
`lexsym.answers.choices` reads answers and `lexsym.scoring` scores them) and, under "case_gold", the case's
AE..OE gold answers;
`metadata` holds the statements with their truth, reason and fact, the options as statement numbers, k,
the case id and the seed.

Determinism: every draw comes from `case_rng` (seeded by text from the case shape, the case index and a
purpose), so the same configuration gives byte-identical task sets on any machine and with any worker count.
"""

from lexsym.exams.generated.case_statements import case_statements, select_statements
from lexsym.exams.generated.config import KINDS, MANIFEST_VERSION, TASK, TEMPLATE_VERSION, MCQConfig
from lexsym.exams.generated.questions import Option, Question, build_questions
from lexsym.exams.generated.records import (
    case_records,
    generate_mcq,
    prompt_jurisdictions,
    render_mcq_prompt,
    write_task_set,
)
from lexsym.exams.generated.wording import Statement

__all__ = [
    "KINDS",
    "MANIFEST_VERSION",
    "TASK",
    "TEMPLATE_VERSION",
    "MCQConfig",
    "Option",
    "Question",
    "Statement",
    "build_questions",
    "case_records",
    "case_statements",
    "generate_mcq",
    "prompt_jurisdictions",
    "render_mcq_prompt",
    "select_statements",
    "write_task_set",
]
