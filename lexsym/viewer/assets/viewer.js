// lexsym view: the sample list (filter, sort, choose columns) and one sample's detail, optionally
// side by side with the same sample in another run. Model output is untrusted text: every string
// reaches the page through textContent or createTextNode, never innerHTML.
"use strict";

const DATA = JSON.parse(document.getElementById("lexsym-data").textContent);
const COLUMNS = DATA.columns;
const TYPES = Object.fromEntries(COLUMNS.map((c) => [c.name, c.type]));
const FAILING = new Set(DATA.failing);
const ROW_LIMIT = 2000;
const DEFAULT_COLUMNS = ["run", "sample_id", "task", "outcome", "f1", "optimal", "n_violations", "accuracy", "judge_grade"];
const OPS = ["=", "≠", "contains", "<", ">", "is empty", "is not empty"];

const state = {
  quick: { run: "", task: "", outcome: "" },
  search: "",
  filters: [],
  sort: { column: null, descending: false },
  visible: DEFAULT_COLUMNS.filter((name) => name in TYPES && DATA.rows.some((r) => present(r[name]))),
  selected: null,
  compare: null,
};

function present(value) {
  return value !== null && value !== undefined && value !== "";
}

function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "on") {
      for (const [event, handler] of Object.entries(value)) node.addEventListener(event, handler);
    } else if (name in node && typeof node[name] !== "function" && name !== "list") {
      node[name] = value;
    } else {
      node.setAttribute(name, String(value));
    }
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function shown(value, type) {
  if (!present(value)) return "";
  if (type === "float") return Number.isInteger(value) ? String(value) : value.toFixed(3);
  if (type === "bool") return value ? "yes" : "no";
  return String(value);
}

// ---------------------------------------------------------------- filtering and sorting

function matches(row, filter) {
  const value = row[filter.column];
  const type = TYPES[filter.column];
  if (filter.op === "is empty") return !present(value);
  if (filter.op === "is not empty") return present(value);
  if (!present(value)) return filter.op === "≠";
  if (filter.op === "contains") return String(value).toLowerCase().includes(filter.value.toLowerCase());
  let left = value;
  let right = filter.value;
  if (type === "int" || type === "float") {
    right = Number(filter.value);
  } else if (type === "bool") {
    left = value ? "yes" : "no";
    right = ["true", "yes", "1"].includes(filter.value.toLowerCase()) ? "yes" : "no";
  } else {
    left = String(value);
  }
  if (filter.op === "=") return left === right;
  if (filter.op === "≠") return left !== right;
  if (filter.op === "<") return left < right;
  if (filter.op === ">") return left > right;
  return true;
}

function visibleRows() {
  const { run, task, outcome } = state.quick;
  const search = state.search.toLowerCase();
  const rows = DATA.rows.filter(
    (row) =>
      (run === "" || String(row._run) === run) &&
      (task === "" || row.task === task) &&
      (outcome === "" || (outcome === "failing" ? FAILING.has(row.outcome) : row.outcome === outcome)) &&
      (search === "" || row.sample_id.toLowerCase().includes(search)) &&
      state.filters.every((filter) => matches(row, filter)),
  );
  const { column, descending } = state.sort;
  if (column) {
    const order = column === "outcome" ? (v) => DATA.outcomes.indexOf(v) : (v) => v;
    rows.sort((a, b) => {
      const x = a[column];
      const y = b[column];
      if (!present(x) || !present(y)) return present(x) ? -1 : present(y) ? 1 : 0; // empty last
      const [p, q] = [order(x), order(y)];
      const sign = p < q ? -1 : p > q ? 1 : 0;
      return descending ? -sign : sign;
    });
  }
  return rows;
}

// ---------------------------------------------------------------- the toolbar

function options(select, values, labels) {
  select.replaceChildren(...values.map((value, i) => el("option", { value }, labels ? labels[i] : value)));
}

function distinct(name) {
  return [...new Set(DATA.rows.map((r) => r[name]).filter(present))].sort();
}

function buildToolbar() {
  const run = document.getElementById("quick-run");
  options(run, ["", ...DATA.runs.map((r) => String(r.index))], [
    "every run",
    ...DATA.runs.map((r) => `${r.name} (${r.model})`),
  ]);
  const task = document.getElementById("quick-task");
  options(task, ["", ...distinct("task")], ["every task", ...distinct("task")]);
  const outcome = document.getElementById("quick-outcome");
  const outcomes = DATA.outcomes.filter((o) => DATA.rows.some((r) => r.outcome === o));
  options(outcome, ["", "failing", ...outcomes], ["every outcome", "failing", ...outcomes]);
  for (const [select, key] of [[run, "run"], [task, "task"], [outcome, "outcome"]]) {
    select.addEventListener("change", () => {
      state.quick[key] = select.value;
      renderList();
    });
  }
  document.getElementById("failing-only").addEventListener("click", () => {
    state.quick.outcome = state.quick.outcome === "failing" ? "" : "failing";
    outcome.value = state.quick.outcome;
    renderList();
  });
  const search = document.getElementById("search");
  search.addEventListener("input", () => {
    state.search = search.value;
    renderList();
  });
  const names = COLUMNS.map((c) => c.name);
  options(document.getElementById("filter-column"), names);
  options(document.getElementById("filter-op"), OPS);
  document.getElementById("filter-form").addEventListener("submit", (event) => {
    event.preventDefault();
    state.filters.push({
      column: document.getElementById("filter-column").value,
      op: document.getElementById("filter-op").value,
      value: document.getElementById("filter-value").value.trim(),
    });
    renderList();
  });
  const sort = document.getElementById("sort-column");
  options(sort, ["", ...names], ["(file order)", ...names]);
  sort.addEventListener("change", () => {
    state.sort.column = sort.value || null;
    renderList();
  });
  document.getElementById("sort-direction").addEventListener("click", () => {
    state.sort.descending = !state.sort.descending;
    renderList();
  });
  const picker = document.getElementById("column-picker");
  picker.replaceChildren(
    ...names.map((name) =>
      el(
        "label",
        { className: "pick" },
        el("input", {
          type: "checkbox",
          value: name,
          checked: state.visible.includes(name),
          on: {
            change: (event) => {
              state.visible = event.target.checked
                ? names.filter((n) => state.visible.includes(n) || n === name)
                : state.visible.filter((n) => n !== name);
              renderList();
            },
          },
        }),
        name,
      ),
    ),
  );
}

function renderChips() {
  const chips = document.getElementById("filters");
  chips.replaceChildren(
    ...state.filters.map((filter, i) =>
      el(
        "span",
        { className: "chip" },
        `${filter.column} ${filter.op} ${filter.op.startsWith("is ") ? "" : filter.value}`,
        el("button", {
          type: "button",
          className: "chip-remove",
          title: "remove this filter",
          textContent: "×",
          on: {
            click: () => {
              state.filters.splice(i, 1);
              renderList();
            },
          },
        }),
      ),
    ),
  );
}

// ---------------------------------------------------------------- the list

function renderList() {
  renderChips();
  const rows = visibleRows();
  document.getElementById("sort-column").value = state.sort.column || "";
  document.getElementById("sort-direction").textContent = state.sort.descending ? "↓ descending" : "↑ ascending";
  document.getElementById("failing-only").classList.toggle("on", state.quick.outcome === "failing");
  const count = rows.length > ROW_LIMIT ? `first ${ROW_LIMIT} of ${rows.length}` : String(rows.length);
  document.getElementById("count").textContent = `${count} of ${DATA.rows.length} samples`;
  const head = el(
    "tr",
    {},
    state.visible.map((name) =>
      el(
        "th",
        {
          scope: "col",
          title: `sort by ${name}`,
          className: state.sort.column === name ? "sorted" : null,
          on: {
            click: () => {
              state.sort.descending = state.sort.column === name ? !state.sort.descending : false;
              state.sort.column = name;
              renderList();
            },
          },
        },
        name,
        state.sort.column === name ? (state.sort.descending ? " ▼" : " ▲") : "",
      ),
    ),
  );
  const body = rows.slice(0, ROW_LIMIT).map((row) =>
    el(
      "tr",
      {
        className: `row ${FAILING.has(row.outcome) ? "failing" : ""} ${row._key === state.selected ? "selected" : ""}`,
        tabIndex: 0,
        on: {
          click: () => select(row._key),
          keydown: (event) => event.key === "Enter" && select(row._key),
        },
        "data-key": row._key,
      },
      state.visible.map((name) =>
        name === "outcome"
          ? el("td", {}, el("span", { className: `badge ${row.outcome}` }, row.outcome))
          : el("td", { className: TYPES[name] === "string" ? "text" : "number" }, shown(row[name], TYPES[name])),
      ),
    ),
  );
  document.getElementById("samples").replaceChildren(el("thead", {}, head), el("tbody", {}, body));
}

function select(key, compare) {
  state.selected = key;
  state.compare = compare === undefined ? state.compare : compare;
  const detail = DATA.details[key];
  if (state.compare !== null && (state.compare === detail.run || !DATA.details[twinKey(key, state.compare)])) {
    state.compare = null;
  }
  const hash = `#sample=${encodeURIComponent(key)}${state.compare === null ? "" : `&compare=${state.compare}`}`;
  if (location.hash !== hash) history.replaceState(null, "", hash);
  for (const tr of document.querySelectorAll("#samples tr.row")) {
    tr.classList.toggle("selected", tr.dataset.key === key);
  }
  renderDetail();
}

function twinKey(key, run) {
  return `${run}|${DATA.details[key].sample_id}`;
}

window.lexsymSelect = select;
