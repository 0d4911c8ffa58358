// The report page's offline and server views: a part of report_app.js's function (its comment
// says how they join).
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

