// One sample's detail, and the same sample in a second run beside it. Loaded after viewer.js.
"use strict";

const SHORT_REASONING = 1500;

function textBlock(text, className) {
  return present(text) ? el("pre", { className: className || "text" }, text) : el("p", { className: "none" }, "none");
}

function summary(detail) {
  const run = DATA.runs[detail.run];
  const scores = Object.entries(detail.scores).map(([name, value]) =>
    el("span", { className: "score" }, `${name} `, el("b", {}, shown(value, "float"))),
  );
  return el(
    "div",
    { className: "summary" },
    el("div", { className: "run-name" }, el("span", { className: `badge ${detail.outcome}` }, detail.outcome), ` ${run.name}`),
    el("div", { className: "meta" }, `${detail.model} · ${detail.task} · ${detail.variant || ""} · repeat ${detail.repeat}`),
    el("div", { className: "scores" }, scores.length ? scores : "not scored"),
  );
}

function violations(detail) {
  const parts = [];
  if (detail.checker_error) parts.push(el("p", { className: "problem" }, detail.checker_error));
  if (detail.violations.length) {
    parts.push(
      el(
        "ol",
        { className: "violations" },
        detail.violations.map((v) =>
          el(
            "li",
            {},
            el("span", { className: "message" }, v.message),
            v.citation ? el("cite", {}, v.citation) : null,
            el("code", { className: "rule" }, v.name),
          ),
        ),
      ),
    );
  }
  for (const note of detail.checker_notes) parts.push(el("p", { className: "note" }, note));
  return parts.length ? parts : null;
}

function fields(detail) {
  if (!detail.fields.length) return null;
  const rows = detail.fields.map((f) =>
    el(
      "tr",
      { className: f.same === "no" ? "differs" : "agrees" },
      el("td", { className: "field" }, f.field),
      el("td", {}, f.gold),
      el("td", {}, f.answer),
      el("td", { className: "same" }, f.same),
    ),
  );
  return [
    el(
      "table",
      { className: "fields" },
      el("thead", {}, el("tr", {}, ["field", "gold", "answer", "same?"].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", {}, rows),
    ),
    detail.fields_note ? el("p", { className: "note" }, detail.fields_note) : null,
  ];
}

function answer(detail) {
  if (!present(detail.answer) && !detail.parse_error) return null; // nothing read, nothing to explain
  return [
    detail.parse_error ? el("p", { className: "problem" }, `could not read the answer: ${detail.parse_error}`) : null,
    present(detail.answer) ? el("pre", { className: "text" }, detail.answer) : null,
  ];
}

function judges(detail) {
  if (!detail.judges.length) return null;
  return detail.judges.map((reply) =>
    el(
      "div",
      { className: "judge" },
      el(
        "div",
        { className: "judge-head" },
        el("b", {}, reply.judge),
        ` (${reply.kind}) · ${reply.status} · grade ${present(reply.score) ? shown(reply.score, "float") : "none"}`,
      ),
      reply.problem ? el("p", { className: "problem" }, reply.problem) : null,
      reply.items.length
        ? el(
            "ol",
            { className: "items" },
            reply.items.map((item) =>
              el(
                "li",
                { className: item.satisfied === true ? "met" : item.satisfied === false ? "unmet" : "undecided" },
                `${item.satisfied === true ? "✓" : item.satisfied === false ? "✗" : "?"} ${item.text} (${item.points} points)`,
                item.reason ? el("div", { className: "reason" }, item.reason) : null,
              ),
            ),
          )
        : null,
      reply.attempts.map((attempt, i) =>
        el(
          "div",
          { className: "attempt" },
          el("div", { className: "attempt-head" }, `reply ${i + 1}${attempt.problem ? ` — not used: ${attempt.problem}` : ""}`),
          textBlock(attempt.raw),
          attempt.reasoning ? el("details", {}, el("summary", {}, "judge reasoning"), textBlock(attempt.reasoning)) : null,
        ),
      ),
    ),
  );
}

function reasoning(detail) {
  if (!present(detail.reasoning)) return null;
  const open = detail.reasoning.length <= SHORT_REASONING; // a long one stays folded, out of the way
  return el(
    "details",
    { open },
    el("summary", {}, `${detail.reasoning.length.toLocaleString()} characters`),
    textBlock(detail.reasoning),
  );
}

function prompt(detail) {
  const p = DATA.prompts[detail.prompt];
  return el(
    "details",
    { className: "prompt" },
    el("summary", {}, `prompt (${(p.system.length + p.user.length).toLocaleString()} characters)`),
    p.system ? [el("h4", {}, "system"), textBlock(p.system)] : null,
    el("h4", {}, "user"),
    textBlock(p.user),
  );
}

const SECTIONS = [
  ["Call error", (d) => (d.error ? el("p", { className: "problem" }, d.error) : null)],
  ["Checker", violations],
  ["Answer against the gold", fields],
  ["Extracted answer", answer],
  ["Judges", judges],
  ["Completion", (d) => textBlock(d.completion)],
  ["Reasoning", reasoning],
  ["Gold", (d) => textBlock(d.gold)],
  ["Prompt", prompt],
];

function renderDetail() {
  const pane = document.getElementById("detail");
  if (state.selected === null) {
    pane.replaceChildren(el("p", { className: "hint" }, "Click a sample to open it."));
    return;
  }
  const detail = DATA.details[state.selected];
  const twins = DATA.runs.filter((r) => r.index !== detail.run && DATA.details[twinKey(state.selected, r.index)]);
  const other = state.compare === null ? null : DATA.details[twinKey(state.selected, state.compare)];
  const picker = el(
    "select",
    {
      id: "compare",
      disabled: !twins.length,
      on: { change: (event) => select(state.selected, event.target.value === "" ? null : Number(event.target.value)) },
    },
    el("option", { value: "" }, twins.length ? "(none)" : "no other run has it"),
    twins.map((r) => el("option", { value: String(r.index), selected: r.index === state.compare }, `${r.name} (${r.model})`)),
  );
  const pair = other ? [detail, other] : [detail];
  const body = [
    el("h2", { id: "detail-title" }, detail.sample_id),
    el("label", { className: "compare" }, "Compare with ", picker),
    el("div", { className: `columns n${pair.length}` }, pair.map((d) => el("div", { className: "column" }, summary(d)))),
  ];
  for (const [title, render] of SECTIONS) {
    const parts = pair.map((d) => render(d));
    if (parts.every((p) => p === null || (Array.isArray(p) && p.every((x) => x === null)))) continue;
    const samePrompt = title === "Prompt" && other && other.prompt === detail.prompt;
    const cells = samePrompt ? [parts[0]] : parts;
    body.push(
      el(
        "section",
        { className: `section ${title.toLowerCase().replaceAll(" ", "-")}` },
        el("h3", {}, title),
        el("div", { className: `columns n${cells.length}` }, cells.map((p) => el("div", { className: "column" }, p ?? el("p", { className: "none" }, "none")))),
      ),
    );
  }
  pane.replaceChildren(...body);
  pane.scrollTop = 0;
}

function openFromHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  const key = params.get("sample");
  if (key && DATA.details[key]) {
    select(key, params.has("compare") ? Number(params.get("compare")) : null);
  } else {
    renderDetail();
  }
}

buildToolbar();
renderList();
openFromHash();
window.addEventListener("hashchange", openFromHash);
