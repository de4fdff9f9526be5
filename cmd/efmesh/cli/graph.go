package cli

import (
	"encoding/json"
	"html/template"
	"io"

	"github.com/efmesh/efmesh/ops"
)

// writeGraphHTML writes one self-contained page drawing the DAG: no
// network, no external script; the data is embedded as JSON.
func writeGraphHTML(w io.Writer, title string, nodes []ops.GraphNode) error {
	data, err := json.Marshal(nodes)
	if err != nil {
		return err
	}
	return graphPage.Execute(w, struct {
		Title string
		Data  template.JS
	}{title, template.JS(data)})
}

var graphPage = template.Must(template.New("graph").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>{{.Title}} — efmesh graph</title>
<style>
body { font: 14px system-ui, sans-serif; margin: 0; display: flex; height: 100vh; }
#canvas { flex: 1; overflow: auto; }
#side { width: 32%; border-left: 1px solid #ccc; padding: 12px; overflow: auto; }
pre { background: #f6f6f6; padding: 8px; white-space: pre-wrap; }
.node rect { fill: #fff; stroke: #555; rx: 6; }
.node.selected rect { stroke: #d33; stroke-width: 2; }
.node text { font-size: 12px; }
.node .kind { fill: #777; font-size: 10px; }
.edge { stroke: #999; fill: none; }
.k-EXTERNAL rect, .k-SEED rect { fill: #eef6ff; }
.k-VIEW rect { fill: #f3fff0; }
.k-EMBEDDED rect { fill: #fafafa; stroke-dasharray: 4 2; }
</style></head>
<body data-status="loading">
<div id="canvas"><svg id="svg" xmlns="http://www.w3.org/2000/svg"></svg></div>
<div id="side"><h2 id="title">{{.Title}}</h2><p id="hint">Click a model to see its SQL.</p><div id="detail"></div></div>
<script>
window.onerror = function (msg) { document.body.dataset.status = "error: " + msg; };
const nodes = {{.Data}};
const W = 190, H = 44, GX = 50, GY = 18;
const byLevel = {};
for (const n of nodes) { (byLevel[n.level] = byLevel[n.level] || []).push(n); }
const pos = {};
let maxX = 0, maxY = 0;
for (const [lv, ns] of Object.entries(byLevel)) {
  ns.forEach((n, i) => {
    pos[n.name] = { x: 20 + Number(lv) * (W + GX), y: 20 + i * (H + GY) };
    maxX = Math.max(maxX, pos[n.name].x + W); maxY = Math.max(maxY, pos[n.name].y + H);
  });
}
const svg = document.getElementById("svg");
svg.setAttribute("width", maxX + 20); svg.setAttribute("height", maxY + 20);
const NS = "http://www.w3.org/2000/svg";
function el(tag, attrs, parent) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  parent.appendChild(e); return e;
}
for (const n of nodes) for (const p of n.parents) {
  const a = pos[p], b = pos[n.name]; if (!a || !b) continue;
  const x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x, y2 = b.y + H / 2, mx = (x1 + x2) / 2;
  el("path", { class: "edge", d: "M" + x1 + "," + y1 + " C" + mx + "," + y1 + " " + mx + "," + y2 + " " + x2 + "," + y2 }, svg);
}
let selected = null;
for (const n of nodes) {
  const g = el("g", { class: "node k-" + n.kind, transform: "translate(" + pos[n.name].x + "," + pos[n.name].y + ")", "data-model": n.name }, svg);
  el("rect", { width: W, height: H }, g);
  el("text", { x: 10, y: 19 }, g).textContent = n.name;
  el("text", { x: 10, y: 35, class: "kind" }, g).textContent = n.kind.toLowerCase() + (n.kind === "FULL" || n.kind.startsWith("INCREMENTAL") || n.kind === "SCD_TYPE_2" ? " → " + n.target : "");
  g.style.cursor = "pointer";
  g.addEventListener("click", () => show(n, g));
}
function show(n, g) {
  if (selected) selected.classList.remove("selected");
  selected = g; g.classList.add("selected");
  const d = document.getElementById("detail");
  d.innerHTML = "";
  const h = document.createElement("h3"); h.textContent = n.name; d.appendChild(h);
  const meta = document.createElement("p");
  meta.textContent = n.kind + " · " + n.file + (n.parents.length ? " · reads " + n.parents.join(", ") : "");
  d.appendChild(meta);
  if (n.description) { const p = document.createElement("p"); p.textContent = n.description; d.appendChild(p); }
  const pre = document.createElement("pre"); pre.textContent = n.sql; d.appendChild(pre);
}
// A link to graph.html#model=<name> opens with that model selected.
if (location.hash.startsWith("#model=")) {
  const name = decodeURIComponent(location.hash.slice(7));
  const g = document.querySelector('g.node[data-model="' + CSS.escape(name) + '"]');
  if (g) g.dispatchEvent(new MouseEvent("click", { bubbles: true }));
}
document.body.dataset.status = "ok";
document.body.dataset.models = String(document.querySelectorAll("g.node").length);
</script>
</body></html>
`))
