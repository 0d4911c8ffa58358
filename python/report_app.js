// The interactive report's page (python/report_html.py inlines it into report_template.html
// after Plotly and the data). Everything is drawn from the embedded data, so that the filters
// redraw every view in the browser; nothing is fetched.
//
// The page is one function, in parts by concept that report_html.py joins in this order into
// one script: report_app.js (this file: the data, the helpers, the filters),
// report_app_charts.js (the shared chart pieces; the views of batch size, threads, speedup,
// depth, accuracy and ranking), report_app_scenarios.js (offline and server),
// report_app_details.js (per-operator profiles, compile time and resources, the latency
// distribution) and report_app_tables.js (the problem and machine tables, drawing everything,
// the controls, the start). No part is a script alone: they share this function's scope.
"use strict";
(function () {
  const RAW = JSON.parse(document.getElementById("ngb-data").textContent);
  const N = RAW.runs.n;
  const BASELINE = RAW.baseline;
  // Names from the inputs (a compiler folder named __proto__ or constructor) are never keys of
  // plain objects here: lookups by them go through Maps, or through own() on the parsed data.
  const own = (object, key) => (Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined);
  const C = {};  // column name -> one value per run (dictionary-encoded columns decoded)
  for (const [name, col] of Object.entries(RAW.runs.cols)) {
    C[name] = Array.isArray(col) ? col : col.codes.map((code) => col.dict[code]);
  }
  // "An empty valid counts as valid" (docs/analysis.md); a run that did not end ok is not judged.
  C.validity = C.valid.map((v, i) => (C.status[i] !== "ok" ? "not judged (not ok)"
                                      : v === "false" ? "invalid" : "valid"));

  // Views stay quick at 20,000 runs: a chart draws at most this many lines, the tables this
  // many rows, and each says what it left out.
  const MAX_LINES = 250;
  const MAX_TABLE_ROWS = 300;
  const MAX_HEATMAP_MODELS = 120;
  const MAX_RUN_CHOICES = 3000;

  // One colour per compiler in every view, as python/report.py: identity black, the others in
  // matplotlib's tab10 order by name.
  const TAB10 = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                 "#7f7f7f", "#bcbd22", "#17becf"];
  const COMPILERS = [...new Set(C.compiler)].sort();
  const COLORS = new Map(COMPILERS.filter((c) => c !== BASELINE).map((c, i) => [c, TAB10[i % 10]]));
  COLORS.set(BASELINE, "#000000");
  const COLOR = (compiler) => COLORS.get(compiler) || "#7f7f7f";

  const FILTERS = [
    { key: "device" }, { key: "compiler" }, { key: "experiment" }, { key: "model" },
    { key: "batch_size", label: "batch", numeric: true },
    { key: "threads", numeric: true }, { key: "precision" },
    { key: "validity", label: "valid" }, { key: "status" },
  ];
  // Offline and server runs (a scenario filter only where there are any).
  const SCENARIO_TABLES = ["roads", "offline_runs", "server_runs", "server_steps"];
  const HAS_SCENARIOS = SCENARIO_TABLES.some((t) => RAW[t] && RAW[t].length);
  if (new Set(C.scenario).size > 1) FILTERS.push({ key: "scenario" });
  const selected = {};  // filter key -> Set of the selected values, as strings
  let modelText = "";

  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  const fmt = (v, digits = 3) => (v === null || v === undefined ? "" : Number(v.toPrecision(digits)).toString());
  const csvNum = (s) => (s === undefined || s === "" ? null : Number(s));  // a cell of RAW.ranking
  const str = (v) => (v === null || v === undefined ? "" : String(v));
  const isOk = (i) => C.status[i] === "ok";
  // The batch-size views are single stream's: one request at a time (docs/analysis.md).
  const isSingleOk = (i) => isOk(i) && C.scenario[i] === "single_stream";

  // ---- filters ----------------------------------------------------------------------------

  function buildFilters() {
    const box = $("filters");
    for (const f of FILTERS) {
      const values = [...new Set(C[f.key].map(str))];
      values.sort(f.numeric ? (a, b) => (a === "" ? -1 : b === "" ? 1 : a - b) : undefined);
      selected[f.key] = new Set(values);
      const set = document.createElement("fieldset");
      const legend = document.createElement("legend");
      legend.textContent = f.label || f.key;
      const all = document.createElement("button");
      all.textContent = "all";
      all.type = "button";
      legend.appendChild(all);
      const select = document.createElement("select");
      select.multiple = true;
      select.id = "filter-" + f.key;
      select.size = Math.min(5, Math.max(2, values.length));
      for (const v of values) {
        const option = document.createElement("option");
        option.value = v;
        option.textContent = v === "" ? "(empty)" : v;
        option.selected = true;
        select.appendChild(option);
      }
      select.addEventListener("change", () => {
        selected[f.key] = new Set([...select.selectedOptions].map((o) => o.value));
        schedule();
      });
      all.addEventListener("click", () => {
        for (const o of select.options) o.selected = true;
        select.dispatchEvent(new Event("change"));
      });
      set.append(legend, select);
      if (f.key === "model") {
        const text = document.createElement("input");
        text.type = "text";
        text.placeholder = "name contains";
        text.id = "filter-model-text";
        text.addEventListener("input", () => { modelText = text.value.toLowerCase(); schedule(); });
        set.append(document.createElement("br"), text);
      }
      box.appendChild(set);
    }
  }

  function filtered() {
    const keep = [];
    for (let i = 0; i < N; i++) {
      let ok = true;
      for (const f of FILTERS) {
        if (!selected[f.key].has(str(C[f.key][i]))) { ok = false; break; }
      }
      if (ok && modelText && !C.model[i].toLowerCase().includes(modelText)) ok = false;
      if (ok) keep.push(i);
    }
    return keep;
  }

