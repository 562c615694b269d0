// The workbench page: a thin face over simkit's API (simkit/serve/api.py). It holds no rules
// and no statistics: every check, verdict, interval and replay comes from the server, which
// calls the functions the command line calls. Text from the server is set as text, never as
// HTML.

const $ = (sel, root = document) => root.querySelector(sel);
const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

function el(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const kid of kids.flat()) if (kid !== null && kid !== undefined) e.append(kid);
  return e;
}

async function api(path, method = "GET", body = undefined) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["content-type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const res = await fetch(path, opts);
  const doc = await res.json().catch(() => ({ error: `the server answered ${res.status}` }));
  if (!res.ok) throw Object.assign(new Error(doc.error || res.statusText), doc);
  return doc;
}

function say(text, bad = false) {
  const s = $("#status");
  s.textContent = text;
  s.className = bad ? "err" : "msg ok";
}

function debounce(fn, ms) {
  let t;
  return (...a) => { clearTimeout(t); t = setTimeout(() => fn(...a), ms); };
}

const state = { games: [], game: null, data: null, changes: {}, lists: {}, errors: {}, changeset: "" };
// state.lists: the card lists replaced whole (a card added or removed), a row a card with its
// cells as text: saved as the card file LIST.csv that --cards reads, and checked as it.

// ------------------------------------------------------------------ tabs
function showTab(name) {
  for (const b of $$("nav button")) b.classList.toggle("on", b.dataset.tab === name);
  for (const s of $$("main > section")) s.hidden = s.id !== `tab-${name}`;
  if (name === "results") loadFolders();
  if (name === "replay") loadReplayFolders();
  if (name === "run") { syncForm(); refreshJobs(); }
  location.hash = name;
}
for (const b of $$("nav button")) b.addEventListener("click", () => showTab(b.dataset.tab));

// ------------------------------------------------------------------ games and data
async function loadGames() {
  const { games } = await api("/api/games");
  state.games = games;
  const list = $("#game-list");
  list.replaceChildren(...games.map(g => el("div", {
    class: "card", "data-game": g.name, tabindex: 0,
    onclick: () => pickGame(g.name),
    onkeydown: e => { if (e.key === "Enter") pickGame(g.name); },
  }, el("h3", {}, `${g.name} v${g.version}`),
     el("p", {}, `${g.players.join(", ")} players`),
     el("p", {}, `strategies: ${g.strategies.join(", ")}`),
     g.summary ? el("p", {}, g.summary) : null)));
  $("#f-game").replaceChildren(...games.map(g => el("option", { value: g.name }, g.name)));
}

async function pickGame(name, changeset = "") {
  state.game = name;
  state.changes = {};
  state.lists = {};
  state.errors = {};
  state.changeset = changeset;
  for (const c of $$(".card")) c.classList.toggle("on", c.dataset.game === name);
  $("#game-detail").hidden = false;
  $("#game-title").textContent = name;
  let q = "";
  if (changeset) {
    const cs = await api(`/api/changesets/${encodeURIComponent(changeset)}`);
    state.changes = { ...cs.changes };
    state.lists = JSON.parse(JSON.stringify(cs.lists || {}));
    q = `?changeset=${encodeURIComponent(changeset)}`;
    $("#cs-name").value = changeset;
  }
  state.data = await api(`/api/games/${encodeURIComponent(name)}/data${q}`);
  renderGrids();
  $("#f-game").value = name;
  syncSeats();
  await loadChangesets();
  showChanges();
}

function cellInput(key, value, deflt) {
  const shown = key in state.changes ? state.changes[key] : value;
  const input = el("input", { value: shown, "data-key": key, "data-default": deflt,
                               "aria-label": key });
  input.addEventListener("input", () => edited(input));
  return input;
}

function renderGrids() {
  const d = state.data;
  const out = [];
  out.push(el("h3", {}, "Data table"));
  out.push(el("table", { class: "grid" },
    el("thead", {}, el("tr", {}, ["key", "value", "default", "source", "why"].map(h => el("th", {}, h)))),
    el("tbody", {}, d.scalars.map(s => el("tr", {},
      el("td", {}, s.key),
      el("td", { "data-cell": s.key }, cellInput(s.key, s.value, s.default)),
      el("td", {}, s.default + (s.min !== null || s.max !== null ? ` (${s.min ?? ""}..${s.max ?? ""})` : "")
        + (s.choices ? ` (${s.choices.join(", ")})` : "")),
      el("td", {}, s.source), el("td", {}, el("span", { class: "why" }, s.why)))))));
  for (const l of d.lists) {
    const rows = state.lists[l.key];
    out.push(el("h3", {}, `${l.key}: ${rows ? rows.length : l.records.length} ${l.nouns}`,
      rows ? el("span", { class: "why" }, ` (replaced whole: --cards ${l.key}.csv) `,
        el("button", { class: "undo-list", onclick: () => { delete state.lists[l.key]; renderGrids(); check(); } },
           "undo the added and removed")) : null));
    const head = el("thead", {}, el("tr", {}, el("th", {}, l.noun),
      l.fields.map(f => el("th", { title: `${f.describe}; ${f.source}: ${f.why}` }, f.name,
        el("div", { class: "why" }, f.describe))), el("th", {}, "")));
    const body = rows ? rows.map((r, i) => listRow(l, r, i))
      : l.records.map(r => el("tr", { "data-name": r.name }, el("th", {}, r.name),
        l.fields.map(f => {
          const c = r.cells[f.name];
          return el("td", { "data-cell": c.key }, cellInput(c.key, c.value, c.default));
        }),
        el("td", {}, el("button", { class: "remove", title: `remove ${r.name} (the list is then replaced whole, as --cards does)`,
                                    onclick: () => removeRecord(l, r.name) }, "Remove"))));
    out.push(el("table", { class: "grid", "data-list": l.key }, head, el("tbody", {}, body)));
    out.push(el("div", { class: "bar" }, el("button", { class: "add", "data-list": l.key, onclick: () => addRecord(l) },
      `Add a${/^[aeiou]/.test(l.noun) ? "n" : ""} ${l.noun}`),
      l.removed.length && !rows ? el("span", { class: "why" }, `removed: ${l.removed.join(", ")}`) : null));
  }
  $("#grids").replaceChildren(...out);
  markCells();
}

function listRows(l) {
  // the list as its card file's rows, from the grid as it is (its --set edits folded in)
  return l.records.map(r => {
    const row = l.named ? { name: r.name } : {};
    for (const f of l.fields) {
      const c = r.cells[f.name];
      row[f.name] = c.key in state.changes ? state.changes[c.key] : c.value;
      delete state.changes[c.key];
    }
    if (r.source) row.source = r.source;
    if (r.why) row.why = r.why;
    return row;
  });
}

function removeRecord(l, name) {
  const rows = state.lists[l.key] || (state.lists[l.key] = listRows(l));
  const i = l.named ? rows.findIndex(r => r.name === name) : Number(name) - 1;
  if (i >= 0) rows.splice(i, 1);
  renderGrids();
  check();
}

function addRecord(l) {
  const rows = state.lists[l.key] || (state.lists[l.key] = listRows(l));
  const row = l.named ? { name: "" } : {};
  for (const f of l.fields) row[f.name] = f.default ?? "";
  rows.push(row);
  renderGrids();
  const names = $$(`table[data-list="${l.key}"] input[data-field="${l.named ? "name" : l.fields[0].name}"]`);
  names[names.length - 1]?.focus();
  check();
}

function listRow(l, r, i) {
  // a row of a replaced list: every cell (and a card's name) editable
  const cellOf = f => {
    const input = el("input", { value: r[f] ?? "", "data-field": f, "aria-label": `${l.key} row ${i + 1} ${f}` });
    input.addEventListener("input", () => { r[f] = input.value; check(); });
    const name = l.named ? r.name : String(i + 1);
    return el("td", { "data-cell": `${l.key}.${name}.${f}`, "data-row": `${l.key}[${i + 1}].${f}` }, input);
  };
  return el("tr", { "data-name": l.named ? r.name : String(i + 1) },
    l.named ? cellOf("name") : el("th", {}, String(i + 1)),
    l.fields.map(f => cellOf(f.name)),
    el("td", {}, el("button", { class: "remove", onclick: () => { state.lists[l.key].splice(i, 1); renderGrids(); check(); } }, "Remove")));
}

function edited(input) {
  const key = input.dataset.key;
  if (input.value.trim() === input.dataset.default) delete state.changes[key];
  else state.changes[key] = input.value;
  check();
}

const check = debounce(async () => {
  if (!state.game) return;
  try {
    const res = await api(`/api/games/${encodeURIComponent(state.game)}/check`, "POST",
                          { changes: state.changes, lists: state.lists });
    state.errors = res.errors;
  } catch (e) {
    state.errors = { "*": e.message };
  }
  markCells();
  showChanges();
}, 120);

function markCells() {
  for (const td of $$("td[data-cell]")) {
    const key = td.dataset.cell;
    const err = state.errors[key] ?? state.errors[td.dataset.row];
    td.classList.toggle("changed", key in state.changes && err === undefined);
    td.classList.toggle("bad", err !== undefined);
    const old = $(".cellerr", td);
    if (old) old.remove();
    if (err !== undefined) td.append(el("span", { class: "cellerr", role: "alert" }, err));
  }
}

function listDiff(key, rows) {
  // the names added and removed against the game's own list (as the grid was loaded)
  const l = state.data.lists.find(x => x.key === key);
  if (!l || !l.named) return "replaced";
  const was = l.records.filter(r => !r.added).map(r => r.name).concat(l.removed);
  const now = rows.map(r => r.name);
  const added = now.filter(n => !was.includes(n)), gone = was.filter(n => !now.includes(n));
  return [added.length ? `added ${added.join(", ")}` : "", gone.length ? `removed ${gone.join(", ")}` : ""]
    .filter(Boolean).join("; ") || "the same names";
}

function showChanges() {
  const keys = Object.keys(state.changes);
  const lines = Object.entries(state.lists).map(([k, rows]) =>
    `--cards ${k}.csv (${rows.length} rows: ${listDiff(k, rows)})` + (state.errors[k] ? `: ${state.errors[k]}` : ""));
  lines.push(...keys.map(k => `--set ${k}=${state.changes[k]}`));
  if (state.errors["*"]) lines.push(`refused together: ${state.errors["*"]}`);
  $("#changes").textContent = lines.length ? lines.join("\n") : "no changes: the game as it is";
}

async function loadChangesets() {
  const { changesets } = await api(`/api/changesets?game=${encodeURIComponent(state.game || "")}`);
  const opts = [el("option", { value: "" }, "(game as it is)"),
                ...changesets.map(c => el("option", { value: c.name }, `${c.name} (${Object.keys(c.changes).length})`))];
  $("#cs-open").replaceChildren(...opts);
  $("#cs-open").value = state.changeset;
  const formOpts = [el("option", { value: "" }, "(none: the game as it is)"),
                    ...changesets.map(c => el("option", { value: c.name }, c.name))];
  const f = $("#f-changeset");
  const was = f.value;
  f.replaceChildren(...formOpts);
  f.value = changesets.some(c => c.name === was) ? was : state.changeset;
  const exp = $("#cs-export");
  exp.hidden = !state.changeset;
  exp.href = state.changeset ? `/api/changesets/${encodeURIComponent(state.changeset)}/csv` : "#";
}

$("#cs-save").addEventListener("click", async () => {
  const name = $("#cs-name").value.trim();
  const msg = $("#cs-msg");
  try {
    await api(`/api/changesets/${encodeURIComponent(name)}`, "PUT",
              { game: state.game, changes: state.changes, lists: state.lists });
    state.changeset = name;
    const n = Object.keys(state.lists).length;
    msg.textContent = `saved ${name} (${Object.keys(state.changes).length} changes${n ? `, ${n} card list${n > 1 ? "s" : ""} replaced` : ""})`;
    msg.className = "msg ok";
    await loadChangesets();
    $("#f-changeset").value = name;
    syncForm();
  } catch (e) {
    msg.textContent = e.message;
    msg.className = "msg";
  }
});
$("#cs-open").addEventListener("change", e => pickGame(state.game, e.target.value));
$("#cs-import").addEventListener("change", async e => {
  const file = e.target.files[0];
  if (!file) return;
  const name = ($("#cs-name").value.trim() || file.name.replace(/\.csv$/i, "")).replace(/[^A-Za-z0-9_-]/g, "-");
  try {
    await api(`/api/changesets/${encodeURIComponent(name)}`, "PUT",
              { game: state.game, csv: await file.text() });
    await pickGame(state.game, name);
  } catch (err) {
    $("#cs-msg").textContent = err.message;
  }
  e.target.value = "";
});

// ------------------------------------------------------------------ the run form
function gameInfo(name) { return state.games.find(g => g.name === name); }

function syncSeats() {
  const g = gameInfo($("#f-game").value);
  if (!g) return;
  const players = $("#f-players");
  const was = players.value;
  players.replaceChildren(...g.players.map(p => el("option", { value: p }, p)));
  players.value = g.players.includes(Number(was)) ? was : g.players[0];
  const n = Number(players.value);
  const seats = $("#f-seats");
  // a seat keeps its strategy when only the player count changes; another game starts
  // from that game's strong player
  const old = seats.dataset.game === g.name ? $$("select", seats).map(s => s.value) : [];
  seats.dataset.game = g.name;
  seats.replaceChildren(...Array.from({ length: n }, (_, i) => el("label", {}, ` seat ${i + 1} `,
    el("select", { "data-seat": i, "aria-label": `strategy of seat ${i + 1}` },
       g.strategies.map(s => el("option", { value: s }, s))))));
  $$("select", seats).forEach((s, i) => {
    s.value = g.strategies.includes(old[i]) ? old[i] : g.strong;
    s.addEventListener("change", syncForm);
  });
}

function formDoc(kind) {
  const explore = ["sensitivity", "balance", "ladder"].includes(kind);
  return {
    kind, game: $("#f-game").value, players: $("#f-players").value,
    strategies: $$("#f-seats select").map(s => s.value).join(","),
    games: $("#f-games").value, seed: $("#f-seed").value, changeset: $("#f-changeset").value,
    precision: explore ? null : $("#f-precision").value.trim() || null,
    trace: ["sensitivity", "balance"].includes(kind) ? null : $("#f-trace").value.trim() || null,
    vary: kind === "sweep" || kind === "balance" ? $("#f-vary").value : undefined,
    model: $("#f-model").value, train: $("#f-train").value,
    keys: kind === "sensitivity" ? $("#f-keys").value : undefined,
    measure: kind === "sensitivity" ? $("#f-measure").value : undefined,
    objective: kind === "balance" ? $("#f-objective").value : undefined,
    trials: kind === "balance" ? $("#f-trials").value : undefined,
    confirm_games: kind === "balance" ? $("#f-confirm-games").value : undefined,
    levels: kind === "ladder" ? $("#f-levels").value : undefined,
  };
}

function fieldErrors(e) {
  for (const s of $$("#run-form .err")) s.textContent = "";
  if (e) {
    const where = $(`#run-form .err[data-for="${e.field || "form"}"]`) || $(`#run-form .err[data-for="form"]`);
    where.textContent = e.message;
    const fold = where.closest("details");
    if (fold) fold.open = true;
    if (e.message.includes("--model-mismatch ok") && $("#f-model").value === "refuse")
      $('#run-form .err[data-for="model"]').textContent = "the command line's two ways out are here";
  }
}

const syncForm = debounce(async () => {
  const kind = $("#f-kind").value || ($("#f-vary").value.trim() ? "sweep" : $("#f-changeset").value ? "whatif" : "run");
  const training = $("#f-model").value === "train";
  $("#f-train-box").hidden = !training;
  $("#f-training").textContent = training ? "estimating the training's cost..." : "";
  try {
    // with --train, the command's own estimate of the training before play (tune.training_estimate)
    const res = await api("/api/command", "POST", { ...formDoc(kind), estimate: training });
    $("#f-command").textContent = res.command;
    $("#f-training").textContent = res.training ? res.training.text : "";
    fieldErrors(null);
  } catch (e) {
    $("#f-command").textContent = "";
    $("#f-training").textContent = "";
    fieldErrors(e);
  }
}, 150);

$("#f-game").addEventListener("change", async () => {
  syncSeats();
  state.game = $("#f-game").value;
  await loadChangesets();
  syncForm();
});
$("#f-players").addEventListener("change", () => { syncSeats(); syncForm(); });
for (const id of ["#f-games", "#f-seed", "#f-changeset", "#f-precision", "#f-vary", "#f-train", "#f-keys", "#f-trace",
                  "#f-objective", "#f-trials", "#f-confirm-games", "#f-levels"]) $(id).addEventListener("input", syncForm);
for (const id of ["#f-model", "#f-measure", "#f-kind"]) $(id).addEventListener("change", syncForm);
$("#f-changeset").addEventListener("change", syncForm);
$("#f-copy").addEventListener("click", () => navigator.clipboard?.writeText($("#f-command").textContent));

async function startJob(kind) {
  try {
    const job = await api("/api/jobs", "POST", formDoc(kind));
    fieldErrors(null);
    say(`started: ${job.command}`);
    refreshJobs();
  } catch (e) {
    fieldErrors(e);
  }
}
$("#f-run").addEventListener("click", () => startJob("run"));
$("#f-whatif").addEventListener("click", () => startJob("whatif"));
$("#f-sweep").addEventListener("click", () => startJob("sweep"));
for (const kind of ["sensitivity", "balance", "ladder"])
  $(`#f-${kind}`).addEventListener("click", () => { $("#f-kind").value = kind; syncForm(); startJob(kind); });

// ------------------------------------------------------------------ jobs
const charts = {};

function pct(x) { return x === null || x === undefined ? "?" : `${(100 * x).toFixed(1)}`; }
function signed(x) { return x === null || x === undefined ? "?" : `${x >= 0 ? "+" : ""}${(100 * x).toFixed(1)}`; }
function duration(s) {
  if (s === null || s === undefined || !isFinite(s)) return "?";
  s = Math.round(s);
  return s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
}

function jobView(job) {
  const p = job.summary || {};
  const est = p.estimate;
  const actions = [];
  if (job.status === "running" || job.status === "queued")
    actions.push(el("button", { class: "cancel", onclick: () => jobAction(job.id, "cancel") }, "Cancel"));
  if (["cancelled", "interrupted", "failed"].includes(job.status))
    actions.push(el("button", { class: "resume", onclick: () => jobAction(job.id, "resume") }, "Resume"));
  if (job.status === "done")
    actions.push(el("button", { class: "open", onclick: () => openResult(job.out) }, "Open the results"));
  const box = el("div", { class: "job", "data-job": job.id, "data-status": job.status, "data-out": job.out },
    el("div", { class: "head" },
      el("span", { class: `status ${job.status}` }, job.status),
      el("strong", {}, job.out),
      p.total ? el("progress", { max: p.total || 1, value: p.done || 0 }) : null,
      el("span", { class: "played" }, job.status === "running" && !job.progress?.runs?.length
        ? (job.training?.models ? `training first: ${job.training.text}`
           : "preparing (a game's first run compiles its kernels: up to a minute)")
        : p.total ? `${(p.done || 0).toLocaleString()} of ${p.total.toLocaleString()} games` : ""),
      el("span", { class: "left" }, job.status === "running" && p.eta !== undefined ? `time left ${duration(p.eta)}` : ""),
      ...actions),
    el("div", {}, el("code", {}, job.command)),
    est ? el("div", { class: "estimate" },
      `${p.run_label}: first-player advantage ${signed(est.value)} points [${signed(est.low)}, ${signed(est.high)}] after ${est.games.toLocaleString()} games; seat 1 wins ${pct(est.seat1_win_rate)}%`) : null,
    job.message ? el("div", { class: "err" }, job.message) : null);
  return box;
}

function jobChart(job, box) {
  const runs = job.progress?.runs || [];
  const run = runs[runs.length - 1];
  if (!run || run.history.length < 2 || !window.uPlot) return;
  const h = run.history;
  const data = [h.map(r => r[0]), h.map(r => 100 * r[1]), h.map(r => 100 * r[2]), h.map(r => 100 * r[3])];
  const host = el("div", { class: "chart" });
  box.append(host);
  const opts = {
    width: Math.min(640, box.clientWidth - 20), height: 180,
    title: "first-player advantage (points) as the games play, with its 95% interval",
    scales: { x: { time: false } },
    axes: [{ label: "games" }, { label: "points" }],
    series: [{ label: "games" },
      { label: "estimate", stroke: "#2b6cb0", width: 2 },
      { label: "95% low", stroke: "#a0aec0", dash: [4, 4] },
      { label: "95% high", stroke: "#a0aec0", dash: [4, 4] }],
  };
  charts[job.id] = new uPlot(opts, data, host);
}

async function refreshJobs() {
  let jobs;
  try {
    ({ jobs } = await api("/api/jobs"));
  } catch (e) { say(e.message, true); return; }
  const boxes = jobs.map(j => { const b = jobView(j); return [j, b]; });
  $("#jobs").replaceChildren(...boxes.map(([, b]) => b));
  for (const [j, b] of boxes) jobChart(j, b);
  const busy = jobs.some(j => j.status === "running" || j.status === "queued");
  clearTimeout(refreshJobs.timer);
  if (!$("#tab-run").hidden) refreshJobs.timer = setTimeout(refreshJobs, busy ? 500 : 3000);
}

async function jobAction(id, what) {
  try {
    await api(`/api/jobs/${id}/${what}`, "POST", {});
  } catch (e) { say(e.message, true); }
  refreshJobs();
}

// ------------------------------------------------------------------ results
const searchFolders = debounce(() => loadFolders(), 150);
$("#r-search").addEventListener("input", searchFolders);

async function loadFolders() {
  const { folders } = await api(`/api/folders?q=${encodeURIComponent($("#r-search").value)}`);
  $("#folders tbody").replaceChildren(...folders.map(f => el("tr", {
    "data-path": f.path, onclick: e => { if (e.target.type !== "checkbox") openResult(f.path, f); } },
    el("td", {}, f.kind === "run" ? el("input", { type: "checkbox", class: "pick", value: f.path,
                                                  "aria-label": `compare ${f.path}`, onchange: picked }) : ""),
    el("td", {}, f.path), el("td", {}, f.kind), el("td", {}, f.game ?? ""),
    el("td", {}, f.players ?? ""), el("td", {}, f.strategies ?? ""), el("td", {}, f.changes ?? ""),
    el("td", {}, f.games !== undefined && f.games !== null ? f.games.toLocaleString() + (f.complete === false ? " (stopped)" : "") : ""),
    el("td", {}, (f.date || "").replace("T", " ").slice(0, 16)))));
  return folders;
}

let current = null;

function picked() {
  const n = $$("#folders input.pick:checked").length;
  $("#compare").disabled = n < 2 || n > 4;
}

$("#compare").addEventListener("click", async () => {
  const paths = $$("#folders input.pick:checked").map(c => c.value);
  say("building the comparison...");
  try {
    const { report } = await api("/api/compare", "POST", { paths });
    current = null;
    $("#result").hidden = false;
    $("#result-title").textContent = paths.join(" and ");
    $("#headline").replaceChildren();
    $("#result-chart").replaceChildren();
    $("#result-table").replaceChildren();
    const frame = $("#report-frame");
    frame.src = `/files/${report.split("/").map(encodeURIComponent).join("/")}`;
    frame.hidden = false;
    say("");
  } catch (e) { say(e.message, true); }
});

async function openResult(path) {
  showTabOnly("results");
  loadFolders();
  $("#result").hidden = false;
  $("#result-title").textContent = path;
  $("#headline").replaceChildren(el("p", {}, "reading..."));
  $("#report-frame").hidden = true;
  $("#result-chart").replaceChildren();
  $("#result-table").replaceChildren();
  try {
    current = await api(`/api/result?path=${encodeURIComponent(path)}`);
  } catch (e) {
    $("#headline").replaceChildren(el("p", { class: "err" }, e.message));
    current = { path, kind: "other" };
    return;
  }
  $("#headline").replaceChildren(el("strong", {}, "Verdict"), ...current.verdicts.map(v => el("p", {}, v)));
  if (current.figures?.tornado) tornadoChart(current.figures.tornado);
  if (current.kind === "whatif") {
    const rows = current.differences;
    $("#result-table").replaceChildren(table(
      ["measure", "group", "base", "changed", "difference", "95% interval", "p"],
      rows.map(r => [r.measure, r.group, fmt(r.measure, r.base), fmt(r.measure, r.changed),
                     fmtd(r.measure, r.difference), `[${fmtd(r.measure, r.ci_low)}, ${fmtd(r.measure, r.ci_high)}]`,
                     r.p_value === null ? "" : Number(r.p_value).toPrecision(2)]), "paired"));
    differenceChart(current.figures.differences);
  } else if (current.seats) {
    seatChart(current.figures.seats);
    endingsChart(current.figures.endings);
    $("#result-table").replaceChildren(table(
      ["seat", "games", "wins", "ties", "score share", "advantage (points)"],
      current.seats.map(r => [r.name || r.seat, r.games, `${pct(r.win_rate)}%`, `${pct(r.tie_rate)}%`,
                              `${pct(r.share)}%`, `${signed(r.advantage)} [${signed(r.adv_low)}, ${signed(r.adv_high)}]`]), "seats"));
  }
}

const SHARE = ["win rate", "first-player advantage", "share of games"];
function fmt(m, x) { return x === null ? "" : SHARE.includes(m) ? `${(100 * x).toFixed(2)}%` : Number(x).toFixed(3); }
function fmtd(m, x) { return x === null ? "" : SHARE.includes(m) ? `${x >= 0 ? "+" : ""}${(100 * x).toFixed(2)}pp` : `${x >= 0 ? "+" : ""}${Number(x).toFixed(3)}`; }

function table(head, rows, cls) {
  return el("table", { class: cls }, el("thead", {}, el("tr", {}, head.map(h => el("th", {}, h)))),
            el("tbody", {}, rows.map(r => el("tr", {}, r.map(c => el("td", {}, String(c)))))));
}

// The charts draw the report's own figure data (reports/figdata.py, sent as
// result.figures): the same rows, labels, units and intervals as the report's figures.
function intervalChart(host, title, rows, unit, label = "difference", low = "low", high = "high", value = "value") {
  // one panel: a point per row with its 95% interval (hover a point; drag to zoom)
  if (!rows.length || !window.uPlot) return;
  const xs = rows.map((_, i) => i + 1);
  const scale = unit === "share" ? 100 : 1;
  const shown = unit === "share" ? "%" : unit;
  const opts = {
    width: Math.max(640, Math.min(1100, 110 * rows.length)), height: 240, title,
    scales: { x: { time: false, range: [0, rows.length + 1] } },
    axes: [{ values: (u, ticks) => ticks.map(t => (Number.isInteger(t) && rows[t - 1] ? rows[t - 1].label.slice(0, 28) : "")),
             size: 40 },
           { label: shown }],
    series: [{ label: "row", value: (u, v) => (rows[v - 1] ? rows[v - 1].label : "") },
      { label, stroke: "#2b6cb0", width: 0, points: { size: 8, fill: "#2b6cb0" } },
      { label: "95% low", stroke: "#a0aec0", width: 0, points: { size: 5 } },
      { label: "95% high", stroke: "#a0aec0", width: 0, points: { size: 5 } }],
  };
  const box = el("div", { class: "chart", "data-figure": title });
  host.append(box);
  const col = k => rows.map(r => (r[k] === null ? null : scale * r[k]));
  const u = new uPlot(opts, [xs, col(value), col(low), col(high)], box);
  // export: the chart as drawn (PNG), and the figure data it was drawn from (JSON)
  const name = title.replace(/[^A-Za-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 60);
  box.append(el("div", { class: "export" },
    el("a", { href: "#", onclick: e => { e.target.href = u.ctx.canvas.toDataURL("image/png"); },
              download: `${name}.png` }, "PNG"), " ",
    el("a", { href: URL.createObjectURL(new Blob([JSON.stringify({ title, unit, rows }, null, 1)],
                                                 { type: "application/json" })),
              download: `${name}.json` }, "data")));
}

function differenceChart(fig) {
  // the report's what-if figure (figdata.whatif_differences): a chart per panel
  const host = $("#result-chart");
  for (const p of fig.panels) intervalChart(host, `${fig.title}: ${p.xlabel}`, p.rows, p.unit);
  if (fig.panels.length) host.append(el("p", { class: "why" }, fig.note));
}

function endingsChart(fig) {
  // the report's how-games-ended figure (figdata.endings): a chart per panel
  const host = $("#result-chart");
  for (const p of fig.panels)
    intervalChart(host, `${fig.title}: ${p.title} (95% Wilson interval)`, p.rows, fig.unit, "share of games");
}

function tornadoChart(fig) {
  // the report's tornado (figdata.tornado): each number a step down, then a step up
  const host = $("#result-chart");
  for (const [dir, name] of [["down", "a step down"], ["up", "a step up"]]) {
    const rows = fig.rows.filter(r => r[dir]).map(r => ({ label: `${r.label}: ${r[dir].tried}`, ...r[dir] }));
    intervalChart(host, `Sensitivity, ${name}: ${fig.xlabel}, ${fig.games.toLocaleString()} paired games each`,
                  rows, fig.unit, "change");
  }
  host.append(el("p", { class: "why" }, fig.note));
}

function seatChart(fig) {
  // the report's outcome-by-seat figure (figdata.seat_outcomes): outright wins per seat
  const host = $("#result-chart");
  for (const p of fig.panels)
    intervalChart(host, `${fig.title}, ${p.title}: outright win (95% Wilson interval)`, p.rows,
                  fig.unit, "outright wins", "win_low", "win_high", "win");
}

$("#open-report").addEventListener("click", async () => {
  if (!current) return;
  let page = current.report;
  try {
    if (!page) page = (await api("/api/report", "POST", { path: current.path })).report;
  } catch (e) { say(e.message, true); return; }
  const frame = $("#report-frame");
  frame.src = `/files/${page.split("/").map(encodeURIComponent).join("/")}`;
  frame.hidden = false;
});
$("#open-games").addEventListener("click", () => {
  if (!current) return;
  replayFolder = current.kind === "whatif" ? `${current.path}/changed` : current.path;
  showTab("replay");
});

function showTabOnly(name) {
  for (const b of $$("nav button")) b.classList.toggle("on", b.dataset.tab === name);
  for (const s of $$("main > section")) s.hidden = s.id !== `tab-${name}`;
}

// ------------------------------------------------------------------ replays
let replayFolder = "";
const replay = { steps: [], at: 0, path: "", game: 0 };

async function loadReplayFolders() {
  const folders = (await api("/api/folders")).folders;
  const runs = [];
  for (const f of folders) {
    if (f.kind === "run") runs.push(f.path);
    if (f.kind === "whatif") runs.push(`${f.path}/base`, `${f.path}/changed`);
  }
  $("#p-folder").replaceChildren(...runs.map(p => el("option", { value: p }, p)));
  if (replayFolder && runs.includes(replayFolder)) $("#p-folder").value = replayFolder;
  if (runs.length) loadGameList();
}

async function loadGameList() {
  const path = $("#p-folder").value;
  replayFolder = path;
  const filter = $("#p-filter").value || "all";
  $("#p-lost-by").hidden = filter !== "lost-by";
  const more = filter === "lost-by" ? `&seat=${encodeURIComponent($("#p-seat-lost").value)}&by=${encodeURIComponent($("#p-by").value)}` : "";
  try {
    // the filters are the server's (api.game_list): a comeback is read from the run's trace there
    const res = await api(`/api/games-of?path=${encodeURIComponent(path)}&filter=${filter}${more}`);
    if (!$("#p-filter").options.length)
      $("#p-filter").replaceChildren(...Object.entries(res.filters).map(([k, v]) => el("option", { value: k }, v)));
    $("#p-count").className = "msg ok";
    $("#p-count").textContent = `${res.matching.toLocaleString()} games${res.traced !== null ? ` of the ${res.traced.toLocaleString()} traced` : ""}${res.matching > res.games.length ? `, the first ${res.games.length} listed` : ""}`;
    $("#p-games").replaceChildren(...res.games.map(g => el("div", {
      "data-game": g.game, onclick: () => openReplay(path, g.game) },
      `game ${g.game}: ${g.winner ? "P" + g.winner + " won" : "no single winner"}, ${g.turns} turns, ${g.end}; ${g.strategies.join(" v ")}; scores ${g.scores.join("-")}`
      + (g.deficit !== undefined ? `; the winner trailed by up to ${Number(g.deficit.toPrecision(3))} ${res.progress_unit}` : ""))));
  } catch (e) {
    $("#p-count").className = "err";
    $("#p-count").textContent = e.message;
    $("#p-games").replaceChildren();
  }
}
$("#p-folder").addEventListener("change", loadGameList);
$("#p-filter").addEventListener("change", loadGameList);
const lostBy = debounce(loadGameList, 200);
$("#p-seat-lost").addEventListener("input", lostBy);
$("#p-by").addEventListener("input", lostBy);

async function openReplay(path, game, seat = $("#p-seat").value) {
  for (const d of $$("#p-games div")) d.classList.toggle("on", Number(d.dataset.game) === game);
  say(`replaying game ${game}...`);
  let r;
  try {
    r = await api(`/api/replay?path=${encodeURIComponent(path)}&game=${game}${seat ? `&seat=${seat}` : ""}`);
  } catch (e) { say(e.message, true); return; }
  say("");
  const keep = replay.path === path && replay.game === game ? replay.at : 0;
  Object.assign(replay, { steps: r.steps, at: keep, path, game });
  const seats = $("#p-seat");
  if (seats.options.length !== r.players + 1)
    seats.replaceChildren(el("option", { value: "" }, "everything"),
      ...Array.from({ length: r.players }, (_, i) => el("option", { value: `P${i + 1}` }, `P${i + 1} (${r.strategies[i]})`)));
  seats.value = seat || "";
  $("#p-viewer").hidden = false;
  $("#p-setup").textContent = r.setup.join("\n");
  $("#p-steps").replaceChildren(...r.steps.map(s => el("li", { value: s.decision },
    `${s.seat}: ${s.text}`, ...s.lines.map(l => el("div", {}, l)))));
  $("#p-end").textContent = r.end;
  $("#p-ask-strategy").replaceChildren(el("option", { value: "" }, "the strategy that played it"),
    ...[...new Set(r.strategies)].map(s => el("option", { value: s }, s)));
  step(0);
}

function step(delta, to = null) {
  const n = replay.steps.length;
  if (!n) return;
  replay.at = Math.max(0, Math.min(n - 1, to === null ? replay.at + delta : to));
  $("#p-advice").hidden = true;
  $$("#p-steps li").forEach((li, i) => {
    li.classList.toggle("past", i < replay.at);
    li.classList.toggle("now", i === replay.at);
  });
  $$("#p-steps li")[replay.at]?.scrollIntoView({ block: "nearest" });
  $("#p-pos").textContent = `decision ${replay.at + 1} of ${n}`;
}
$("#p-first").addEventListener("click", () => step(0, 0));
$("#p-prev").addEventListener("click", () => step(-1));
$("#p-next").addEventListener("click", () => step(1));
$("#p-last").addEventListener("click", () => step(0, replay.steps.length - 1));
$("#p-seat").addEventListener("change", e => openReplay(replay.path, replay.game, e.target.value));
document.addEventListener("keydown", e => {
  if ($("#tab-replay").hidden || e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
  if (e.key === "ArrowRight") step(1);
  if (e.key === "ArrowLeft") step(-1);
});

// ------------------------------------------------------------------ play a seat
// The server keeps the game; the page gets only what the seat it holds sees (its
// observation's describe text, its legal moves with the game's labels, its log).
const live = { id: "", seat: "", view: null, timer: null };

function syncPlayForm() {
  const g = gameInfo($("#g-game").value);
  if (!g) return;
  const players = $("#g-players");
  const was = players.value;
  players.replaceChildren(...g.players.map(p => el("option", { value: p }, p)));
  players.value = g.players.includes(Number(was)) ? was : g.players[0];
  const n = Number(players.value);
  const old = $$("#g-seats select").map(s => s.value);
  $("#g-seats").replaceChildren(...Array.from({ length: n }, (_, i) => el("label", {}, ` P${i + 1} `,
    el("select", { "data-seat": i, "aria-label": `who plays P${i + 1}` },
      el("option", { value: "human" }, "you"), g.strategies.map(s => el("option", { value: s }, s))))));
  $$("#g-seats select").forEach((s, i) => {
    s.value = old[i] && (old[i] === "human" || g.strategies.includes(old[i])) ? old[i]
      : i === 0 ? "human" : g.strong;
  });
  const sel = $("#t-ask-strategy");
  const keep = sel.value;
  sel.replaceChildren(...g.strategies.map(s => el("option", { value: s }, s)));
  sel.value = g.strategies.includes(keep) ? keep : g.strong;
  api(`/api/changesets?game=${encodeURIComponent(g.name)}`).then(({ changesets }) =>
    $("#g-changeset").replaceChildren(el("option", { value: "" }, "(none: the game as it is)"),
      ...changesets.map(c => el("option", { value: c.name }, c.name)))).catch(() => {});
}

async function startTable() {
  $("#g-err").textContent = "";
  const doc = { game: $("#g-game").value, players: $("#g-players").value, seed: $("#g-seed").value,
                changeset: $("#g-changeset").value, seats: $$("#g-seats select").map(s => s.value) };
  say("dealing...");
  try { showTable(await api("/api/tables", "POST", doc)); say("your game"); }
  catch (e) { $("#g-err").textContent = e.message; say(e.message, true); }
}

function showTable(v) {
  live.id = v.table; live.seat = v.seat; live.view = v;
  $("#table").hidden = false;
  $("#table").dataset.over = v.over;
  $("#t-title").textContent = `${v.game}, ${v.players} players, seed ${v.seed}` +
    (v.changeset ? `, change set ${v.changeset}` : "") + ` (saved as ${v.folder})`;
  const mine = v.seats.map((s, i) => s === "human" ? `P${i + 1}` : null).filter(Boolean);
  if ($("#t-seat").options.length !== mine.length || live.id !== $("#t-seat").dataset.table) {
    $("#t-seat").replaceChildren(...mine.map(s => el("option", { value: s }, s)));
    $("#t-seat").dataset.table = live.id;
  }
  $("#t-seat").value = v.seat;
  for (const n of $$(".t-seatname")) n.textContent = v.seat;
  $("#t-sees").textContent = v.sees.join("\n");
  $("#t-log").replaceChildren(...v.log.map(e => el("li", { value: e.decision },
    `${e.seat}: ${e.lines[0] ?? ""}`, ...e.lines.slice(1).map(l => el("div", {}, l)))));
  $("#t-log").lastElementChild?.scrollIntoView({ block: "nearest" });
  $("#t-moves").replaceChildren(...v.moves.map(m => el("button", { "data-move": m.move,
    onclick: () => playMove(m.move) }, m.label)));
  $("#t-turn").textContent = v.over ? "the game is over" : v.to_move === v.seat ? "your move"
    : `${v.to_move} (${v.seats[Number(v.to_move.slice(1)) - 1]}) is thinking...`;
  $("#t-ask").disabled = v.to_move !== v.seat;
  $("#t-skip").disabled = v.over || v.moves.length > 0;
  const r = $("#t-result");
  r.hidden = !v.over;
  if (v.over) {
    const won = v.result.ranks.map((k, i) => k === 1 ? `P${i + 1}` : null).filter(Boolean);
    r.textContent = `${v.result.end} after ${v.result.turns} turns: ${won.length ? won.join(", ") + " won" : "no winner"}; ` +
      `scores ${v.result.scores.map((x, i) => `P${i + 1}=${x}`).join(", ")}. Replay it with: simkit replay --run ${v.folder}`;
  }
  clearTimeout(live.timer);
  if (!v.over && v.seats[Number(v.to_move.slice(1)) - 1] !== "human")
    live.timer = setTimeout(() => botStep(false), Number($("#t-pace").value));
  else if (!v.over && v.moves.length === 0 && v.to_move !== v.seat)
    live.timer = setTimeout(() => switchSeat(v.to_move), 300);  // another of your seats
}

async function botStep(skip) {
  clearTimeout(live.timer);
  try { showTable(await api(`/api/tables/${live.id}/step`, "POST", { seat: live.seat, skip })); }
  catch (e) { say(e.message, true); }
}

async function playMove(move) {
  $("#t-advice").hidden = true;
  for (const b of $$("#t-moves button")) b.disabled = true;
  try { showTable(await api(`/api/tables/${live.id}/play`, "POST", { seat: live.seat, move })); }
  catch (e) { say(e.message, true); }
}

async function switchSeat(seat) {
  try { showTable(await api(`/api/tables/${live.id}?seat=${seat}`)); }
  catch (e) { say(e.message, true); }
}

function showAdvice(box, a) {
  box.hidden = false;
  const rated = a.ratings.some(r => r.visits !== null) ? ["visits", "mean reward"]
    : a.ratings.some(r => r.value !== null) ? ["value"] : [];
  box.replaceChildren(
    el("p", {}, `${a.strategy} would play: `, el("strong", {}, a.label),
       ` (from ${a.seat}'s observation only; ${a.seconds.toFixed(2)} s)`,
       a.played !== null ? ` The game played: ${a.ratings.find(r => r.move === a.played)?.label ?? a.played}.` : ""),
    el("table", {}, el("thead", {}, el("tr", {}, ["move", ...rated].map(h => el("th", {}, h)))),
      el("tbody", {}, a.ratings.map(r => el("tr", { class: r.chosen ? "chosen" : "" }, el("td", {}, r.label),
        rated.map(h => el("td", {}, h === "visits" ? String(r.visits ?? 0)
          : h === "value" ? (r.value === null ? "" : r.value.toFixed(3))
          : r.mean_reward === null ? "-" : r.mean_reward.toFixed(3))))))));
}

async function askTable() {
  $("#t-ask").disabled = true;
  say("asking...");
  try {
    showAdvice($("#t-advice"), await api(`/api/tables/${live.id}/ask`, "POST",
      { seat: live.seat, strategy: $("#t-ask-strategy").value }));
    say("advice ready");
  } catch (e) { say(e.message, true); }
  $("#t-ask").disabled = live.view.to_move !== live.seat;
}

async function askReplay() {
  say("asking...");
  try {
    showAdvice($("#p-advice"), await api("/api/replay/ask", "POST", { path: replay.path, game: replay.game,
      decision: replay.steps[replay.at].decision, strategy: $("#p-ask-strategy").value }));
    say("advice ready");
  } catch (e) { say(e.message, true); }
}

$("#g-game").addEventListener("change", syncPlayForm);
$("#g-players").addEventListener("change", syncPlayForm);
$("#g-start").addEventListener("click", startTable);
$("#t-skip").addEventListener("click", () => botStep(true));
$("#t-seat").addEventListener("change", e => switchSeat(e.target.value));
$("#t-ask").addEventListener("click", askTable);
$("#p-ask").addEventListener("click", askReplay);

// ------------------------------------------------------------------ start
(async () => {
  try {
    await loadGames();
    syncSeats();
    $("#g-game").replaceChildren(...state.games.map(g => el("option", { value: g.name }, g.name)));
    syncPlayForm();
    await loadChangesets();
    const tab = location.hash.slice(1);
    showTab(["games", "run", "results", "replay", "play"].includes(tab) ? tab : "games");
    say("ready");
  } catch (e) {
    say(e.message, true);
  }
})();
