/// The page around the data: style and script, inline so that the file works offline and alone.
extension HTMLReport {
    static let head = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>vidorient audit</title>
        <style>
        :root { --fg: #1d1d1f; --muted: #6e6e73; --line: #d2d2d7; --error: #c9252d; --warning: #b25e00; --info: #0a6fb8; }
        body { font: 14px/1.4 system-ui, sans-serif; color: var(--fg); margin: 24px; }
        h1 { font-size: 20px; margin: 0 0 12px; }
        .summary { display: flex; gap: 32px; flex-wrap: wrap; align-items: flex-start; margin-bottom: 16px; }
        .summary table { border-collapse: collapse; }
        .summary td, .summary th { padding: 2px 12px 2px 0; text-align: left; }
        .controls { display: flex; gap: 8px; flex-wrap: wrap; align-items: center; margin: 12px 0; }
        .controls input[type=search] { min-width: 260px; }
        table.files { border-collapse: collapse; width: 100%; }
        table.files th { text-align: left; border-bottom: 2px solid var(--line); cursor: pointer; user-select: none; white-space: nowrap; }
        table.files th[data-sorted=asc]::after { content: " ▲"; }
        table.files th[data-sorted=desc]::after { content: " ▼"; }
        table.files td { border-bottom: 1px solid var(--line); padding: 6px 8px 6px 0; vertical-align: top; }
        td.path { word-break: break-all; max-width: 28em; }
        .sev { font-weight: 600; text-transform: uppercase; font-size: 11px; }
        .sev.error { color: var(--error); } .sev.warning { color: var(--warning); } .sev.info { color: var(--info); }
        .finding + .finding { margin-top: 6px; }
        .why { color: var(--muted); }
        code.fix { display: block; background: #f5f5f7; padding: 2px 4px; user-select: all; word-break: break-all; }
        .thumbs { display: flex; gap: 6px; } .thumbs figure { margin: 0; text-align: center; font-size: 11px; color: var(--muted); }
        .thumbs img { max-width: 120px; max-height: 120px; border: 1px solid var(--line); display: block; }
        #count { color: var(--muted); }
        </style>
        </head>
        <body>
        <h1>vidorient audit</h1>
        <div class="summary" id="summary-tables"></div>
        <div class="controls">
        <label>Rule <select id="rule"><option value="">all</option></select></label>
        <label>Severity <select id="severity"><option value="">all</option></select></label>
        <label>Format <select id="format"><option value="">all</option></select></label>
        <input id="q" type="search" placeholder="Search paths and findings">
        <button id="prev" type="button">◀ Previous</button><button id="next" type="button">Next ▶</button>
        <label>Rows <select id="size"><option>50</option><option selected>100</option><option>500</option></select></label>
        <span id="count"></span>
        </div>
        <table class="files">
        <thead><tr><th data-key="path">Path</th><th data-key="format">Format</th><th data-key="stored">Stored</th><th data-key="displayed">Displayed</th><th data-key="severity">Findings</th><th>Pictures</th></tr></thead>
        <tbody id="rows-body"></tbody>
        </table>
        <script id="rows" type="application/json">[
        """

    static let script = #"""
        "use strict";
        const rows = JSON.parse(document.getElementById("rows").textContent);
        const summary = JSON.parse(document.getElementById("summary").textContent);
        const rank = { info: 0, warning: 1, error: 2 };
        for (const r of rows) {
          r.sev = Math.max(...r.x.map(f => rank[f.v] ?? 0));
          r.hay = (r.p + " " + r.x.map(f => f.r + " " + f.m).join(" ")).toLowerCase();
        }
        const state = { rule: "", severity: "", format: "", q: "", sort: "path", desc: false, page: 0, size: 100 };
        for (const [k, v] of new URLSearchParams(location.hash.slice(1))) {
          if (k in state) state[k] = (k === "page" || k === "size") ? Number(v) : (k === "desc" ? v === "1" : v);
        }
        const $ = id => document.getElementById(id);
        const esc = s => String(s ?? "").replace(/[&<>"']/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
        function fill(select, values) {
          for (const v of values) { const o = document.createElement("option"); o.value = o.textContent = v; select.append(o); }
        }
        fill($("rule"), Object.keys(summary.by_code).sort());
        fill($("severity"), ["error", "warning", "info"].filter(s => summary.by_severity[s]));
        fill($("format"), [...new Set(rows.map(r => r.f))].sort());
        const counts = (title, entries) => "<table><tr><th>" + title + "</th><th></th></tr>" +
          entries.map(([k, v]) => "<tr><td>" + esc(k) + "</td><td>" + v + "</td></tr>").join("") + "</table>";
        $("summary-tables").innerHTML =
          counts("Files", [["audited", summary.files], ["with findings", summary.flagged]]) +
          counts("Severity", ["error", "warning", "info"].filter(s => summary.by_severity[s]).map(s => [s, summary.by_severity[s]])) +
          counts("Rule", Object.entries(summary.by_code).sort((a, b) => b[1] - a[1]));
        const keyOf = {
          path: r => r.p, format: r => r.f, stored: r => r.s ?? "", displayed: r => r.d ?? "", severity: r => r.sev
        };
        function filtered() {
          const q = state.q.toLowerCase();
          return rows.filter(r =>
            (!state.rule || r.x.some(f => f.r === state.rule)) &&
            (!state.severity || r.x.some(f => f.v === state.severity)) &&
            (!state.format || r.f === state.format) &&
            (!q || r.hay.includes(q)));
        }
        function picture(r, kind, label) {
          return "<figure><img loading=\"lazy\" alt=\"" + label + "\" src=\"" + esc(summary.thumbnails + "/" + r.t + "-" + kind + ".jpg") +
            "\" onerror=\"this.parentNode.remove()\"><figcaption>" + label + "</figcaption></figure>";
        }
        function render() {
          const list = filtered();
          const key = keyOf[state.sort] ?? keyOf.path;
          list.sort((a, b) => { const x = key(a), y = key(b); const c = x < y ? -1 : x > y ? 1 : 0; return state.desc ? -c : c; });
          const pages = Math.max(1, Math.ceil(list.length / state.size));
          state.page = Math.min(Math.max(0, state.page), pages - 1);
          const shown = list.slice(state.page * state.size, (state.page + 1) * state.size);
          $("rows-body").innerHTML = shown.map(r =>
            "<tr class=\"file\"><td class=\"path\">" + esc(r.p) + "</td><td>" + esc(r.f) + (r.c ? "<br><span class=\"why\">" + esc(r.c) + "</span>" : "") +
            "</td><td>" + esc(r.s ?? "–") + "</td><td>" + esc(r.d ?? "–") + "</td><td>" +
            r.x.map(f => "<div class=\"finding\"><span class=\"sev " + esc(f.v) + "\">" + esc(f.v) + "</span> <b>" + esc(f.r) + "</b>: <span class=\"why\">" +
              esc(f.m) + "</span>" + (f.n ? "<div class=\"why\">" + esc(f.n) + ":</div>" : "") + (f.a ? "<code class=\"fix\">" + esc(f.a) + "</code>" : "") + "</div>").join("") +
            "</td><td>" + (r.t != null && summary.thumbnails ? "<div class=\"thumbs\">" + picture(r, "s", "as stored") + picture(r, "d", "as displayed") + (r.u != null ? picture(r, "u", "as suggested (" + r.u + "° clockwise)") : "") + "</div>" : "") +
            "</td></tr>").join("");
          $("count").textContent = list.length + " of " + rows.length + " files with findings, page " + (state.page + 1) + " of " + pages;
          $("prev").disabled = state.page === 0;
          $("next").disabled = state.page >= pages - 1;
          for (const th of document.querySelectorAll("th[data-key]")) {
            th.dataset.sorted = th.dataset.key === state.sort ? (state.desc ? "desc" : "asc") : "";
          }
          for (const id of ["rule", "severity", "format", "q", "size"]) $(id).value = state[id];
          const params = new URLSearchParams();
          for (const [k, v] of Object.entries(state)) if (v !== "" && v !== false) params.set(k, v === true ? "1" : v);
          history.replaceState(null, "", "#" + params);
        }
        for (const id of ["rule", "severity", "format", "size"]) {
          $(id).addEventListener("change", e => { state[id] = id === "size" ? Number(e.target.value) : e.target.value; state.page = 0; render(); });
        }
        $("q").addEventListener("input", e => { state.q = e.target.value; state.page = 0; render(); });
        $("prev").addEventListener("click", () => { state.page--; render(); });
        $("next").addEventListener("click", () => { state.page++; render(); });
        for (const th of document.querySelectorAll("th[data-key]")) {
          th.addEventListener("click", () => {
            state.desc = state.sort === th.dataset.key ? !state.desc : false; state.sort = th.dataset.key; render();
          });
        }
        render();

        """#
}
