// The plan view's page: draws efmesh.plan's result as a table (model,
// category, build or reuse, intervals) and sends Apply back to the
// extension. It builds the DOM with textContent only: names and SQL from
// the project are never parsed as HTML.
(function () {
  const vscode = acquireVsCodeApi();
  const $ = (id) => document.getElementById(id);
  let current;

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'class') e.className = v;
      else if (k.startsWith('data-')) e.setAttribute(k, v);
      else e[k] = v;
    }
    for (const c of children) if (c !== undefined && c !== null) e.append(c);
    return e;
  }

  function day(s) {
    return String(s).slice(0, 10);
  }

  // intervalsText: "3 (2026-01-01 .. 2026-01-04)" from the backfill ranges.
  function intervalsText(m) {
    const ranges = m.backfill || [];
    if (ranges.length === 0) return m.intervals ? String(m.intervals) : '';
    const spans = ranges.map(([a, b]) => `${day(a)} .. ${day(b)}`).join(', ');
    return m.intervals ? `${m.intervals} (${spans})` : spans;
  }

  function action(m) {
    if (m.change === 'removed') return 'remove';
    if (m.build) return 'build';
    if (m.change === 'unchanged') return '';
    return m.reusedFrom ? 'reuse ' + m.reusedFrom.slice(0, 8) : 'reuse';
  }

  function draw(plan) {
    current = plan;
    $('title').textContent = `Plan for ${plan.env}`;
    const changed = plan.models.filter((m) => m.change !== 'unchanged' || m.build || m.intervals);
    const unchanged = plan.models.length - changed.length;
    const builds = plan.models.filter((m) => m.build).length;
    $('summary').textContent = plan.hasChanges
      ? `${changed.length} model${changed.length === 1 ? '' : 's'} change, ${builds} to build, ${unchanged} unchanged`
      : `${plan.env} is up to date: nothing to apply`;
    const apply = $('apply');
    apply.disabled = !plan.hasChanges;
    apply.textContent = `Apply to ${plan.env}`;
    apply.classList.toggle('prod', plan.env === 'prod');

    const body = $('models');
    body.replaceChildren();
    for (const m of changed) {
      const name = el('a', { href: '#', class: 'model', textContent: m.name, title: 'Open the model' });
      name.addEventListener('click', (e) => {
        e.preventDefault();
        vscode.postMessage({ type: 'open', model: m.name });
      });
      const explain = (m.explain || []).length > 0 ? el('div', { class: 'explain', textContent: m.explain.join('\n') }) : null;
      const cause = (m.cause || []).length > 0 ? el('div', { class: 'cause', textContent: 'because of ' + m.cause.join(', ') }) : null;
      body.append(
        el('tr', { 'data-model': m.name },
          el('td', {}, name, explain, cause),
          el('td', {}, el('span', { class: `category ${m.change}`, textContent: m.change })),
          el('td', { class: 'kind', textContent: m.kind || '' }),
          el('td', { class: 'action', textContent: action(m) }),
          el('td', { class: 'intervals', textContent: intervalsText(m) })),
      );
    }
    $('table').hidden = changed.length === 0;
    $('status').textContent = '';
  }

  $('apply').addEventListener('click', () => {
    if (!current) return;
    $('apply').disabled = true;
    $('status').textContent = `applying to ${current.env}…`;
    vscode.postMessage({ type: 'apply', env: current.env });
  });
  $('replan').addEventListener('click', () => {
    $('status').textContent = 'planning…';
    vscode.postMessage({ type: 'replan' });
  });

  window.addEventListener('message', (event) => {
    const m = event.data;
    switch (m.type) {
      case 'plan':
        draw(m.plan);
        break;
      case 'busy':
        $('status').textContent = m.text;
        break;
      case 'applied':
        $('status').textContent = m.text;
        break;
      case 'error':
        $('status').textContent = m.message;
        $('status').className = 'error';
        if (current) $('apply').disabled = !current.hasChanges;
        break;
    }
  });
  vscode.postMessage({ type: 'ready' });
})();
