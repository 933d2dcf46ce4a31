/// The page around the data: style and script, inline so that the file works offline and alone.
extension HTMLReport {
    static let head = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>vidorient audit: review</title>
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
        .thumbs { display: flex; gap: 8px; } .thumbs figure { margin: 0; text-align: center; font-size: 11px; color: var(--muted); }
        .thumbs img { max-width: 200px; max-height: 200px; border: 1px solid var(--line); display: block; cursor: zoom-in; }
        #count, #decided { color: var(--muted); }
        tr.file.current { outline: 2px solid var(--info); outline-offset: -2px; }
        tr.file[data-decision=approved] { background: #eaf7ec; } tr.file[data-decision=rejected] { background: #fbeaea; }
        .review { white-space: nowrap; } .review button[aria-pressed=true] { font-weight: 700; }
        .verdict { display: block; margin-top: 4px; font-size: 12px; }
        #zoom { position: fixed; inset: 0; background: rgba(0,0,0,.8); display: none; align-items: center; justify-content: center; cursor: zoom-out; }
        #zoom.open { display: flex; } #zoom img { max-width: 95vw; max-height: 95vh; image-rendering: auto; background: #fff; }
        </style>
        </head>
        <body>
        <h1>vidorient audit</h1>
        <div class="summary" id="summary-tables"></div>
        <div class="controls">
        <label><input id="fixable" type="checkbox"> Has a suggested fix</label>
        <label>Rule <select id="rule"><option value="">all</option></select></label>
        <label>Folder <select id="folder"><option value="">all</option></select></label>
        <label>Confidence ≥ <input id="conf" type="range" min="0" max="1" step="0.01" value="0"> <output id="conf-value">0</output></label>
        <label>Decision <select id="decision"><option value="">all</option><option value="undecided">undecided</option><option value="approved">approved</option><option value="rejected">rejected</option></select></label>
        <label>Severity <select id="severity"><option value="">all</option></select></label>
        <label>Format <select id="format"><option value="">all</option></select></label>
        <input id="q" type="search" placeholder="Search paths and findings">
        <button id="prev" type="button">◀ Previous</button><button id="next" type="button">Next ▶</button>
        <label>Rows <select id="size"><option>50</option><option selected>100</option><option>500</option></select></label>
        <span id="count"></span>
        </div>
        <div class="controls">
        <button id="export" type="button">Export decisions</button>
        <span id="decided"></span>
        <span id="exports"></span>
        <span class="why">Keys: j/k move, a approve, r reject, u undecide. The approved list goes to <code>vidorient fix --from-audit</code> unchanged.</span>
        </div>
        <div id="zoom"><img alt="enlarged picture"></div>
        <table class="files">
        <thead><tr><th data-key="path">Path</th><th data-key="format">Format</th><th data-key="stored">Stored</th><th data-key="displayed">Displayed</th><th data-key="severity">Findings</th><th>Pictures</th><th>Review</th></tr></thead>
        <tbody id="rows-body"></tbody>
        </table>
        <script id="rows" type="application/json">[
        """

    static let script = #"""
        "use strict";
        const rows = JSON.parse(document.getElementById("rows").textContent);
        const summary = JSON.parse(document.getElementById("summary").textContent);
        const rank = { info: 0, warning: 1, error: 2 };
        rows.forEach((r, i) => {
          r.i = i;
          r.sev = Math.max(...r.x.map(f => rank[f.v] ?? 0));
          r.hay = (r.p + " " + r.x.map(f => f.r + " " + f.m).join(" ")).toLowerCase();
          r.dir = r.p.includes("/") ? r.p.slice(0, r.p.lastIndexOf("/")) : ".";
        });
        const state = {
          rule: "", severity: "", format: "", folder: "", decision: "", fixable: false, conf: 0, q: "",
          sort: "path", desc: false, page: 0, size: 100
        };
        for (const [k, v] of new URLSearchParams(location.hash.slice(1))) {
          if (!(k in state)) continue;
          state[k] = (k === "page" || k === "size" || k === "conf") ? Number(v) : (k === "desc" || k === "fixable") ? v === "1" : v;
        }
        const $ = id => document.getElementById(id);
        const esc = s => String(s ?? "").replace(/[&<>"']/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
        // Decisions, kept in the browser under this audit's identity: one per row with a suggested
        // fix, by its path as the page shows it. A reload, or another page of the same audit, finds them.
        const storeKey = "vidorient-review:" + summary.audit;
        let decisions = {};
        try { decisions = JSON.parse(localStorage.getItem(storeKey) || "{}") || {}; } catch (e) { decisions = {}; }
        const save = () => { try { localStorage.setItem(storeKey, JSON.stringify(decisions)); } catch (e) {} };
        const decisionOf = r => (r.j != null && Object.prototype.hasOwnProperty.call(decisions, r.p)) ? decisions[r.p] : "";
        function fill(select, values) {
          for (const v of values) { const o = document.createElement("option"); o.value = o.textContent = v; select.append(o); }
        }
        fill($("rule"), Object.keys(summary.by_code).sort());
        fill($("severity"), ["error", "warning", "info"].filter(s => summary.by_severity[s]));
        fill($("format"), [...new Set(rows.map(r => r.f))].sort());
        fill($("folder"), [...new Set(rows.map(r => r.dir))].sort());
        const counts = (title, entries) => "<table><tr><th>" + title + "</th><th></th></tr>" +
          entries.map(([k, v]) => "<tr><td>" + esc(k) + "</td><td>" + v + "</td></tr>").join("") + "</table>";
        $("summary-tables").innerHTML =
          counts("Files", [["audited", summary.files], ["with findings", summary.flagged], ["with a suggested fix", rows.filter(r => r.j != null).length]]) +
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
            (!state.folder || r.dir === state.folder) &&
            (!state.fixable || r.j != null) &&
            // As fix --min-confidence: a row without a judgment's confidence is not held to it.
            (!state.conf || r.k == null || r.k >= state.conf) &&
            (!state.decision || (r.j != null && (decisionOf(r) || "undecided") === state.decision)) &&
            (!q || r.hay.includes(q)));
        }
        function picture(r, kind, label) {
          return "<figure><img loading=\"lazy\" alt=\"" + label + "\" src=\"" + esc(summary.thumbnails + "/" + r.t + "-" + kind + ".jpg") +
            "\" onerror=\"this.parentNode.remove()\"><figcaption>" + label + "</figcaption></figure>";
        }
        function review(r) {
          if (r.j == null) return "";
          const d = decisionOf(r);
          return "<div class=\"review\"><button type=\"button\" class=\"approve\" data-i=\"" + r.i + "\" aria-pressed=\"" + (d === "approved") +
            "\">Approve</button> <button type=\"button\" class=\"reject\" data-i=\"" + r.i + "\" aria-pressed=\"" + (d === "rejected") +
            "\">Reject</button></div>" + (r.k != null ? "<span class=\"verdict why\">confidence " + esc(r.k) + "</span>" : "") +
            (d ? "<span class=\"verdict\">" + esc(d) + "</span>" : "");
        }
        let shown = [];
        let cursor = -1;
        function render() {
          const list = filtered();
          const key = keyOf[state.sort] ?? keyOf.path;
          list.sort((a, b) => { const x = key(a), y = key(b); const c = x < y ? -1 : x > y ? 1 : 0; return state.desc ? -c : c; });
          const pages = Math.max(1, Math.ceil(list.length / state.size));
          state.page = Math.min(Math.max(0, state.page), pages - 1);
          shown = list.slice(state.page * state.size, (state.page + 1) * state.size);
          cursor = Math.min(cursor, shown.length - 1);
          $("rows-body").innerHTML = shown.map((r, n) =>
            "<tr class=\"file\" data-i=\"" + r.i + "\" data-decision=\"" + decisionOf(r) + "\"><td class=\"path\">" + esc(r.p) + "</td><td>" + esc(r.f) + (r.c ? "<br><span class=\"why\">" + esc(r.c) + "</span>" : "") +
            "</td><td>" + esc(r.s ?? "–") + "</td><td>" + esc(r.d ?? "–") + "</td><td>" +
            r.x.map(f => "<div class=\"finding\"><span class=\"sev " + esc(f.v) + "\">" + esc(f.v) + "</span> <b>" + esc(f.r) + "</b>: <span class=\"why\">" +
              esc(f.m) + "</span>" + (f.n ? "<div class=\"why\">" + esc(f.n) + ":</div>" : "") + (f.a ? "<code class=\"fix\">" + esc(f.a) + "</code>" : "") + "</div>").join("") +
            "</td><td>" + (r.t != null && summary.thumbnails ? "<div class=\"thumbs\">" + picture(r, "s", "as stored") + picture(r, "d", "as displayed") + (r.u != null ? picture(r, "u", "as suggested (" + r.u + "° clockwise)") : "") + "</div>" : "") +
            "</td><td>" + review(r) + "</td></tr>").join("");
          $("count").textContent = list.length + " of " + rows.length + " files with findings, page " + (state.page + 1) + " of " + pages;
          const fixable = rows.filter(r => r.j != null);
          const approved = fixable.filter(r => decisionOf(r) === "approved").length;
          const rejected = fixable.filter(r => decisionOf(r) === "rejected").length;
          $("decided").textContent = approved + " approved, " + rejected + " rejected, " + (fixable.length - approved - rejected) +
            " undecided of " + fixable.length + " suggested fixes";
          $("prev").disabled = state.page === 0;
          $("next").disabled = state.page >= pages - 1;
          for (const th of document.querySelectorAll("th[data-key]")) {
            th.dataset.sorted = th.dataset.key === state.sort ? (state.desc ? "desc" : "asc") : "";
          }
          for (const id of ["rule", "severity", "format", "folder", "decision", "q", "size", "conf"]) $(id).value = state[id];
          $("fixable").checked = state.fixable;
          $("conf-value").textContent = state.conf;
          markCursor();
          const params = new URLSearchParams();
          for (const [k, v] of Object.entries(state)) if (v !== "" && v !== false && v !== 0) params.set(k, v === true ? "1" : v);
          if (state.page === 0) params.delete("page");
          history.replaceState(null, "", "#" + params);
        }
        function markCursor() {
          document.querySelectorAll("tr.file.current").forEach(tr => tr.classList.remove("current"));
          const tr = document.querySelectorAll("tr.file")[cursor];
          if (tr) { tr.classList.add("current"); tr.scrollIntoView({ block: "nearest" }); }
        }
        function decide(r, decision) {
          if (!r || r.j == null) return;
          if (!decision || decisions[r.p] === decision) delete decisions[r.p]; else decisions[r.p] = decision;
          save();
          render();
        }
        for (const id of ["rule", "severity", "format", "folder", "decision", "size"]) {
          $(id).addEventListener("change", e => { state[id] = id === "size" ? Number(e.target.value) : e.target.value; state.page = 0; render(); });
        }
        $("fixable").addEventListener("change", e => { state.fixable = e.target.checked; state.page = 0; render(); });
        $("conf").addEventListener("input", e => { state.conf = Number(e.target.value); state.page = 0; render(); });
        $("q").addEventListener("input", e => { state.q = e.target.value; state.page = 0; render(); });
        $("prev").addEventListener("click", () => { state.page--; render(); });
        $("next").addEventListener("click", () => { state.page++; render(); });
        for (const th of document.querySelectorAll("th[data-key]")) {
          th.addEventListener("click", () => {
            state.desc = state.sort === th.dataset.key ? !state.desc : false; state.sort = th.dataset.key; render();
          });
        }
        $("rows-body").addEventListener("click", e => {
          const button = e.target.closest("button[data-i]");
          if (button) {
            const r = rows[Number(button.dataset.i)];
            cursor = shown.indexOf(r);
            return decide(r, button.classList.contains("approve") ? "approved" : "rejected");
          }
          const img = e.target.closest(".thumbs img");
          if (img) { $("zoom").querySelector("img").src = img.src; $("zoom").classList.add("open"); }
        });
        $("zoom").addEventListener("click", () => $("zoom").classList.remove("open"));
        document.addEventListener("keydown", e => {
          if (e.ctrlKey || e.metaKey || e.altKey || e.target.closest("input, select, textarea")) return;
          if (e.key === "Escape") { $("zoom").classList.remove("open"); return; }
          if (e.key === "j") cursor = Math.min(cursor + 1, shown.length - 1);
          else if (e.key === "k") cursor = Math.max(cursor - 1, 0);
          else if (e.key === "a" || e.key === "r" || e.key === "u") {
            return decide(shown[cursor], e.key === "a" ? "approved" : e.key === "r" ? "rejected" : "");
          } else return;
          e.preventDefault();
          markCursor();
        });
        // Export: the approved records as fix --from-audit takes them, each marked approved, and the
        // rejected ones as a decisions file (audit --decisions). Each a download of a Blob.
        function exported(decision) {
          // The record's own line with the mark put first, never parsed and written again: a
          // browser reads numbers as doubles, and the record's file identity (inode, mtime in
          // nanoseconds) must come back as the audit wrote it, for fix and audit --decisions.
          return rows.filter(r => decisionOf(r) === decision && r.j.startsWith("{"))
            .map(r => '{"approved":' + (decision === "approved") + ',' + r.j.slice(1) + "\n").join("");
        }
        $("export").addEventListener("click", () => {
          const links = [["approved", "vidorient-approved.jsonl"], ["rejected", "vidorient-rejected.jsonl"]].map(([decision, name]) => {
            const a = document.createElement("a");
            a.href = URL.createObjectURL(new Blob([exported(decision)], { type: "application/x-ndjson" }));
            a.download = name;
            a.textContent = name;
            return a;
          });
          $("exports").replaceChildren(...links.flatMap(a => [a, " "]));
          for (const a of links) a.click();
        });
        render();

        """#
}
