// The report page's problem and machine tables, and drawing everything: the controls' events and
// the start; it ends report_app.js's function (whose comment says how the parts join).
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
