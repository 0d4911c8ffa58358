// The report page's shared chart pieces and the views of batch size, threads, speedup, depth,
// accuracy and ranking: a part of report_app.js's function (its comment says how they join).
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

