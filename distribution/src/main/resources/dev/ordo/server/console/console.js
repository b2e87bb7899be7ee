// Ordo's web console (docs/console.md): one page per hash route, each drawn from the HTTP API and
// redrawn every REFRESH_MS. No build step and no library: elements are made with el(), never from
// HTML strings (payloads and names are user data), and charts are plain SVG.
'use strict';

const REFRESH_MS = 2000;
/** Longer than any console request may take on the server (a pause reads and writes the namespaces topic: 30 s bounds). */
const REQUEST_TIMEOUT_MS = 75000;
const SVG = 'http://www.w3.org/2000/svg';
const COLORS = { ready: 'var(--ready)', delayed: 'var(--delayed)', leased: 'var(--leased)',
  parked: 'var(--parked)', overflow: 'var(--overflow)', enqueuePerSec: 'var(--ready)',
  leasePerSec: 'var(--leased)', deadLetterPerSec: 'var(--overflow)', oldestReadyAgeMs: 'var(--delayed)' };

// ---- helpers ----

/** An element with attributes (on* as listeners) and children (strings become text). */
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

function svg(tag, attrs, ...children) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  return e;
}

/** Where the API token is kept: this tab only, until sign-out or the tab closes. */
const TOKEN_KEY = 'ordo.token';

/**
 * GET (or another method) of the API, with the token (if any) as Authorization: Bearer; rejects with
 * the server's {"error"} text and its status. A 401 while signed in (a revoked token) signs out.
 */
async function api(path, options) {
  const o = Object.assign({}, options || {});
  const headers = Object.assign({ 'Accept': 'application/json' }, o.headers || {});
  const token = 'token' in o ? o.token : sessionStorage.getItem(TOKEN_KEY);
  delete o.token;
  if (token) headers['Authorization'] = 'Bearer ' + token;
  o.headers = headers;
  // A request the server never answers must not hold a page (or one of the browser's few connections) for good.
  if (!o.signal) o.signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  let r;
  try {
    r = await fetch(path, o);
  } catch (e) {
    if (e.name === 'TimeoutError') throw new Error('no answer within ' + REQUEST_TIMEOUT_MS / 1000 + ' s: ' + (o.method || 'GET') + ' ' + path);
    throw e;
  }
  const text = await r.text();
  let body = null;
  try { body = text ? JSON.parse(text) : null; } catch (e) { body = null; }
  if (!r.ok) {
    const err = new Error((body && body.error) || (r.status + ' ' + r.statusText));
    err.status = r.status;
    if (r.status === 401 && me) signedOut('You were signed out: ' + err.message, true);
    throw err;
  }
  return body;
}

// ---- who is signed in, and what they may do ----

/** The server's answer to GET /v1/whoami ({principal, auth, grants}); null while signed out. */
let me = null;

/** Whether a namespace pattern matches a namespace: the rule of dev.ordo.api.NamespacePattern.matches. */
function patternMatches(pattern, namespace) {
  return pattern.endsWith('*') ? namespace.startsWith(pattern.slice(0, -1)) : pattern === namespace;
}

/** The grants of whoami ("team-a.*:consume,produce") as {pattern, permissions}; admin implies the others. */
function grants() {
  return (me ? me.grants : []).map(g => {
    const i = g.lastIndexOf(':');
    return { pattern: g.slice(0, i), permissions: g.slice(i + 1).split(',').map(p => p.trim().toLowerCase()) };
  });
}

function gives(grant, permission) {
  return grant.permissions.some(p => p === permission || p === 'admin');
}

/** Whether the principal has `permission` (produce, consume, operate, admin) in `namespace`. */
function may(permission, namespace) {
  return grants().some(g => gives(g, permission) && patternMatches(g.pattern, namespace));
}

/** Whether the principal has `permission` in every namespace (a grant on *). */
function mayEverywhere(permission) {
  return grants().some(g => gives(g, permission) && g.pattern === '*');
}

function mayAnywhere(permission) {
  return grants().some(g => gives(g, permission));
}

/** The namespaces the principal may operate that the console knows of: named in a grant, or holding items. */
async function operatedNamespaces() {
  const named = grants().filter(g => gives(g, 'operate') && !g.pattern.endsWith('*')).map(g => g.pattern);
  const listed = (await api('/v1/namespaces')).namespaces.map(n => n.namespace);
  return Array.from(new Set(named.concat(listed))).filter(n => may('operate', n)).sort();
}

const enc = encodeURIComponent;

function age(ms) {
  if (ms === null || ms === undefined) return '';
  if (ms < 1000) return ms + ' ms';
  const s = ms / 1000;
  if (s < 60) return s.toFixed(1) + ' s';
  if (s < 3600) return Math.floor(s / 60) + ' min' + (Math.floor(s % 60) ? ' ' + Math.floor(s % 60) + ' s' : '');
  return Math.floor(s / 3600) + ' h' + (Math.floor((s % 3600) / 60) ? ' ' + Math.floor((s % 3600) / 60) + ' min' : '');
}

function rate(v) {
  if (v === null || v === undefined) return '–';
  return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
}

function showError(message) {
  const e = document.getElementById('error');
  e.textContent = message || '';
  e.hidden = !message;
}

function replace(container, ...children) {
  container.replaceChildren(...children.flat().filter(c => c !== null && c !== undefined));
}

// ---- charts ----

/**
 * A line chart over the last `historyMs` up to now: one line per series key of `points`
 * ([{at, key: value, ...}]), y from 0 to the largest value. `format` writes the y-axis values.
 */
function lineChart(id, title, points, keys, historyMs, format) {
  const W = 600, H = 180, L = 64, R = 8, T = 14, B = 24;
  const now = Date.now();
  const from = now - historyMs;
  let max = 0;
  for (const p of points) for (const k of keys) if (p[k] !== null && p[k] > max) max = p[k];
  if (max === 0) max = 1;
  const x = t => L + (W - L - R) * Math.max(0, (t - from)) / historyMs;
  const y = v => T + (H - T - B) * (1 - v / max);
  const chart = svg('svg', { viewBox: `0 0 ${W} ${H}`, id: id + '-svg' },
    svg('line', { class: 'axis', x1: L, y1: H - B, x2: W - R, y2: H - B }),
    svg('line', { class: 'axis', x1: L, y1: T, x2: W - R, y2: T }),
    svg('text', { x: L - 6, y: T + 6, 'text-anchor': 'end' }, format(max)),
    svg('text', { x: L - 6, y: H - B, 'text-anchor': 'end' }, format(0)),
    svg('text', { x: L, y: H - 4 }, '-' + Math.round(historyMs / 60000) + ' min'),
    svg('text', { x: W - R, y: H - 4, 'text-anchor': 'end' }, 'now'));
  for (const k of keys) {
    const pts = points.filter(p => p[k] !== null && p[k] !== undefined && p.at >= from)
      .map(p => x(p.at).toFixed(1) + ',' + y(p[k]).toFixed(1));
    chart.append(svg('polyline', { points: pts.join(' '), fill: 'none', stroke: COLORS[k] || '#333',
      'stroke-width': 1.5, 'vector-effect': 'non-scaling-stroke', 'data-series': k, 'data-count': pts.length }));
  }
  const legend = el('div', { class: 'legend' }, keys.map(k => el('span', {},
    el('i', { style: 'background:' + (COLORS[k] || '#333') }), k)));
  return el('div', { class: 'chart', id }, el('h3', {}, title), chart, legend);
}

function charts(series) {
  const h = series.historyMs;
  const p = series.points;
  const count = v => Number.isInteger(v) ? String(v) : v.toFixed(1);
  return el('div', { class: 'charts' },
    lineChart('chart-items', 'Items by state', p, ['ready', 'delayed', 'leased', 'parked', 'overflow'], h, count),
    lineChart('chart-age', 'Oldest ready age', p, ['oldestReadyAgeMs'], h, age),
    lineChart('chart-rates', 'Rates (per second)', p, ['enqueuePerSec', 'leasePerSec', 'deadLetterPerSec'], h, rate));
}

// ---- pages ----

const COUNTS = ['ready', 'delayed', 'leased', 'parked', 'overflow'];

/** #/topics: every namespace's topics with their counts, ages and rates, and the charts of all of them. */
async function topicsPage(page) {
  const [ns, rates, series] = await Promise.all([
    api('/v1/namespaces?topics=true'), api('/v1/console/rates'), api('/v1/console/series')]);
  const byTopic = new Map(rates.topics.map(r => [r.namespace + '/' + r.topic, r]));
  const head = el('tr', {}, el('th', {}, 'namespace / topic'), COUNTS.map(c => el('th', { class: 'num' }, c)),
    el('th', { class: 'num' }, 'head priority'), el('th', { class: 'num' }, 'oldest ready'),
    el('th', { class: 'num' }, 'enqueues/s'), el('th', { class: 'num' }, 'leases/s'));
  const rows = [];
  for (const n of ns.namespaces) {
    rows.push(el('tr', { class: 'ns', 'data-namespace': n.namespace },
      el('td', {}, el('a', { href: '#/namespaces/' + enc(n.namespace) }, n.namespace), ' ', el('span', { class: 'muted' }, '(' + n.topicCount + (n.topicCount === 1 ? ' topic)' : ' topics)')),
        n.paused ? el('span', { class: 'paused' }, ' paused') : null),
      COUNTS.map(c => el('td', { class: 'num' }, n[c])), el('td', {}),
      el('td', { class: 'num' }, age(n.oldestReadyAgeMs)), el('td', {}), el('td', {})));
    for (const t of n.topics) {
      const r = byTopic.get(n.namespace + '/' + t.topic) || {};
      rows.push(el('tr', { 'data-topic': n.namespace + '/' + t.topic },
        el('td', {}, el('a', { href: '#/topics/' + enc(n.namespace) + '/' + enc(t.topic) }, t.topic),
          t.paused ? el('span', { class: 'paused', 'data-field': 'paused' }, ' paused') : null),
        COUNTS.map(c => el('td', { class: 'num', 'data-field': c }, t[c])),
        el('td', { class: 'num', 'data-field': 'headPriority' }, t.headPriority === null ? '–' : t.headPriority),
        el('td', { class: 'num', 'data-field': 'oldestReadyAgeMs' }, age(t.oldestReadyAgeMs)),
        el('td', { class: 'num', 'data-field': 'enqueuePerSec' }, rate(r.enqueuePerSec)),
        el('td', { class: 'num', 'data-field': 'leasePerSec' }, rate(r.leasePerSec))));
    }
  }
  const table = rows.length ? el('table', { id: 'topics' }, el('thead', {}, head), el('tbody', {}, rows))
    : el('p', { id: 'topics', class: 'muted' }, mayEverywhere('operate') ? 'No items in any topic.'
      : 'No items in the namespaces you may operate.');
  replace(page, el('h1', {}, 'Topics'), table, el('h2', {}, 'All topics, last ' + age(series.historyMs)), charts(series));
}

/** #/topics/{ns}/{topic}: the topic's counts, its charts and its head (the next items to be leased). */
async function topicPage(page, ns, topic) {
  const [topics, series, peek, consumers] = await Promise.all([
    api('/v1/namespaces/' + enc(ns) + '/topics'),
    api('/v1/console/series?namespace=' + enc(ns) + '&topic=' + enc(topic)),
    api('/v1/namespaces/' + enc(ns) + '/topics/' + enc(topic) + '/peek?n=20'),
    api('/v1/console/consumers?namespace=' + enc(ns) + '&topic=' + enc(topic))]);
  const listed = topics.topics.find(x => x.topic === topic);
  const t = listed ||
    { ready: 0, delayed: 0, leased: 0, parked: 0, overflow: 0, headPriority: null, oldestReadyAgeMs: 0 };
  const cards = el('div', { class: 'cards', id: 'counts' },
    COUNTS.map(c => el('div', { class: 'card', 'data-field': c }, el('div', { class: 'v' }, t[c]), el('div', { class: 'k' }, c))),
    el('div', { class: 'card' }, el('div', { class: 'v' }, age(t.oldestReadyAgeMs)), el('div', { class: 'k' }, 'oldest ready')));
  const headRows = peek.items.map(i => el('tr', { 'data-item': i.id },
    el('td', {}, el('a', { href: '#/items/' + enc(i.id) }, i.id)), el('td', { class: 'num' }, i.priority),
    el('td', {}, i.lane), el('td', {}, i.groupKey || ''), el('td', { class: 'num' }, i.attempts),
    el('td', {}, i.enqueuedAt), el('td', {}, preview(i))));
  const head = peek.items.length ? el('table', { id: 'head' },
    el('thead', {}, el('tr', {}, ['id', 'priority', 'lane', 'group', 'attempts', 'enqueued', 'payload']
      .map(h => el('th', {}, h)))), el('tbody', {}, headRows))
    : el('p', { id: 'head', class: 'muted' }, 'Nothing ready.');
  replace(page, el('h1', {}, el('a', { href: '#/topics' }, ns), ' / ', topic), listed ? pauseBox(ns, topic, !!t.paused)
    : el('p', { id: 'pause', class: 'muted' }, 'Not counted yet: the topics table shows a topic about a second after its first items.'), cards,
    charts(series),
    el('h2', {}, 'Head: the next items to be leased'),
    peek.unavailable && peek.unavailable.length
      ? el('p', { class: 'muted' }, 'Partitions not answering (rebalancing): ' + peek.unavailable.join(', ')) : null,
    head,
    el('h2', {}, 'Consumers: spare capacity'),
    consumersTable(consumers.consumers));
}

/**
 * The consumer groups dequeuing the topic over this instance's HTTP API: busy ratio (near 1: saturated,
 * add workers; near 0 with empty dequeues rising: idle, the queue is empty) and empty dequeues.
 */
function consumersTable(groups) {
  if (!groups.length) {
    return el('p', { id: 'consumers', class: 'muted' }, 'No consumer has dequeued this topic over this instance\'s HTTP API.');
  }
  return el('table', { id: 'consumers' },
    el('thead', {}, el('tr', {}, ['group', 'busy', 'empty dequeues'].map(h => el('th', {}, h)))),
    el('tbody', {}, groups.map(g => el('tr', { 'data-group': g.group },
      el('td', {}, g.group),
      el('td', { class: 'num', 'data-field': 'busyRatio' }, Math.round((g.busyRatio || 0) * 100) + '%'),
      el('td', { class: 'num', 'data-field': 'emptyDequeues' }, g.emptyDequeues || 0)))));
}

/**
 * Whether a topic (or, without one, a namespace) is paused, with a button that pauses or resumes it
 * for a caller who may operate the namespace (docs/operations.md, "In an incident").
 */
function pauseBox(ns, topic, paused) {
  const what = topic === null ? 'namespace ' + ns : 'topic ' + topic;
  const key = ns + '/' + (topic === null ? '' : topic);
  const path = '/v1/namespaces/' + enc(ns) + (topic === null ? '' : '/topics/' + enc(topic)) + (paused ? '/resume' : '/pause');
  const action = pauseActions.get(key);
  const button = may('operate', ns) ? el('button', { type: 'button', id: 'pause-toggle',
    disabled: !!(action && action.pending), onclick: async () => {
      if (!paused && !confirm('Pause ' + what + '? Nothing of it will be leased until it is resumed.')) return;
      pauseActions.set(key, { pending: (paused ? 'Resuming' : 'Pausing') + '…' });
      route();
      try {
        await api(path, { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } });
        pauseActions.delete(key);
      } catch (e) {
        pauseActions.set(key, { error: (paused ? 'Resume' : 'Pause') + ' failed: ' + e.message });
      }
      route();
    } }, paused ? 'Resume' : 'Pause') : null;
  return el('p', { id: 'pause', 'data-paused': String(paused) },
    paused ? el('span', { class: 'paused' }, 'Paused: nothing of this ' + (topic === null ? 'namespace' : 'topic')
      + ' is leased; enqueues go on. ') : el('span', { class: 'muted' }, 'Leasing. '), button,
    action && action.pending ? el('span', { id: 'pause-pending', class: 'muted' }, ' ' + action.pending) : null,
    action && action.error ? el('span', { id: 'pause-error', class: 'error' }, ' ' + action.error) : null);
}

/**
 * A pause or resume asked from a page, by "namespace/topic": under way ({pending}) or failed ({error}),
 * shown beside the button through the page's refreshes (which clear the page-wide error line) until the
 * next click there succeeds.
 */
const pauseActions = new Map();

function preview(item) {
  const text = item.payload !== undefined ? item.payload
    : item.payloadBase64 !== undefined ? '(base64) ' + item.payloadBase64
    : item.rawValue !== undefined ? item.rawValue : null;
  return text === null ? '' : text.length > 80 ? text.slice(0, 80) + '…' : text;
}

/** #/items/{id}: one item as its partition's store holds it. */
async function itemPage(page, id) {
  const form = el('form', { class: 'inline', id: 'item-form', onsubmit: e => {
    e.preventDefault();
    location.hash = '#/items/' + enc(form.elements.id.value.trim());
  } }, el('label', {}, 'Item ID '), el('input', { name: 'id', value: id || '', placeholder: '3-1042' }),
  el('button', { type: 'submit' }, 'Look up'));
  if (!id) {
    replace(page, el('h1', {}, 'Items'), form,
      el('p', { class: 'muted' }, 'Item IDs are <partition>-<offset>, as an enqueue answers; the head of a topic links to its items.'));
    return false;
  }
  let item;
  try {
    item = await api('/v1/items/' + enc(id));
  } catch (e) {
    if (e.status === 404 || e.status === 400 || e.status === 403) {
      replace(page, el('h1', {}, 'Item ' + id), form, el('p', { id: 'item-missing' }, e.message));
      return true;
    }
    throw e;
  }
  const fields = ['namespace', 'topic', 'state', 'priority', 'attempts', 'maxAttempts', 'semantics', 'enqueuedAt',
    'readyAt', 'leaseMs', 'expiresAt', 'leasedAt', 'leaseExpiresAt', 'leaseHolder', 'groupKey', 'traceId'];
  const dl = el('dl', { class: 'fields', id: 'item' });
  for (const f of fields) {
    if (item[f] === undefined) continue;
    const v = f === 'namespace' ? el('a', { href: '#/topics' }, item[f])
      : f === 'topic' ? el('a', { href: '#/topics/' + enc(item.namespace) + '/' + enc(item.topic) }, item[f])
      : item[f] === null ? '–' : String(item[f]);
    dl.append(el('dt', {}, f), el('dd', { 'data-field': f }, v));
  }
  const history = item.history && item.history.length ? el('table', {},
    el('thead', {}, el('tr', {}, ['attempt', 'leased at', 'ended at', 'outcome', 'error'].map(h => el('th', {}, h)))),
    el('tbody', {}, item.history.map(a => el('tr', {}, el('td', {}, a.attempt), el('td', {}, a.leasedAt),
      el('td', {}, a.endedAt), el('td', {}, a.outcome), el('td', {}, a.error || '')))))
    : el('p', { class: 'muted' }, 'No earlier attempts.');
  replace(page, el('h1', {}, 'Item ', el('span', { id: 'item-id' }, item.id)), form, dl,
    el('h2', {}, 'Payload'), el('pre', { id: 'payload' }, item.payload !== undefined ? item.payload : item.payloadBase64 + '  (base64)'),
    el('h2', {}, 'Metadata'), el('pre', {}, item.metadata !== undefined ? (item.metadata === null ? '–' : item.metadata)
      : item.metadataBase64 + '  (base64)'),
    el('h2', {}, 'Headers'), headersTable(item),
    el('h2', {}, 'History'), history);
  return true;
}

/** An item's headers (text values, then binary ones in base64) as a table, or a line saying there are none. */
function headersTable(x) {
  const rows = [];
  for (const [k, v] of Object.entries(x.headers || {})) rows.push([k, v === null ? '–' : v]);
  for (const [k, v] of Object.entries(x.headersBase64 || {})) rows.push([k, v + '  (base64)']);
  return rows.length ? el('table', { id: 'headers' },
    el('thead', {}, el('tr', {}, ['name', 'value'].map(h => el('th', {}, h)))),
    el('tbody', {}, rows.map(r => el('tr', { 'data-header': r[0] }, el('td', {}, r[0]), el('td', {}, r[1])))))
    : el('p', { class: 'muted' }, 'No headers.');
}

/** #/cluster: this server's health, the queue's instances and which runs each partition. */
async function clusterPage(page) {
  const [health, cluster] = await Promise.all([api('/health').catch(e => ({ status: 'DOWN: ' + e.message })),
    api('/v1/cluster')]);
  const instances = el('table', { id: 'instances' },
    el('thead', {}, el('tr', {}, ['instance', 'active partitions', 'standby partitions'].map(h => el('th', {}, h)))),
    el('tbody', {}, cluster.instances.map(i => el('tr', { 'data-instance': i.address },
      el('td', {}, i.address, i.self ? el('span', { class: 'badge' }, ' this server') : null),
      el('td', { 'data-field': 'active' }, i.activePartitions.join(', ') || '–'),
      el('td', {}, i.standbyPartitions.join(', ') || '–')))));
  const parts = el('div', { class: 'grid', id: 'partitions' }, cluster.partitions.map(p =>
    el('div', { class: 'part' + (p.active ? '' : ' none'), 'data-partition': p.partition },
      el('b', {}, 'partition ' + p.partition), el('br'), p.active || 'no instance (rebalancing)',
      p.standbys.length ? el('div', { class: 'muted' }, 'standby: ' + p.standbys.join(', ')) : null)));
  const comps = health.components ? Object.entries(health.components).map(([k, v]) => k + ' ' + v).join(', ') : '';
  replace(page, el('h1', {}, 'Cluster ', el('span', { class: 'muted' }, cluster.cluster)),
    el('dl', { class: 'fields' },
      el('dt', {}, 'this server'), el('dd', {}, cluster.self + ' (Kafka Streams ' + cluster.state + ')'),
      el('dt', {}, 'health'), el('dd', { id: 'health' }, health.status + (comps ? ': ' + comps : '')),
      el('dt', {}, 'Kafka'), el('dd', {}, health.kafka || ''),
      el('dt', {}, 'partitions'), el('dd', {}, cluster.partitionCount)),
    el('h2', {}, 'Instances'), instances, el('h2', {}, 'Partitions'), parts);
}

/**
 * #/namespaces/{ns}: the namespace's policy (the defaults and limits its items get), and for an admin
 * of the namespace a form to replace or delete it. Not redrawn by itself: an edit stays.
 */
async function namespacePage(page, ns) {
  const path = '/v1/namespaces/' + enc(ns) + '/policy';
  let policy = null;
  try {
    policy = await api(path);
  } catch (e) {
    if (e.status !== 404) throw e;
  }
  const fields = policy ? Object.fromEntries(Object.entries(policy).filter(([k]) => k !== 'namespace')) : null;
  const text = fields ? JSON.stringify(fields, null, 2) : null;
  const write = async (method, body) => {
    try {
      await api(path, { method, body, headers: { 'Content-Type': 'application/json' } });
      showError('');
      route();
    } catch (e) {
      showError(e.message);
    }
  };
  let edit;
  if (may('admin', ns)) {
    const area = el('textarea', { name: 'policy', rows: 12, cols: 80, spellcheck: 'false' },
      text || '{\n  "defaults": {}\n}');
    edit = el('form', { id: 'policy-edit', onsubmit: e => { e.preventDefault(); write('PUT', area.value); } },
      el('h2', {}, 'Change the policy'),
      el('p', { class: 'muted' }, 'Saving replaces the whole policy; a field left out takes the server\'s setting.'),
      area, el('div', { class: 'inline' }, el('button', { type: 'submit', id: 'policy-save' }, 'Save policy'), ' ',
        policy ? el('button', { type: 'button', class: 'secondary', id: 'policy-delete', onclick: () => {
          if (confirm('Delete the policy of ' + ns + '? Its items will take the server\'s settings.')) write('DELETE');
        } }, 'Delete policy') : null));
  } else {
    edit = el('p', { class: 'muted', id: 'policy-readonly' }, 'Changing the policy needs admin on ' + ns + '.');
  }
  const listed = (await api('/v1/namespaces')).namespaces.find(n => n.namespace === ns);
  replace(page, el('h1', {}, el('a', { href: '#/topics' }, 'Topics'), ' / ', el('span', { id: 'namespace' }, ns)),
    pauseBox(ns, null, !!(listed && listed.paused)),
    el('h2', {}, 'Policy'),
    el('pre', { id: 'policy' }, text || 'No policy: its items take the server\'s settings.'),
    el('p', { id: 'dedup-window' }, dedupWindowText(policy)),
    el('p', { id: 'topic-weights' }, topicWeightsText(policy)),
    el('p', { id: 'ordered-groups' }, orderedText(policy)),
    el('p', { id: 'group-rates' }, groupRatesText(policy)),
    el('p', { id: 'shards' }, shardsText(policy)), edit);
  return false;
}

/** How a dequeue over several of the namespace's topics shares its items (docs/queue.md, "Topic weights"). */
function topicWeightsText(policy) {
  const weights = policy && policy.topicWeights ? Object.entries(policy.topicWeights) : [];
  if (!weights.length) return 'Topic weights: none: a dequeue over several topics takes them in priority and ready order.';
  return 'Topic weights: ' + weights.map(([t, w]) => t + ' ' + w).join(', ') + ' (other topics 1): a dequeue over '
    + 'several topics shares its items between the ready topics by weight, within each priority.';
}

/** How many partitions each group key spreads over (docs/queue.md, "Shuffle sharding"). */
function shardsText(policy) {
  const k = policy && policy.shards ? policy.shards : 1;
  if (k <= 1) return 'Shards: 1: each group key\'s items on one partition (its hash).';
  return 'Shards: ' + k + ': each group key\'s items spread over its own ' + k + ' partitions, the producer picking '
    + 'the least loaded; group limits and rates split over them, ordered topics on one.';
}

/** Which topics order their groups (docs/queue.md, "Ordered groups"): ordered, then the per-topic overrides. */
function orderedText(policy) {
  const all = !!(policy && policy.ordered);
  const topics = policy && policy.orderedTopics ? Object.entries(policy.orderedTopics) : [];
  const on = topics.filter(([, v]) => v).map(([t]) => t);
  const off = topics.filter(([, v]) => !v).map(([t]) => t);
  let text = all ? 'Ordered groups: on for every topic' + (off.length ? ' but ' + off.join(', ') : '')
    : on.length ? 'Ordered groups: on for ' + on.join(', ') + ' only' : 'Ordered groups: off';
  return text + (all || on.length
    ? ': each group key\'s items are leased one at a time in enqueue order, a nacked item staying its group\'s head.'
    : ': a group key\'s items are leased in parallel, as fair queueing orders them.');
}

/** How fast each group key's items may be leased (docs/queue.md, "Group rates"): groupRate, then its overrides. */
function groupRatesText(policy) {
  const rate = r => r.perSecond + '/s (burst ' + r.burst + ')';
  const all = policy && policy.groupRate ? policy.groupRate : null;
  const own = policy && policy.groupRateOverrides ? Object.entries(policy.groupRateOverrides) : [];
  if (!all && !own.length) return 'Group rates: none: a group key\'s items are leased as fast as workers take them.';
  const parts = [];
  if (all) parts.push('every group ' + rate(all));
  own.forEach(([g, r]) => parts.push(g + ' ' + rate(r)));
  return 'Group rates: ' + parts.join(', ') + (all ? '' : ' (other groups: none)')
    + ': a group over its rate waits, the others are not slowed; items without a group key are not limited.';
}

/** The deduplication window a namespace's items get (docs/queue.md, "Deduplication"). */
function dedupWindowText(policy) {
  const ms = policy && policy.dedupWindowMs != null ? policy.dedupWindowMs : null;
  if (ms === 0) return 'Deduplication: off (dedupWindowMs 0): items with a deduplication ID are all taken in.';
  const shown = ms == null ? '300000 ms (5 minutes, the default)' : ms + ' ms';
  return 'Deduplication window: ' + shown + ': an item whose dedupId was taken in within it is refused as a duplicate.';
}

// ---- dead letters ----

const REASONS = ['MAX_ATTEMPTS', 'REJECTED', 'TTL_EXPIRED', 'MALFORMED', 'INVALID'];
const DLQ_FILTER = ['namespace', 'topic', 'reason', 'status'];
/** The redrive or purge job started last from these pages, whose progress they show until it ends. */
let dlqJob = null;
/** Where that job is shown: one element kept across redraws, so the list can reload under it. */
const jobBox = el('div', { id: 'job-box' });

/** The filter in the address: #/dlq?namespace=shop&reason=MAX_ATTEMPTS (empty values left out). */
function dlqQuery(hash) {
  const i = hash.indexOf('?');
  const params = new URLSearchParams(i < 0 ? '' : hash.slice(i + 1));
  const f = {};
  for (const k of DLQ_FILTER.concat(['cursor'])) if (params.get(k)) f[k] = params.get(k);
  return f;
}

function dlqHash(f) {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v) p.set(k, v);
  const q = p.toString();
  return '#/dlq' + (q ? '?' + q : '');
}

/** Whether the principal may cancel the job: as starting it, operate on its filter's namespace, or everywhere. */
function mayCancel(j) {
  const ns = j.selection && j.selection.filter ? j.selection.filter.namespace : null;
  return ns ? may('operate', ns) : mayEverywhere('operate');
}

/** Polls the job until it ends (DONE, FAILED or CANCELLED), showing it in #job with a Cancel button while it runs; then calls done(). */
async function watchJob(box, job, done) {
  dlqJob = job.job;
  const kind = job.kind === 'PURGE' ? 'purges' : 'redrives';
  const cancel = async () => {
    try {
      const c = await api('/v1/dlq/' + kind + '/' + enc(job.job) + '/cancel', { method: 'POST', body: '{}',
        headers: { 'Content-Type': 'application/json', 'Accept': 'application/json' } });
      if (dlqJob === job.job) show(c);
    } catch (e) {
      showError(e.message);
    }
  };
  const show = j => replace(box, el('div', { class: 'card', id: 'job', 'data-status': j.status },
    el('b', {}, (j.kind === 'PURGE' ? 'Purge ' : 'Redrive ') + j.job + ': '), el('span', { id: 'job-status' }, j.status),
    ' · ', 'read ' + j.scanned + ' of ' + j.total, ' · ',
    el('span', { id: 'job-done' }, (j.kind === 'PURGE' ? j.purged : j.redriven) + (j.kind === 'PURGE' ? ' purged' : ' redriven')),
    ', ' + j.skipped + ' skipped', j.error ? el('div', { class: 'error' }, j.error) : null,
    (j.status === 'PENDING' || j.status === 'RUNNING') && mayCancel(j)
      ? el('button', { type: 'button', class: 'secondary', id: 'job-cancel', onclick: cancel }, 'Cancel') : null));
  show(job);
  let j = job;
  while (dlqJob === job.job && (j.status === 'PENDING' || j.status === 'RUNNING' || j.status === 'CANCELLING')) {
    await new Promise(r => setTimeout(r, 500));
    try {
      j = await api('/v1/dlq/' + kind + '/' + enc(job.job));
      if (dlqJob === job.job) show(j);
    } catch (e) {
      showError(e.message);
    }
  }
  if (dlqJob === job.job && done && location.hash.startsWith('#/dlq')) done(j);
}

async function startJob(box, path, body, done) {
  try {
    const job = await api(path, { method: 'POST', body: JSON.stringify(body),
      headers: { 'Content-Type': 'application/json', 'Accept': 'application/json' } });
    await watchJob(box, job, done);
  } catch (e) {
    showError(e.message);
  }
}

/**
 * The dead letters' filter (namespace, topic, reason, status) as a form that sets the address;
 * `known` the namespaces offered for the namespace field.
 */
function dlqFilter(f, known) {
  const input = (name, placeholder, list) => el('input', { name, value: f[name] || '', placeholder, list });
  const form = el('form', { class: 'inline', id: 'dlq-filter', onsubmit: e => {
    e.preventDefault();
    const next = {};
    for (const k of DLQ_FILTER) next[k] = form.elements[k].value.trim();
    location.hash = dlqHash(next);
  } }, input('namespace', 'namespace', 'dlq-namespaces'), input('topic', 'topic'),
  el('select', { name: 'reason' }, el('option', { value: '' }, 'any reason'),
    REASONS.map(r => el('option', { value: r, selected: f.reason === r }, r))),
  el('select', { name: 'status' }, ['dead', 'redriven', 'purged', 'all'].map(s =>
    el('option', { value: s, selected: (f.status || 'dead') === s }, s))),
  el('button', { type: 'submit' }, 'Filter'),
  el('button', { type: 'button', class: 'secondary', onclick: () => route() }, 'Refresh'),
  el('datalist', { id: 'dlq-namespaces' }, known.map(n => el('option', { value: n }))));
  return form;
}

/** #/dlq?filter: the dead letters, filtered and paged, to select and redrive (or purge). Not redrawn by itself: selections stay. */
async function dlqPage(page, hash) {
  const f = dlqQuery(hash);
  // Dead letters of every namespace share one topic: without operate on all of them, the list names one.
  const known = mayEverywhere('operate') ? [] : await operatedNamespaces();
  if (!f.namespace && known.length) {
    f.namespace = known[0];
    history.replaceState(null, '', dlqHash(f));
  }
  if (!f.namespace && !mayEverywhere('operate')) {
    const where = grants().filter(g => gives(g, 'operate')).map(g => g.pattern).join(', ');
    replace(page, el('h1', {}, 'Dead letters'), el('p', { id: 'dlq-choose' },
      'Name a namespace you may operate (' + where + ') in the filter:'), dlqFilter(f, known));
    return false;
  }
  const query = new URLSearchParams(Object.assign({ limit: '50' }, f));
  const list = await api('/v1/dlq?' + query.toString());
  const form = dlqFilter(f, known);
  // Redrive and purge need operate on the dead letters' namespace (every namespace for a list of all).
  const allowed = f.namespace ? may('operate', f.namespace) : mayEverywhere('operate');
  const rows = list.deadLetters.map(d => el('tr', { 'data-dead-letter': d.id },
    el('td', {}, el('input', { type: 'checkbox', name: 'select', value: d.id,
      disabled: d.status !== 'DEAD' || !d.redrivable || !may('operate', d.namespace || '') })),
    el('td', {}, el('a', { href: '#/dlq/' + enc(d.id) }, d.id)),
    el('td', { 'data-field': 'status' }, d.status), el('td', {}, d.reason), el('td', {}, d.deadAt),
    el('td', {}, (d.namespace || '') + (d.topic ? ' / ' + d.topic : '')),
    el('td', {}, d.itemId || ''), el('td', { class: 'num' }, d.attempts === undefined ? '' : d.attempts),
    el('td', {}, d.lastError || d.detail || ''), el('td', {}, preview(d))));
  const selected = () => Array.from(page.querySelectorAll('input[name=select]:checked')).map(c => c.value);
  const filter = {};
  for (const k of ['namespace', 'topic', 'reason']) if (f[k]) filter[k] = f[k];
  const after = () => route();
  const actions = !allowed ? null : el('div', { class: 'inline' },
    el('button', { type: 'button', id: 'redrive-selected', onclick: () => {
      const ids = selected();
      if (!ids.length) { showError('Select dead letters to redrive first.'); return; }
      startJob(jobBox, '/v1/dlq/redrive', { ids }, after);
    } }, 'Redrive selected'), ' ',
    el('button', { type: 'button', class: 'secondary', id: 'redrive-filter', disabled: !Object.keys(filter).length,
      title: 'every dead letter the filter selects (namespace, topic, reason), on every page', onclick: () => {
        if (confirm('Redrive every dead letter matching ' + JSON.stringify(filter) + '?')) {
          startJob(jobBox, '/v1/dlq/redrive', { filter }, after);
        }
      } }, 'Redrive all matching'), ' ',
    el('button', { type: 'button', class: 'secondary', id: 'purge-selected', onclick: () => {
      const ids = selected();
      if (ids.length && confirm('Purge ' + ids.length + ' dead letters? They can no longer be redriven.')) {
        startJob(jobBox, '/v1/dlq/purge', { ids }, after);
      }
    } }, 'Purge selected'));
  const table = rows.length ? el('table', { id: 'dead-letters' }, el('thead', {}, el('tr', {},
    ['', 'id', 'status', 'reason', 'dead at', 'namespace / topic', 'item', 'attempts', 'last error', 'payload']
      .map(h => el('th', {}, h)))), el('tbody', {}, rows))
    : el('p', { id: 'dead-letters', class: 'muted' }, 'No dead letters match.');
  const next = list.nextCursor ? el('p', {}, el('a', { href: dlqHash(Object.assign({}, f, { cursor: list.nextCursor })) },
    'Next page')) : null;
  replace(page, el('h1', {}, 'Dead letters'), form, actions, jobBox, table, next);
  return false;
}

/** #/dlq/{id}: one dead letter, its history, and a redrive of it. */
async function deadLetterPage(page, id) {
  const d = await api('/v1/dlq/' + enc(id));
  const fields = ['status', 'reason', 'detail', 'deadAt', 'itemId', 'namespace', 'topic', 'priority', 'groupKey',
    'traceId', 'attempts', 'lastError', 'job', 'handledAt', 'redrivenTo'];
  const dl = el('dl', { class: 'fields', id: 'dead-letter' });
  for (const k of fields) {
    if (d[k] === undefined) continue;
    const v = k === 'redrivenTo' && d[k] ? el('a', { href: '#/items/' + enc(d[k]) }, d[k]) : d[k] === null ? '–' : String(d[k]);
    dl.append(el('dt', {}, k), el('dd', { 'data-field': k }, v));
  }
  if (d.source) dl.append(el('dt', {}, 'source'), el('dd', {}, d.source.topic + ' ' + d.source.partition + '@' + d.source.offset));
  const redrive = d.status === 'DEAD' && d.redrivable && may('operate', d.namespace || '') ? el('button', { type: 'button', id: 'redrive', onclick: () =>
    startJob(jobBox, '/v1/dlq/redrive', { ids: [d.id] }, () => route()) }, 'Redrive') : null;
  const history = d.history && d.history.length ? el('table', {},
    el('thead', {}, el('tr', {}, ['attempt', 'leased at', 'ended at', 'outcome', 'error'].map(h => el('th', {}, h)))),
    el('tbody', {}, d.history.map(a => el('tr', {}, el('td', {}, a.attempt), el('td', {}, a.leasedAt),
      el('td', {}, a.endedAt), el('td', {}, a.outcome), el('td', {}, a.error || '')))))
    : el('p', { class: 'muted' }, 'No history.');
  const payload = d.payload !== undefined ? d.payload : d.payloadBase64 !== undefined ? d.payloadBase64 + '  (base64)'
    : d.rawValue !== undefined ? d.rawValue : d.rawValueBase64 !== undefined ? d.rawValueBase64 + '  (base64)' : '–';
  replace(page, el('h1', {}, el('a', { href: '#/dlq' }, 'Dead letters'), ' / ', el('span', { id: 'dead-letter-id' }, d.id)),
    dl, el('p', {}, redrive), jobBox, el('h2', {}, 'Payload'), el('pre', { id: 'payload' }, payload),
    el('h2', {}, 'Headers'), headersTable(d),
    el('h2', {}, 'History'), history);
  return false;
}

// ---- routing ----

const ROUTES = [
  [/^#\/topics\/([^/]+)\/([^/]+)$/, (p, m) => topicPage(p, decodeURIComponent(m[1]), decodeURIComponent(m[2])), 'topics'],
  [/^#\/topics$/, p => topicsPage(p), 'topics'],
  [/^#\/namespaces\/([^/]+)$/, (p, m) => namespacePage(p, decodeURIComponent(m[1])), 'topics'],
  [/^#\/items(?:\/([^/]+))?$/, (p, m) => itemPage(p, m[1] ? decodeURIComponent(m[1]) : ''), 'items'],
  [/^#\/cluster$/, p => clusterPage(p), 'cluster'],
  [/^#\/dlq\/([^/?]+)$/, (p, m) => deadLetterPage(p, decodeURIComponent(m[1])), 'dlq'],
  [/^#\/dlq(?:\?.*)?$/, p => dlqPage(p, location.hash), 'dlq'],
];

let timer = null;
let generation = 0;

/**
 * Draws the page of the current hash, then again every REFRESH_MS until the hash changes. A refusal
 * (403) replaces the page, so nothing of the page before stays on it; other errors (a 503) keep it.
 */
async function route() {
  clearTimeout(timer);
  const mine = ++generation;
  if (!me) return;
  const hash = location.hash || '#/topics';
  const [re, render, nav] = ROUTES.find(([r]) => r.test(hash)) || [/^/, p => topicsPage(p), 'topics'];
  document.querySelectorAll('nav a').forEach(a => a.classList.toggle('active', a.dataset.nav === nav));
  const page = document.getElementById('page');
  page.dataset.route = nav;
  if (!mayAnywhere('operate')) {
    replace(page, el('p', { id: 'refused', class: 'refused' }, 'Principal ' + me.principal + ' may not operate any'
      + ' namespace: the console\'s pages need operate (grants: ' + (me.grants.join(', ') || 'none') + ').'));
    return;
  }
  // A draw of an older generation that ends after this one began (a refresh under way when a click
  // re-routes) must not put its page over the current one: it sees the page through this guard.
  const view = {
    replaceChildren: (...children) => { if (mine === generation) page.replaceChildren(...children); },
    querySelectorAll: selector => page.querySelectorAll(selector),
  };
  const draw = async () => {
    let again = true;
    try {
      const result = await render(view, hash.match(re) || []);
      if (result === false) again = false;
      if (mine === generation) showError('');
    } catch (e) {
      if (mine !== generation) return;
      showError(e.message);
      if (e.status === 403) {
        replace(page, el('p', { id: 'refused', class: 'refused' }, e.message));
        again = false;
      }
    }
    if (mine === generation && again) timer = setTimeout(draw, REFRESH_MS);
  };
  await draw();
}

async function status() {
  const s = document.getElementById('status');
  try {
    const h = await api('/health');
    s.textContent = h.cluster + ' · ' + h.status;
    s.className = 'status up';
  } catch (e) {
    s.textContent = 'server ' + (e.status ? 'degraded' : 'unreachable');
    s.className = 'status down';
  }
  setTimeout(status, 5000);
}

async function settings() {
  try {
    const s = await api('/v1/console/rates');
    document.getElementById('interval').textContent = age(s.intervalMs);
    document.getElementById('history').textContent = age(s.historyMs);
  } catch (e) { /* the footer keeps its default text */ }
}

// ---- signing in ----

/**
 * Asks the server who the console is (GET /v1/whoami, with `token` if given, else none), then
 * draws the pages: with ordo.http.auth=none or a client certificate (mtls) nothing is asked; a 401
 * shows the sign-in form. A token is kept (sessionStorage) only once the server accepted it.
 */
async function identify(token) {
  try {
    me = await api('/v1/whoami', { token: token || null });
  } catch (e) {
    if (e.status === 401) {
      sessionStorage.removeItem(TOKEN_KEY);
      signInForm(token ? 'Signing in failed: ' + e.message : null);
    } else {
      showError('Cannot ask the server who you are: ' + e.message + ' (trying again)');
      setTimeout(() => identify(token), REFRESH_MS);
    }
    return;
  }
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  showError('');
  showPrincipal();
  document.querySelector('nav').hidden = false;
  settings();
  route();
}

/** Forgets the token and who signed in, stops the pages' redraws and asks for a token. */
function signedOut(message, error) {
  sessionStorage.removeItem(TOKEN_KEY);
  me = null;
  dlqJob = null;
  generation++;
  clearTimeout(timer);
  replace(jobBox);
  showPrincipal();
  signInForm(message, error);
}

/** The sign-in form, with `message` under it (an error unless `error` is false). */
function signInForm(message, error = true) {
  document.querySelector('nav').hidden = true;
  const form = el('form', { id: 'signin', class: 'signin', onsubmit: e => {
    e.preventDefault();
    const token = form.elements.token.value.trim();
    if (token) identify(token);
  } }, el('h1', {}, 'Sign in'),
  el('p', {}, 'This server asks for an API token (ordo.http.auth=token). The console keeps it in this tab only,'
    + ' until you sign out or close the tab.'),
  el('div', { class: 'inline' }, el('label', { for: 'token' }, 'API token '),
    el('input', { id: 'token', name: 'token', type: 'password', autocomplete: 'off', size: 48, required: true }), ' ',
    el('button', { type: 'submit', id: 'signin-submit' }, 'Sign in')),
  message ? el('p', { id: 'signin-message', class: error ? 'error' : 'muted' }, message) : null);
  showError('');
  replace(document.getElementById('page'), form);
  form.elements.token.focus();
}

/** The header's principal (not with ordo.http.auth=none) and, signed in with a token, "Sign out". */
function showPrincipal() {
  const who = document.getElementById('whoami');
  if (!me || me.auth === 'none') {
    replace(who);
    return;
  }
  replace(who, el('span', { id: 'principal', title: 'grants: ' + me.grants.join(', ') }, me.principal),
    sessionStorage.getItem(TOKEN_KEY) ? el('button', { type: 'button', class: 'secondary', id: 'signout',
      onclick: () => signedOut('Signed out.', false) }, 'Sign out') : null);
}

window.addEventListener('hashchange', route);
window.addEventListener('DOMContentLoaded', () => { status(); identify(sessionStorage.getItem(TOKEN_KEY)); });
