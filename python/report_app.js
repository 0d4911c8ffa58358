// The interactive report's page (python/report_html.py inlines it into report_template.html
// after Plotly and the data). Everything is drawn from the embedded data, so that the filters
// redraw every view in the browser; nothing is fetched.
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

  // ---- shared chart pieces ------------------------------------------------------------------

  const BASE_LAYOUT = {
    margin: { l: 60, r: 10, t: 36, b: 44 }, height: 400, hovermode: "closest",
    legend: { font: { size: 11 } }, font: { size: 11 },
  };
  const CONFIG = { displaylogo: false, responsive: true,
                   toImageButtonOptions: { format: "svg" } };

  function layout(title, extra) {
    // Left-aligned: Plotly's toolbar sits at the top right.
    return Object.assign({}, BASE_LAYOUT, {
      title: { text: title, font: { size: 13 }, x: 0, xref: "paper", xanchor: "left" } }, extra);
  }

  function emptyLayout(title, why) {
    return layout(title, {
      xaxis: { visible: false }, yaxis: { visible: false },
      annotations: [{ text: why, showarrow: false, xref: "paper", yref: "paper", x: 0.5, y: 0.5,
                      font: { size: 13, color: "#888" } }],
    });
  }

  const pending = [];
  function draw(id, traces, lay) {
    pending.push(Plotly.react($(id), traces, lay, CONFIG));
  }

  function log2Axis(values, title) {
    const ticks = [...new Set(values)].sort((a, b) => a - b);
    return { type: "log", title: { text: title }, tickvals: ticks, ticktext: ticks.map(String) };
  }

  function runLabel(i) {
    const extra = [];
    if (C.threads[i] !== null) extra.push(C.threads[i] + " thr");
    if (C.precision[i]) extra.push(C.precision[i]);
    return `${C.compiler[i]} · ${C.model[i]} · b${C.batch_size[i]} · ${C.device[i]}` +
           (extra.length ? ` (${extra.join(", ")})` : "");
  }

  // Lines of y against x, one per (device, compiler, experiment, model and the settings runs
  // are compared at), drawn as one trace per compiler with gaps between lines; at most MAX_LINES
  // lines, taken model by model so that every compiler keeps its lines for the same models.
  function linesByCompiler(idx, x, y, low, high, lineKey, sortKey) {
    const lines = new Map();
    for (const i of idx) {
      if (y(i) === null || x(i) === null) continue;
      const k = lineKey(i);
      if (!lines.has(k)) lines.set(k, []);
      lines.get(k).push(i);
    }
    const keys = [...lines.keys()].sort((a, b) => {
      const sa = sortKey(lines.get(a)[0]), sb = sortKey(lines.get(b)[0]);
      return sa < sb ? -1 : sa > sb ? 1 : 0;
    });
    const shown = keys.slice(0, MAX_LINES);
    const traces = new Map();
    for (const k of shown) {
      const points = lines.get(k).sort((a, b) => x(a) - x(b));
      const compiler = C.compiler[points[0]];
      if (!traces.has(compiler)) {
        traces.set(compiler, {
          type: "scatter", mode: "lines+markers", name: esc(compiler), x: [], y: [], text: [],
          customdata: [], line: { color: COLOR(compiler), width: 1.3,
                                  dash: compiler === BASELINE ? "dash" : "solid" },
          marker: { size: 5 }, hovertemplate: "%{text}<extra></extra>", connectgaps: false,
          error_y: { type: "data", symmetric: false, array: [], arrayminus: [], thickness: 1,
                     width: 2, color: COLOR(compiler) },
        });
      }
      const t = traces.get(compiler);
      for (const i of points) {
        const v = y(i), lo = low(i), hi = high(i);
        t.x.push(x(i)); t.y.push(v); t.customdata.push(i);
        t.error_y.array.push(hi === null ? null : hi - v);
        t.error_y.arrayminus.push(lo === null ? null : v - lo);
        t.text.push(`${esc(runLabel(i))}<br>${fmt(v, 4)}` +
                    (lo === null || hi === null ? "" : ` [${fmt(lo, 4)}, ${fmt(hi, 4)}]`));
      }
      for (const arr of [t.x, t.y, t.text, t.customdata, t.error_y.array, t.error_y.arrayminus]) {
        arr.push(null);
      }
    }
    const ordered = [...traces.keys()].sort((a, b) =>
      (a === BASELINE ? -1 : b === BASELINE ? 1 : a < b ? -1 : 1));
    return { traces: ordered.map((c) => traces.get(c)), total: keys.length, shown: shown.length };
  }

  const runLine = (i) => [C.device[i], C.compiler[i], C.experiment[i], C.model[i], C.threads[i],
                          C.precision[i], C.compute_device[i], C.timing_boundary[i]].join("|");
  const runSort = (i) => [C.experiment[i], C.model[i], C.device[i], C.compiler[i],
                          C.threads[i], C.precision[i]].join("|");
  const batch = (i) => C.batch_size[i];
  const latencyMs = (i) => C.latency_p50_ms[i];
  const throughput = (i) => C.throughput_median_sps[i];
  // Throughput's interval is b over the median latency's (docs/analysis.md: throughput_ci_*_sps).
  const tpLow = (i) => (C.latency_p50_ci_high_ms[i] ? 1000 * C.batch_size[i] / C.latency_p50_ci_high_ms[i] : null);
  const tpHigh = (i) => (C.latency_p50_ci_low_ms[i] ? 1000 * C.batch_size[i] / C.latency_p50_ci_low_ms[i] : null);
  const col = (name) => (i) => C[name][i];

  function onPointClick(id) {
    $(id).on("plotly_click", (event) => {
      const p = event.points && event.points[0];
      if (p && p.customdata !== null && p.customdata !== undefined) {
        selectedRun = p.customdata;
        drawDistribution(lastIdx);
        flush();
        $("sec-dist").scrollIntoView({ behavior: "smooth" });
      }
    });
  }

  // ---- views ----------------------------------------------------------------------------

  function drawBatch(idx) {
    const ok = idx.filter(isSingleOk);
    const batches = ok.map(batch);
    const specs = [
      ["fig-latency", "median latency of one batch (ms)", latencyMs, col("latency_p50_ci_low_ms"), col("latency_p50_ci_high_ms"), "log"],
      ["fig-throughput", "throughput (samples/s)", throughput, tpLow, tpHigh, "log"],
    ];
    let note = "";
    for (const [id, title, y, lo, hi] of specs) {
      const lines = linesByCompiler(ok, batch, y, lo, hi, runLine, runSort);
      if (!lines.total) { draw(id, [], emptyLayout(title, "no ok runs under these filters")); continue; }
      if (lines.shown < lines.total) note = `Showing ${lines.shown} of ${lines.total} lines: narrow the filters (e.g. a model name) to see the rest.`;
      draw(id, lines.traces, layout(title, { xaxis: log2Axis(batches, "batch size"),
                                             yaxis: { type: "log", title: { text: title } } }));
    }
    $("note-batch").textContent = note;
  }

  function drawScaling(idx) {
    const ok = idx.filter(isSingleOk);
    const batches = [...new Set(ok.map(batch))].sort((a, b) => a - b);
    for (const [id, name, title] of [["fig-rtr", "rtr", "RTR = T(b)/T(1)"],
                                     ["fig-ase", "ase", "ASE = T(b)/(b·T(1)) = L(1)/L(b)"]]) {
      const lines = linesByCompiler(ok, batch, col(name), col(name + "_ci_low"), col(name + "_ci_high"), runLine, runSort);
      if (!lines.total) { draw(id, [], emptyLayout(title, "no run with a batch-1 baseline under these filters")); continue; }
      const ref = (label, ys, dash) => ({
        type: "scatter", mode: "lines", name: label, x: batches, y: ys, hoverinfo: "name",
        line: { color: "#9e9e9e", dash, width: 1.5 },
      });
      const refs = name === "ase"
        ? [ref("1 = linear scaling", batches.map(() => 1), "dot"),
           ref("1/b = no gain", batches.map((b) => 1 / b), "dashdot")]
        : [ref("b = linear scaling", batches, "dot"), ref("1 = no gain", batches.map(() => 1), "dashdot")];
      draw(id, refs.concat(lines.traces), layout(title, {
        xaxis: log2Axis(batches, "batch size"), yaxis: { type: "log", title: { text: name.toUpperCase() } },
      }));
    }
  }

  function geomean(values) {
    return Math.exp(values.reduce((s, v) => s + Math.log(v), 0) / values.length);
  }

  function drawSpeedup(idx) {
    const cells = new Map();  // model -> compiler -> speedups
    for (const i of idx) {
      const s = C.speedup_vs_identity[i];
      if (!isOk(i) || s === null || !(s > 0) || C.compiler[i] === BASELINE) continue;
      if (!cells.has(C.model[i])) cells.set(C.model[i], new Map());
      const row = cells.get(C.model[i]);
      if (!row.has(C.compiler[i])) row.set(C.compiler[i], []);
      row.get(C.compiler[i]).push(s);
    }
    const title = "speedup over identity (geometric mean over the runs in a cell)";
    let models = [...cells.keys()].sort();
    $("note-speedup").textContent = models.length > MAX_HEATMAP_MODELS
      ? `Showing ${MAX_HEATMAP_MODELS} of ${models.length} models: narrow the filters to see the rest.` : "";
    models = models.slice(0, MAX_HEATMAP_MODELS);
    if (!models.length) { draw("fig-speedup", [], emptyLayout(title, "no speedup under these filters (no compiler run with a matching identity run)")); return; }
    const compilers = COMPILERS.filter((c) => c !== BASELINE && models.some((m) => cells.get(m).has(c)));
    const z = [], text = [];
    for (const m of models) {
      const zr = [], tr = [];
      for (const c of compilers) {
        const v = cells.get(m).get(c);
        if (!v) { zr.push(null); tr.push(""); continue; }
        const g = geomean(v);
        zr.push(Math.log2(g));
        tr.push(`${esc(m)} · ${esc(c)}<br>speedup ${fmt(g, 3)}× (n = ${v.length})`);
      }
      z.push(zr); text.push(tr);
    }
    const ticks = [-4, -3, -2, -1, 0, 1, 2, 3, 4];
    draw("fig-speedup", [{
      type: "heatmap", x: compilers.map(esc), y: models.map(esc), z, text, hovertemplate: "%{text}<extra></extra>",
      colorscale: "RdBu", reversescale: true, zmid: 0, zmin: -3, zmax: 3, xgap: 1, ygap: 1,
      colorbar: { title: { text: "speedup" }, tickvals: ticks,
                  ticktext: ticks.map((t) => (t < 0 ? "1/" + 2 ** -t : String(2 ** t))) },
    }], layout(title, { height: Math.min(2400, Math.max(320, 16 * models.length + 120)),
                        margin: { l: 200, r: 10, t: 36, b: 60 },
                        yaxis: { autorange: "reversed", automargin: true, type: "category" },
                        xaxis: { type: "category" } }));
  }

  function drawDepth(idx) {
    const rows = idx.filter((i) => isSingleOk(i) && C.depth[i] !== null && C.width[i] !== null);
    const line = (i) => [C.device[i], C.compiler[i], C.experiment[i], C.width[i], C.batch_size[i],
                         C.threads[i], C.precision[i]].join("|");
    const sort = (i) => [C.experiment[i], String(C.width[i]).padStart(8, "0"),
                         String(C.batch_size[i]).padStart(8, "0"), C.device[i], C.compiler[i]].join("|");
    const depths = rows.map((i) => C.depth[i]);
    for (const [id, title, y, lo, hi] of [
      ["fig-depth-throughput", "throughput (samples/s) against depth", throughput, tpLow, tpHigh],
      ["fig-depth-speedup", "speedup over identity against depth", col("speedup_vs_identity"), col("speedup_ci_low"), col("speedup_ci_high")],
    ]) {
      const lines = linesByCompiler(rows, (i) => C.depth[i], y, lo, hi, line, sort);
      if (!lines.total) { draw(id, [], emptyLayout(title, "no block experiment (width and depth) under these filters")); continue; }
      for (const t of lines.traces) {  // name each line's width and batch in its hover
        t.text = t.text.map((s, k) => (s === null ? null : s + `<br>width ${C.width[t.customdata[k]]}, depth ${C.depth[t.customdata[k]]}`));
      }
      draw(id, lines.traces, layout(title, { xaxis: log2Axis(depths, "depth"),
                                             yaxis: { type: "log", title: { text: title.split(" against")[0] } } }));
    }
  }

  // ---- accuracy against latency ----

  // Only where some run has an SNR (an int8 run); otherwise the section is removed.
  const HAS_ACCURACY = C.check_snr_db.some((v) => v !== null);
  const accuracyGroup = (i) => `${C.model[i]} · b${C.batch_size[i]} · ${C.device[i]}`;
  let accuracyGroups = [];
  function drawAccuracy(idx) {
    if (!HAS_ACCURACY) return;
    const ok = idx.filter(isSingleOk);
    const groups = [...new Set(ok.filter((i) => C.check_snr_db[i] !== null).map(accuracyGroup))].sort();
    const select = $("accuracy-group");
    const before = select.value;
    if (groups.join("\n") !== accuracyGroups.join("\n")) {
      select.innerHTML = groups.map((g) => `<option>${esc(g)}</option>`).join("");
      accuracyGroups = groups;
      if (groups.includes(before)) select.value = before;
    }
    const title = "SNR against fp32 (dB) and median latency";
    if (!groups.length) { draw("fig-accuracy", [], emptyLayout(title, "no run with an SNR (int8) under these filters")); return; }
    const group = groups.includes(select.value) ? select.value : groups[0];
    const runs = ok.filter((i) => accuracyGroup(i) === group && C.latency_p50_ms[i] !== null);
    const snrs = runs.map((i) => C.check_snr_db[i]).filter((v) => v !== null);
    const yLow = Math.min(...snrs) - 5, yHigh = Math.max(...snrs) + 5;
    const traces = [];
    for (const i of runs) {
      const L = C.latency_p50_ms[i], lo = C.latency_p50_ci_low_ms[i], hi = C.latency_p50_ci_high_ms[i];
      const name = esc(`${C.compiler[i]} ${C.precision[i] || ""}`.trim());
      const snr = C.check_snr_db[i];
      let text = `${esc(runLabel(i))}<br>p50 ${fmt(L, 4)} ms` +
                 (lo === null || hi === null ? "" : ` [${fmt(lo, 4)}, ${fmt(hi, 4)}]`);
      if (snr === null) {  // checked at a float tolerance: a line at its latency
        traces.push({ type: "scatter", mode: "lines", name, x: [L, L], y: [yLow, yHigh],
                      customdata: [i, i], text: [text, text], hovertemplate: "%{text}<extra></extra>",
                      line: { color: COLOR(C.compiler[i]), dash: "dash", width: 1.3 } });
        continue;
      }
      text += `<br>SNR ${fmt(snr, 3)} dB, cosine ${fmt(C.check_cosine[i], 5)}` +
              (C.check_top1_agreement[i] === null ? "" : `, top-1 agreement ${fmt(C.check_top1_agreement[i], 3)}`);
      traces.push({ type: "scatter", mode: "markers", name, x: [L], y: [snr], customdata: [i],
                    text: [text], hovertemplate: "%{text}<extra></extra>",
                    marker: { color: COLOR(C.compiler[i]), size: 10, symbol: "diamond" },
                    error_x: { type: "data", symmetric: false, array: [hi === null ? null : hi - L],
                               arrayminus: [lo === null ? null : L - lo], thickness: 1.2, width: 3,
                               color: COLOR(C.compiler[i]) } });
    }
    draw("fig-accuracy", traces, layout(`${title}: ${esc(group)}`, {
      xaxis: { type: "log", title: { text: "median latency of one batch (ms)" } },
      yaxis: { title: { text: "SNR against fp32 (dB)" }, range: [yLow, yHigh] } }));
  }

  // ---- ranking ----

  let rankingGroups = [];
  function drawRanking(idx) {
    const devices = new Set(idx.map((i) => C.device[i]));
    const batches = new Set(idx.map((i) => String(C.batch_size[i])));
    const compilers = new Set(idx.map((i) => C.compiler[i]));
    const rows = RAW.ranking.filter((r) => devices.has(r.device) && batches.has(r.batch_size) && compilers.has(r.compiler));
    const groups = [...new Set(rows.map((r) => r.device + " · batch " + r.batch_size))];
    // Two precisions of one compiler are two columns (an analysis from before precision: none).
    const rlabel = (r) => r.compiler + (r.precision && r.precision !== "fp32" ? " " + r.precision : "");
    const select = $("ranking-group");
    const before = select.value;
    if (groups.join("\n") !== rankingGroups.join("\n")) {
      select.innerHTML = groups.map((g) => `<option>${esc(g)}</option>`).join("");
      rankingGroups = groups;
      if (groups.includes(before)) select.value = before;
    }
    const title = "rank by throughput (1 = fastest)";
    if (!groups.length) {
      draw("fig-ranking", [], emptyLayout(title, "no ranking under these filters (the architectures experiment)"));
      $("ranking-table").innerHTML = "";
      return;
    }
    const group = select.value || groups[0];
    const chosen = rows.filter((r) => r.device + " · batch " + r.batch_size === group);
    const order = (text) => (text ? text.split(">") : []);
    const identityOrder = chosen.map((r) => order(r.identity_order)).sort((a, b) => b.length - a.length)[0];
    const columns = [BASELINE].concat(chosen.map(rlabel));
    const models = identityOrder.slice();
    for (const r of chosen) for (const m of order(r.compiler_order)) if (!models.includes(m)) models.push(m);
    const traces = models.map((m, k) => {
      const xs = [], ys = [];
      columns.forEach((c, j) => {
        const o = j === 0 ? identityOrder : order(chosen[j - 1].compiler_order);
        const pos = o.indexOf(m);
        xs.push(esc(c)); ys.push(pos < 0 ? null : pos + 1);
      });
      return { type: "scatter", mode: "lines+markers", name: esc(m), x: xs, y: ys,
               line: { color: TAB10[k % 10], width: 2 }, marker: { size: 9 },
               hovertemplate: `${esc(m)}: rank %{y} under %{x}<extra></extra>` };
    });
    const reversals = RAW.reversals.filter((r) => r.device + " · batch " + r.batch_size === group && compilers.has(r.compiler));
    for (const [verdict, color, dash] of [["significant", "#c62828", "solid"], ["tie", "#ef6c00", "dot"]]) {
      const xs = [], ys = [], hover = [];
      for (const r of reversals.filter((r) => (r.verdict || "tie") === verdict)) {
        const j = columns.indexOf(rlabel(r));
        if (j < 1) continue;
        const o = order(chosen[j - 1].compiler_order);
        for (const m of [r.model_a, r.model_b]) {
          xs.push(esc(rlabel(r))); ys.push(o.indexOf(m) + 1);
          hover.push(`${verdict} reversal under ${esc(rlabel(r))}: ${esc(r.model_a)} / ${esc(r.model_b)}`);
        }
      }
      traces.push({ type: "scatter", mode: "markers", name: verdict + " reversal", x: xs, y: ys,
                    text: hover, hovertemplate: "%{text}<extra></extra>",
                    marker: { symbol: "circle-open", size: 20, color, line: { width: 2.5, dash } } });
    }
    draw("fig-ranking", traces, layout(`${title}: ${esc(group)}`, {
      height: Math.max(320, 40 * models.length + 120),
      xaxis: { type: "category" },
      yaxis: { autorange: "reversed", dtick: 1, title: { text: "rank" } } }));
    let html = "<table><tr><th>compiler</th><th>models</th><th>Kendall tau-b</th><th>reversed pairs</th><th>significant</th><th>ties</th><th>note</th></tr>";
    for (const r of chosen) {
      html += `<tr><td>${esc(rlabel(r))}</td><td class="num">${esc(r.models_ranked)}</td><td class="num">${esc(fmt(csvNum(r.kendall_tau_b)))}</td>` +
              `<td class="num">${esc(r.reversed_pairs)} of ${esc(r.pairs)}</td><td class="num">${esc(r.significant_reversals || "")}</td>` +
              `<td class="num">${esc(r.tied_reversals || "")}</td><td>${esc(r.note)}</td></tr>`;
    }
    html += "</table>";
    if (reversals.length) {
      html += "<table><tr><th>compiler</th><th>A</th><th>B</th><th>identity A, B (samples/s)</th><th>compiler A, B</th><th>identity L_A/L_B 95%</th><th>compiler L_A/L_B 95%</th><th>verdict</th></tr>";
      const ci = (r, p) => (r[p + "_ci_low"] ? `${fmt(csvNum(r[p + "_ci_low"]), 3)}–${fmt(csvNum(r[p + "_ci_high"]), 3)}` : "");
      for (const r of reversals) {
        const cls = r.verdict === "significant" ? "sig" : "tie";
        html += `<tr><td>${esc(rlabel(r))}</td><td>${esc(r.model_a)}</td><td>${esc(r.model_b)}</td>` +
                `<td class="num">${fmt(csvNum(r.identity_a_sps), 4)}, ${fmt(csvNum(r.identity_b_sps), 4)}</td>` +
                `<td class="num">${fmt(csvNum(r.compiler_a_sps), 4)}, ${fmt(csvNum(r.compiler_b_sps), 4)}</td>` +
                `<td class="num">${ci(r, "identity_latency_ratio")}</td><td class="num">${ci(r, "compiler_latency_ratio")}</td>` +
                `<td class="${cls}">${esc(r.verdict || "")}</td></tr>`;
      }
      html += "</table>";
    }
    $("ranking-table").innerHTML = html;
  }

  // ---- offline and server: samples in flight, latency against throughput ----

  // A row of an analysis table of `scenario` under the filters on scenario, device, compiler,
  // experiment and model.
  const keepRow = (scenario) => (r) => (!selected.scenario || selected.scenario.has(scenario)) &&
    selected.device.has(r.device) && selected.compiler.has(r.compiler) &&
    selected.experiment.has(r.experiment) && selected.model.has(r.model) &&
    (!modelText || r.model.toLowerCase().includes(modelText));

  // Rows grouped into lines by `key`, at most `max` lines (by key), each sorted by `order`.
  function groupLines(rows, key, order, max) {
    const lines = new Map();
    for (const r of rows) {
      const k = key(r);
      if (!lines.has(k)) lines.set(k, []);
      lines.get(k).push(r);
    }
    const keys = [...lines.keys()].sort();
    return { lines: keys.slice(0, max).map((k) => lines.get(k).sort((a, b) => order(a) - order(b))),
             total: keys.length };
  }

  // Appends one line's points to the trace of `name` (created with `style`), then a gap.
  function addLine(traces, name, style, points) {
    if (!traces.has(name)) {
      traces.set(name, Object.assign({ type: "scatter", mode: "lines+markers", name, x: [], y: [],
        text: [], hovertemplate: "%{text}<extra></extra>", connectgaps: false }, style));
    }
    const t = traces.get(name);
    for (const [x, y, text] of points) { t.x.push(x); t.y.push(y); t.text.push(text); }
    t.x.push(null); t.y.push(null); t.text.push(null);
  }

  const ROADS = [["batching", "batching_sps", "solid", "circle"],
                 ["concurrency", "concurrency_sps", "dot", "square"]];
  function drawRoads() {
    const title = "samples/s against samples in flight";
    const rows = RAW.roads.filter(keepRow("offline"));
    const { lines, total } = groupLines(rows, (r) => [r.device, r.experiment, r.compiler, r.model].join("|"),
                                        (r) => csvNum(r.samples_in_flight), Math.floor(MAX_LINES / 2));
    const traces = new Map();
    for (const line of lines) {
      const compiler = line[0].compiler;
      for (const [road, column, dash, symbol] of ROADS) {
        const points = line.filter((r) => csvNum(r[column]) !== null).map((r) => [
          csvNum(r.samples_in_flight), csvNum(r[column]),
          `${esc(r.compiler)} · ${esc(r.model)} · ${esc(r.device)}<br>${road}, k = ${esc(r.samples_in_flight)}: ` +
          `${fmt(csvNum(r[column]), 4)} samples/s` + (r.concurrency_over_batching
            ? `<br>concurrency / batching ${fmt(csvNum(r.concurrency_over_batching), 3)} (${esc(r.better)} better)` : "")]);
        if (points.length) {
          addLine(traces, `${esc(compiler)}, ${road}`, { line: { color: COLOR(compiler), dash, width: 1.3 },
                                                    marker: { symbol, size: 6 } }, points);
        }
      }
    }
    const note = lines.length < total ? `Showing ${lines.length} of ${total} models' lines: narrow the filters to see the rest.` : "";
    if (!traces.size) { draw("fig-roads", [], emptyLayout(title, "no offline run at batch size 1 under these filters")); return note; }
    draw("fig-roads", [...traces.values()], layout(title, {
      xaxis: log2Axis(rows.map((r) => csvNum(r.samples_in_flight)), "samples in flight (batch size, or streams)"),
      yaxis: { type: "log", title: { text: "samples/s" } } }));
    return note;
  }

  function drawLatencyThroughput() {
    const title = "latency of one request against samples/s";
    const traces = new Map();
    const offline = groupLines(RAW.offline_runs.filter(keepRow("offline")),
                               (r) => [r.device, r.experiment, r.compiler, r.model, r.batch_size].join("|"),
                               (r) => csvNum(r.streams), MAX_LINES);
    for (const line of offline.lines) {
      const compiler = line[0].compiler;
      const points = line.filter((r) => csvNum(r.latency_p99_ms) !== null).map((r) => [
        csvNum(r.samples_per_s), csvNum(r.latency_p99_ms),
        `${esc(r.compiler)} · ${esc(r.model)} · b${esc(r.batch_size)} · ${esc(r.device)}<br>offline, ${esc(r.streams)} streams: ` +
        `${fmt(csvNum(r.samples_per_s), 4)} samples/s, p99 ${fmt(csvNum(r.latency_p99_ms), 3)} ms (p50 ${fmt(csvNum(r.latency_p50_ms), 3)})`]);
      if (points.length) {
        addLine(traces, `${esc(compiler)}, offline p99`, { line: { color: COLOR(compiler), width: 1.3 },
                                                      marker: { symbol: "circle", size: 6 } }, points);
      }
    }
    const server = groupLines(RAW.server_steps.filter(keepRow("server")), (r) => [r.device, r.compiler, r.run_id].join("|"),
                              (r) => csvNum(r.target_qps), MAX_LINES);
    const ringed = { x: [], y: [], text: [] };
    const bounds = new Set();
    for (const line of server.lines) {
      const compiler = line[0].compiler;
      const points = line.map((r) => [csvNum(r.samples_per_s), csvNum(r.latency_at_percentile_ms),
        `${esc(r.compiler)} · ${esc(r.run_id)} · ${esc(r.device)}<br>${fmt(csvNum(r.target_qps), 4)} QPS: ` +
        `${fmt(csvNum(r.achieved_qps), 4)} achieved, p${esc(r.latency_percentile)} ${fmt(csvNum(r.latency_at_percentile_ms), 3)} ms ` +
        `(bound ${esc(r.latency_bound_ms)} ms, ${r.bound_met === "true" ? "met" : "broken"}${r.valid === "false" ? ", invalid" : ""})`]);
      addLine(traces, `${esc(compiler)}, server`, { line: { color: COLOR(compiler), width: 1.3, dash: "dash" },
                                               marker: { symbol: "triangle-up", size: 7 } }, points);
      for (const r of line) {
        if (r.reported === "true") {
          ringed.x.push(csvNum(r.samples_per_s)); ringed.y.push(csvNum(r.latency_at_percentile_ms));
          ringed.text.push(`${esc(r.run_id)}: the row's step`);
        }
        if (csvNum(r.latency_bound_ms) !== null) bounds.add(csvNum(r.latency_bound_ms));
      }
    }
    if (!traces.size) { draw("fig-latency-throughput", [], emptyLayout(title, "no offline or server run under these filters")); return; }
    const all = [...traces.values()];
    if (ringed.x.length) {
      all.push({ type: "scatter", mode: "markers", name: "the row's step", x: ringed.x, y: ringed.y, text: ringed.text,
                 hovertemplate: "%{text}<extra></extra>",
                 marker: { symbol: "circle-open", size: 14, color: "#616161", line: { width: 1.5 } } });
    }
    const xs = all.flatMap((t) => t.x.filter((v) => v !== null && v > 0));
    for (const b of [...bounds].sort((a, c) => a - c)) {
      all.push({ type: "scatter", mode: "lines", name: `bound ${b} ms`, x: [Math.min(...xs), Math.max(...xs)], y: [b, b],
                 hoverinfo: "name", line: { color: "#9e9e9e", dash: "dashdot", width: 1.5 } });
    }
    draw("fig-latency-throughput", all, layout(title, {
      xaxis: { type: "log", title: { text: "samples/s" } },
      yaxis: { type: "log", title: { text: "latency of one request (ms)" } } }));
  }

  function drawPeaks() {
    const title = "peak QPS under the latency bound (find_peak)";
    const rows = RAW.server_runs.filter((r) => keepRow("server")(r) && r.find_peak === "true");
    if (!rows.length) { draw("fig-peak", [], emptyLayout(title, "no find_peak server run under these filters")); return; }
    const label = (r) => esc(`${r.model} · b${r.batch_size} · s${r.streams} · p${r.latency_percentile} ≤ ${r.latency_bound_ms} ms` +
                             (new Set(rows.map((x) => x.device)).size > 1 ? ` · ${r.device}` : ""));
    const labels = [...new Set(rows.map(label))].sort();
    const compilers = [...new Set(rows.map((r) => r.compiler))].sort();
    const traces = compilers.map((c) => {
      const by = new Map(rows.filter((r) => r.compiler === c).map((r) => [label(r), r]));
      return { type: "bar", name: esc(c), x: labels, marker: { color: COLOR(c) },
               y: labels.map((l) => (by.has(l) ? csvNum(by.get(l).peak_qps) : null)),
               text: labels.map((l) => (!by.has(l) ? "" : by.get(l).peak_qps
                 ? `${esc(c)} · ${l}<br>peak ${fmt(csvNum(by.get(l).peak_qps), 4)} QPS in ${esc(by.get(l).peak_steps)} steps`
                 : `${esc(c)} · ${l}<br>no rate met the bound`)),
               hovertemplate: "%{text}<extra></extra>", textposition: "none" };
    });
    draw("fig-peak", traces, layout(title, { barmode: "group", xaxis: { type: "category", automargin: true },
                                             yaxis: { type: "log", title: { text: "queries/s" } } }));
  }

  function drawRoadsTable() {
    const by = new Map();
    for (const r of RAW.roads.filter(keepRow("offline"))) {
      const ratio = csvNum(r.concurrency_over_batching);
      if (ratio === null) continue;
      if (!by.has(r.compiler)) by.set(r.compiler, []);
      by.get(r.compiler).push(r);
    }
    if (!by.size) { $("roads-table").innerHTML = ""; return; }
    let html = "<table><tr><th>compiler</th><th>(model, k) compared</th><th>concurrency better</th><th>batching better</th>" +
               "<th>geomean concurrency / batching</th><th>range</th></tr>";
    for (const [c, rows] of [...by.entries()].sort()) {
      const ratios = rows.map((r) => csvNum(r.concurrency_over_batching));
      html += `<tr><td>${esc(c)}</td><td class="num">${rows.length}</td>` +
              `<td class="num">${rows.filter((r) => r.better === "concurrency").length}</td>` +
              `<td class="num">${rows.filter((r) => r.better === "batching").length}</td>` +
              `<td class="num">${fmt(geomean(ratios), 3)}</td><td class="num">${fmt(Math.min(...ratios), 3)}–${fmt(Math.max(...ratios), 3)}</td></tr>`;
    }
    $("roads-table").innerHTML = html + "</table>";
  }

  function drawScenarios() {
    if (!HAS_SCENARIOS) return;
    $("note-scenarios").textContent = drawRoads();
    drawLatencyThroughput();
    drawPeaks();
    drawRoadsTable();
  }

  // ---- per-operator profiles ----

  const runKey = (r) => [r.device, r.compiler, r.experiment, r.model, r.batch_size].join("\u0001");
  function drawProfile(idx) {
    const shown = new Set(idx.map((i) => runKey({ device: C.device[i], compiler: C.compiler[i],
      experiment: C.experiment[i], model: C.model[i], batch_size: String(C.batch_size[i]) })));
    const ops = RAW.profile_ops.filter((r) => shown.has(runKey(r)));
    const title = "time per inference by operator class (ms)";
    if (!ops.length) {
      draw("fig-profile", [], emptyLayout(title, "no profiled run under these filters (measure with --profile)"));
      $("profile-table").innerHTML = "";
      return;
    }
    const label = (r) => `${r.model} · b${r.batch_size} · ${r.compiler}`;
    const labels = [...new Set(ops.map(label))];
    const classes = [...new Set(ops.map((r) => r.op_class))];
    const traces = classes.map((c, k) => {
      const byLabel = new Map(ops.filter((r) => r.op_class === c).map((r) => [label(r), r]));
      return { type: "bar", name: esc(c), x: labels.map(esc), y: labels.map((l) => (byLabel.has(l) ? csvNum(byLabel.get(l).ms_per_inference) : 0)),
               marker: { color: TAB10[k % 10] },
               hovertemplate: `${esc(c)}: %{y:.3g} ms<br>%{x}<extra></extra>` };
    });
    draw("fig-profile", traces, layout(title, { barmode: "stack", height: 420,
      xaxis: { type: "category", tickangle: -30 }, yaxis: { title: { text: "ms per inference" } } }));
    const runs = RAW.profile_runs.filter((r) => shown.has(runKey(r)));
    let html = "<table><tr><th>run</th><th>profiler</th><th>kernels / inference</th><th>graph nodes</th><th>fusion ratio</th>" +
               "<th>profiled (ms)</th><th>p50 (ms)</th><th>profiled / p50</th><th>top class</th></tr>";
    for (const r of runs) {
      html += `<tr><td>${esc(label(r))}</td><td>${esc(r.profiler)}</td><td class="num">${fmt(csvNum(r.kernels_per_inference), 4)}</td>` +
              `<td class="num">${esc(r.ir_nodes)}</td><td class="num">${fmt(csvNum(r.fusion_ratio), 3)}</td>` +
              `<td class="num">${fmt(csvNum(r.profile_ms), 3)}</td><td class="num">${fmt(csvNum(r.latency_p50_ms), 3)}</td>` +
              `<td class="num">${fmt(csvNum(r.profile_over_p50), 3)}</td><td>${esc(r.top_op_class)} ${fmt(100 * csvNum(r.top_op_share), 3)}%</td></tr>`;
    }
    html += "</table>";
    const compilers = new Set(idx.map((i) => C.compiler[i]));
    const pairs = RAW.profile_speedup.filter((r) => compilers.has(r.baseline) && compilers.has(r.compiler) &&
      shown.has(runKey(Object.assign({}, r, { compiler: r.baseline }))));
    if (pairs.length) {
      html += "<table><tr><th>run</th><th>baseline → compiler</th><th>class</th><th>baseline (ms)</th><th>compiler (ms)</th>" +
              "<th>saved (ms)</th><th>fraction of saved</th></tr>";
      for (const r of pairs) {
        html += `<tr><td>${esc(r.model)} · b${esc(r.batch_size)}</td><td>${esc(r.baseline)} → ${esc(r.compiler)}</td><td>${esc(r.op_class)}</td>` +
                `<td class="num">${fmt(csvNum(r.baseline_ms), 3)}</td><td class="num">${fmt(csvNum(r.compiler_ms), 3)}</td>` +
                `<td class="num">${fmt(csvNum(r.saved_ms), 3)}</td><td class="num">${fmt(csvNum(r.fraction_of_saved), 3)}</td></tr>`;
      }
      html += "</table>";
    }
    $("profile-table").innerHTML = html;
  }

  // ---- compile time, first inference, resources: one box per compiler ----

  function boxes(idx, name) {
    const by = new Map();
    for (const i of idx) {
      const v = C[name][i];
      if (v === null) continue;
      if (!by.has(C.compiler[i])) by.set(C.compiler[i], { y: [], text: [], customdata: [] });
      const b = by.get(C.compiler[i]);
      b.y.push(v); b.text.push(esc(runLabel(i))); b.customdata.push(i);
    }
    const points = [...by.values()].reduce((s, b) => s + b.y.length, 0);
    const traces = [...by.keys()].sort().map((c) => Object.assign({
      type: "box", name: esc(c), marker: { color: COLOR(c), size: 3 }, boxpoints: points <= 3000 ? "all" : "outliers",
      jitter: 0.4, pointpos: 0, hovertemplate: "%{text}<br>%{y}<extra></extra>", showlegend: false,
    }, by.get(c)));
    return { traces, points };
  }

  function drawBoxes(id, idx, name, title, logY) {
    const b = boxes(idx, name);
    if (!b.points) { draw(id, [], emptyLayout(title, `no ${name} under these filters`)); return; }
    draw(id, b.traces, layout(title, { yaxis: { type: logY ? "log" : "linear", title: { text: title } } }));
  }

  const RESOURCES = [
    ["cpu_util_pct", "CPU utilization (%)"], ["cpu_ms_per_inference", "CPU time per inference (ms)"],
    ["other_cpu_pct", "other processes' CPU (%)"], ["rss_peak_mb", "peak RSS (MB)"],
    ["gpu_util_pct", "GPU utilization (%)"], ["gpu_mem_mb", "GPU memory (MB)"],
    ["gpu_power_w", "GPU power (W)"], ["gpu_energy_j", "GPU energy per timed run (J)"],
    ["energy_j", "CPU package energy per timed run (J)"], ["power_w", "CPU package power (W)"],
  ].filter(([name]) => C[name].some((v) => v !== null));

  function buildResources() {
    const box = $("resources");
    if (!RESOURCES.length) box.textContent = "No run measured CPU, memory, GPU or energy.";
    for (const [name] of RESOURCES) {
      const div = document.createElement("div");
      div.className = "fig";
      div.id = "fig-res-" + name;
      box.appendChild(div);
    }
  }

  // ---- latency distribution ----

  let selectedRun = null;
  let lastIdx = [];
  function drawDistribution(idx) {
    const choices = idx.filter((i) => RAW.dists[i]).slice(0, MAX_RUN_CHOICES);
    const select = $("dist-run");
    select.innerHTML = choices.map((i) => `<option value="${i}">${esc(runLabel(i))}</option>`).join("");
    if (selectedRun === null || !choices.includes(selectedRun)) selectedRun = choices.length ? choices[0] : null;
    if (selectedRun !== null) select.value = String(selectedRun);
    const title = "latency distribution (ECDF)";
    if (selectedRun === null) { draw("fig-dist", [], emptyLayout(title, "no run with a latency trace under these filters")); return; }
    const s = selectedRun;
    const shown = [s];
    if ($("dist-others").checked) {
      for (const i of idx) {
        if (i !== s && RAW.dists[i] && C.device[i] === C.device[s] && C.model[i] === C.model[s] &&
            C.batch_size[i] === C.batch_size[s] && C.experiment[i] === C.experiment[s]) shown.push(i);
      }
    }
    const probs = RAW.quantile_probs;
    const traces = shown.map((i) => ({
      type: "scatter", mode: "lines+markers", name: `${esc(C.compiler[i])} (n = ${RAW.dists[i][0]})`,
      x: RAW.dists[i].slice(1), y: probs, marker: { size: 4 },
      line: { color: COLOR(C.compiler[i]), width: i === s ? 3 : 1.5, dash: C.compiler[i] === BASELINE ? "dash" : "solid" },
      hovertemplate: `${esc(runLabel(i))}<br>%{y:.3f} of the runs ≤ %{x} ms<extra></extra>`,
    }));
    for (const i of shown) {
      const medians = str(C.process_p50s_ms[i]).split(";").filter((v) => v !== "").map(Number);
      if (!medians.length) continue;
      traces.push({ type: "scatter", mode: "markers", name: `${esc(C.compiler[i])}: process medians`, x: medians,
                    y: medians.map(() => 0), showlegend: i === s,
                    marker: { symbol: "line-ns-open", size: 16, color: COLOR(C.compiler[i]), line: { width: 2 } },
                    hovertemplate: "process median %{x} ms<extra></extra>" });
    }
    const xs = shown.flatMap((i) => RAW.dists[i].slice(1));
    const wide = Math.max(...xs) / Math.max(1e-9, Math.min(...xs)) > 20;
    draw("fig-dist", traces, layout(`${title}: ${esc(runLabel(s))}`, {
      xaxis: { type: wide ? "log" : "linear", title: { text: "latency of one batch (ms)" } },
      yaxis: { title: { text: "fraction of timed runs ≤ x" }, range: [-0.05, 1.05] } }));
  }

  // ---- tables ----

  function drawProblems(idx) {
    const bad = idx.filter((i) => C.status[i] !== "ok" || C.validity[i] === "invalid");
    const counts = new Map();
    for (const i of bad) {
      const k = C.status[i] === "ok" ? "invalid" : C.status[i];
      counts.set(k, (counts.get(k) || 0) + 1);
    }
    let html = bad.length
      ? `<p>${bad.length} of the ${idx.length} runs shown: ${[...counts].map(([k, v]) => `${v} ${esc(k)}`).join(", ")}.` +
        (RAW.invalid_included ? " Runs marked invalid were kept in the derived numbers (analyze --include-invalid)." :
          " Runs marked invalid were left out of the derived numbers (RTR, ASE, speedups, rankings).") + "</p>"
      : "<p>None under these filters.</p>";
    if (bad.length) {
      html += `<div class="scroll"><table><tr><th>device</th><th>compiler</th><th>experiment</th><th>model</th><th>batch</th><th>status</th><th>reason</th></tr>`;
      for (const i of bad.slice(0, MAX_TABLE_ROWS)) {
        const status = C.status[i] === "ok" ? "invalid" : C.status[i];
        const reason = C.status[i] === "ok" ? C.invalid_reason[i] : C.error[i];
        html += `<tr><td>${esc(C.device[i])}</td><td>${esc(C.compiler[i])}</td><td>${esc(C.experiment[i])}</td>` +
                `<td>${esc(C.model[i])}</td><td class="num">${esc(C.batch_size[i])}</td><td>${esc(status)}</td><td>${esc(reason)}</td></tr>`;
      }
      html += "</table></div>";
      if (bad.length > MAX_TABLE_ROWS) html += `<p class="note">Showing ${MAX_TABLE_ROWS} of ${bad.length}: narrow the filters to see the rest.</p>`;
    }
    $("problems").innerHTML = html;
  }

  function drawMachine(idx) {
    const devices = [...new Set(idx.map((i) => C.device[i]))].sort();
    let html = "";
    for (const d of devices) {
      const entries = own(RAW.machines, d) || {};
      const ids = Object.keys(entries);
      html += `<h3>${esc(d)}</h3>`;
      if (!ids.length) html += "<p>No machine.json for this device.</p>";
      else {
        const keys = [...new Set(ids.flatMap((m) => Object.keys(entries[m])))].sort();
        html += `<table><tr><th></th>${ids.map((m) => `<th>${esc(m)}</th>`).join("")}</tr>`;
        for (const k of keys) {
          html += `<tr><th>${esc(k)}</th>${ids.map((m) => {
            const v = entries[m][k];
            return `<td>${esc(v === null || v === undefined ? "" : typeof v === "object" ? JSON.stringify(v) : v)}</td>`;
          }).join("")}</tr>`;
        }
        html += "</table>";
      }
      const sdks = new Map();
      for (const i of idx) {
        if (C.device[i] !== d) continue;
        const k = C.compiler[i] + "\t" + C.compiler_version[i] + "\t" + C.host[i];
        sdks.set(k, (sdks.get(k) || 0) + 1);
      }
      html += "<table><tr><th>compiler</th><th>SDK version</th><th>host</th><th>runs</th></tr>";
      for (const [k, n] of [...sdks.entries()].sort()) {
        const [c, v, h] = k.split("\t");
        html += `<tr><td>${esc(c)}</td><td>${esc(v)}</td><td>${esc(h)}</td><td class="num">${n}</td></tr>`;
      }
      html += "</table>";
    }
    $("machine").innerHTML = html || "<p>No device under these filters.</p>";
  }

  // ---- drawing everything ----

  function drawAll() {
    const started = performance.now();
    const idx = filtered();
    lastIdx = idx;
    const counts = new Map();
    for (const i of idx) counts.set(C.status[i], (counts.get(C.status[i]) || 0) + 1);
    const invalid = idx.filter((i) => C.status[i] === "ok" && C.validity[i] === "invalid").length;
    $("summary").innerHTML = `Showing <b id="shown-runs">${idx.length}</b> of ${N} runs: ` +
      [...counts].sort().map(([k, v]) => `${v} ${esc(k)}`).join(", ") +
      (invalid ? `; ${invalid} ok runs marked invalid` : "") + ".";
    // Each view's drawing time (ms), for finding the slow one: window.__ngbViewMs.
    const times = {};
    const timed = (name, fn) => { const t = performance.now(); fn(); times[name] = Math.round(performance.now() - t); };
    timed("batch", () => drawBatch(idx));
    timed("scaling", () => drawScaling(idx));
    timed("speedup", () => drawSpeedup(idx));
    timed("accuracy", () => drawAccuracy(idx));
    timed("depth", () => drawDepth(idx));
    timed("ranking", () => drawRanking(idx));
    timed("scenarios", () => drawScenarios());
    timed("profile", () => drawProfile(idx));
    timed("compile", () => {
      drawBoxes("fig-compile", idx, "compile_s", "compile time (s)", true);
      drawBoxes("fig-first", idx, "first_run_ms", "first inference (ms)", true);
    });
    timed("resources", () => {
      for (const [name, title] of RESOURCES) drawBoxes("fig-res-" + name, idx, name, title, false);
    });
    timed("distribution", () => drawDistribution(idx));
    timed("tables", () => { drawProblems(idx); drawMachine(idx); });
    window.__ngbViewMs = times;
    const waiting = pending.splice(0);
    return Promise.all(waiting).then(() => {
      window.__ngbDraws = (window.__ngbDraws || 0) + 1;
      window.__ngbLastDrawMs = performance.now() - started;
      if (window.__ngbReadyMs === undefined) window.__ngbReadyMs = performance.now();
      document.body.dataset.draws = String(window.__ngbDraws);
    });
  }

  let timer = null;
  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(drawAll, 120);
  }

  function showErrors() {
    if (window.__ngbErrors.length) {
      $("errors").style.display = "block";
      $("errors").textContent = "Errors on this page: " + window.__ngbErrors.join(" | ");
    }
  }

  $("provenance").textContent = `From ${RAW.inputs.join(", ")}: ${N} runs, generated ${RAW.generated}. ` +
    "Static figures for papers: report.md and figures/ beside this file.";
  // Traces and machine.json files the report could not read (python/results_io.py says why).
  if (RAW.left_out_count) {
    $("left-out").innerHTML = `<p class="note">${RAW.left_out_count} file(s) beside the rows could not be read and were left out:</p>` +
      `<ul>${RAW.left_out.map((m) => `<li>${esc(m)}</li>`).join("")}</ul>` +
      (RAW.left_out_count > RAW.left_out.length ? `<p>and ${RAW.left_out_count - RAW.left_out.length} more.</p>` : "");
  }
  // Reports without offline or server runs have no such section (and look as they did).
  if (!HAS_SCENARIOS) $("sec-scenarios").remove();
  if (!HAS_ACCURACY) $("sec-accuracy").remove();
  else $("accuracy-group").addEventListener("change", () => { drawAccuracy(lastIdx); flush(); });
  buildFilters();
  buildResources();
  $("ranking-group").addEventListener("change", () => { drawRanking(lastIdx); flush(); });
  $("dist-run").addEventListener("change", () => { selectedRun = Number($("dist-run").value); drawDistribution(lastIdx); flush(); });
  $("dist-others").addEventListener("change", () => { drawDistribution(lastIdx); flush(); });
  function flush() { Promise.all(pending.splice(0)).then(showErrors); }
  drawAll().then(() => {
    // Plotly's event methods exist once a div holds a plot.
    for (const id of ["fig-latency", "fig-throughput", "fig-rtr", "fig-ase"]) onPointClick(id);
    if (HAS_ACCURACY) onPointClick("fig-accuracy");
    showErrors();
  });
})();
