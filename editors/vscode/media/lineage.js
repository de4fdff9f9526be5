// Draws an efmesh.lineage graph as SVG: sources on the left, consumers on
// the right (layers by longest path), no library and no network.
(function () {
  'use strict';
  const vscode = acquireVsCodeApi();
  const SVG = 'http://www.w3.org/2000/svg';
  const graphEl = document.getElementById('graph');
  const status = document.getElementById('status');
  const modelIn = document.getElementById('model');
  const columnIn = document.getElementById('column');

  document.getElementById('trace').addEventListener('submit', (e) => {
    e.preventDefault();
    status.className = '';
    status.textContent = 'tracing…';
    vscode.postMessage({ type: 'trace', model: modelIn.value.trim(), column: columnIn.value.trim() });
  });

  window.addEventListener('message', (e) => {
    const m = e.data;
    if (m.type === 'graph') draw(m.graph);
    if (m.type === 'error') {
      status.className = 'error';
      status.textContent = m.message;
    }
  });

  function el(name, attrs, parent) {
    const n = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs || {})) n.setAttribute(k, String(v));
    if (parent) parent.appendChild(n);
    return n;
  }

  // layout assigns every node a layer (longest path from a source) and an
  // order within its layer (by the mean position of its sources).
  function layout(graph) {
    const preds = new Map(graph.nodes.map((n) => [n.id, []]));
    for (const e of graph.edges) if (preds.has(e.to) && preds.has(e.from)) preds.get(e.to).push(e.from);
    const layer = new Map();
    const visiting = new Set();
    function depth(id) {
      if (layer.has(id)) return layer.get(id);
      if (visiting.has(id)) return 0; // a cycle: the server reports it; draw anyway
      visiting.add(id);
      let d = 0;
      for (const p of preds.get(id)) d = Math.max(d, depth(p) + 1);
      visiting.delete(id);
      layer.set(id, d);
      return d;
    }
    graph.nodes.forEach((n) => depth(n.id));
    // A source that feeds only later layers moves next to its first reader,
    // so its edges do not cross the columns in between.
    const succs = new Map(graph.nodes.map((n) => [n.id, []]));
    for (const e of graph.edges) if (succs.has(e.from) && succs.has(e.to)) succs.get(e.from).push(e.to);
    for (const n of graph.nodes) {
      const out = succs.get(n.id);
      if (preds.get(n.id).length === 0 && out.length > 0) {
        layer.set(n.id, Math.max(0, Math.min(...out.map((t) => layer.get(t))) - 1));
      }
    }
    const layers = [];
    for (const n of graph.nodes) (layers[layer.get(n.id)] ||= []).push(n);
    const pos = new Map();
    layers.forEach((ns) => ns.forEach((n, i) => pos.set(n.id, i)));
    for (let pass = 0; pass < 2; pass++) {
      for (const ns of layers.slice(1)) {
        const key = (n) => {
          const ps = preds.get(n.id);
          return ps.length ? ps.reduce((s, p) => s + pos.get(p), 0) / ps.length : pos.get(n.id);
        };
        ns.sort((a, b) => key(a) - key(b));
        ns.forEach((n, i) => pos.set(n.id, i));
      }
    }
    return layers;
  }

  function draw(graph) {
    status.className = '';
    status.textContent = `${graph.nodes.length} nodes, ${graph.edges.length} edges`;
    const rootNode = graph.nodes.find((n) => n.id === graph.root);
    if (rootNode) {
      modelIn.value = rootNode.model;
      columnIn.value = rootNode.column || '';
    }
    graphEl.textContent = '';
    const layers = layout(graph);
    const charW = 7.2, nodeH = 40, gapX = 70, gapY = 18, pad = 10;
    const label = (n) => (n.column ? `${n.model}.${n.column}` : n.model);
    const sub = (n) => [n.type, n.kind].filter(Boolean).join(' \u00b7 ');
    const widths = layers.map((ns) => Math.max(...ns.map((n) => Math.max(label(n).length, sub(n).length))) * charW + 20);
    const box = new Map();
    let x = pad, height = 0;
    layers.forEach((ns, li) => {
      ns.forEach((n, i) => box.set(n.id, { x, y: pad + i * (nodeH + gapY), w: widths[li], h: nodeH }));
      height = Math.max(height, pad * 2 + ns.length * (nodeH + gapY));
      x += widths[li] + gapX;
    });
    const svg = el('svg', { width: x - gapX + pad, height });
    const defs = el('defs', {}, svg);
    const marker = el('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto' }, defs);
    el('path', { d: 'M0,0 L10,5 L0,10 z' }, marker);
    for (const e of graph.edges) {
      const a = box.get(e.from), b = box.get(e.to);
      if (!a || !b) continue;
      const x1 = a.x + a.w, y1 = a.y + a.h / 2, x2 = b.x, y2 = b.y + b.h / 2, mx = (x1 + x2) / 2;
      el('path', { class: 'edge', d: `M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}`, 'marker-end': 'url(#arrow)' }, svg);
    }
    for (const n of graph.nodes) {
      const b = box.get(n.id);
      const g = el('g', { class: `node${n.id === graph.root ? ' root' : ''}${n.file ? ' file' : ''}`, transform: `translate(${b.x},${b.y})` }, svg);
      el('title', {}, g).textContent = n.file ? `${n.id}\n${n.file}\n(click to open)` : n.id;
      el('rect', { width: b.w, height: b.h, rx: 4 }, g);
      el('text', { x: 10, y: 17 }, g).textContent = label(n);
      el('text', { x: 10, y: 32, class: 'sub' }, g).textContent = sub(n);
      if (n.file) g.addEventListener('click', () => vscode.postMessage({ type: 'open', file: n.file }));
    }
    graphEl.appendChild(svg);
  }

  vscode.postMessage({ type: 'ready' });
})();
