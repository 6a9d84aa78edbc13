"""Law-exam benchmarks beside the logic program: LEXam and KCL items as lexsym task records.

The generated AE..OE tasks test one statute family against a solver's gold; exam datasets test the same
models on questions written by law professors and bar examiners. This package keeps that second source
apart, one concept per module:

- `datasets`: reading LEXam and KCL files (JSONL, CSV, XLSX, Hugging Face), validated and pinned;
- `statements`: LEXam's construction of k-choice questions from numbered true/false statements;
- `prompts`: languages and the open-question templates; `mcq`: multiple-choice templates, answer
  extraction, accuracy with standard errors, option shuffling and the position-bias report;
- `precedents`: supporting precedents for a prompt: KCL's own cut of its long ones, a fair-share budget;
- `tasks`: conversion into `tasks.jsonl` + `manifest.json`, the layout `lexsym generate` writes.
"""

from __future__ import annotations
