// The report page's per-operator profiles, compile time and resources, and the latency
// distribution: a part of report_app.js's function (its comment says how they join).
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

