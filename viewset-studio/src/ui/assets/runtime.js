// Runtime Panel: /studio/health polled every two seconds while the panel is shown (status, dialect, pool, latency
// over time as a small SVG chart), the application's metrics polled with it (/studio/metrics: request rate, p50 /
// p99 latency per operation, pools, subscribers, drawn by plots.js), the running webhooks (webhooks.js), the
// handshake's checksums and capabilities, and the live feed of lifecycle events the page reads from every ViewSet's
// stream as the "Act as" identity (feed.js), with each stream's state.

import { studio, studioJson } from './api.js';
import { h, mount, s, kv, show } from './dom.js';
import { who } from './feed.js';
import { metricsView } from './plots.js';
import { webhooksCard } from './webhooks.js';

const STATE_CLASS = { open: 'ok', connecting: 'warn', reconnecting: 'warn', denied: 'bad', closed: 'bad' };

/** The events of `feed`, newest first; a `reset` says that events may be missing there. */
function events(feed, which, empty) {
  if (!feed.events.length) return h('p.muted', {}, empty);
  return h('ul.feed', { 'data-feed': which, 'data-feed-identity': feed.token }, feed.events.map((e) => h('li', {
    'data-event': e.kind, 'data-viewset': e.viewset, 'data-id': e.id, 'data-pk': show(e.data.pk),
  }, h('span.mono', {}, e.at.toLocaleTimeString()), ' ', h('strong', {}, e.kind), e.kind === 'reset'
    ? [` ${e.viewset} `, h('span.muted', {}, `${e.data.reason}: events may be missing here (the feed goes on from now)`)]
    : [` ${e.data.model ?? e.viewset} ${show(e.data.pk)} `, e.data.reason ? h('span.badge', {}, e.data.reason) : null, ' ',
      h('span.muted', {}, e.data.record ? JSON.stringify(e.data.record).slice(0, 160) : '')])));
}

const samples = []; // {at, latency} of the last polls, kept across visits
const snapshots = []; // the last answers of /studio/metrics, kept across visits
let metricsUnavailable = null; // the answer that said this application has no metrics (asked once)
let timer = null;
let listener = null;
let ctxRef = null;

export function leave() {
  clearInterval(timer);
  timer = null;
  if (listener && ctxRef) ctxRef.feedListeners.delete(listener);
  listener = null;
}

function chart(points) {
  const width = 360;
  const height = 90;
  const max = Math.max(1, ...points.map((p) => p.latency ?? 0));
  const step = points.length > 1 ? width / (points.length - 1) : width;
  const d = points.map((p, i) => `${i ? 'L' : 'M'}${(i * step).toFixed(1)},${(height - ((p.latency ?? 0) / max) * (height - 10)).toFixed(1)}`).join(' ');
  return s('svg', { width, height: height + 14, viewBox: `0 0 ${width} ${height + 14}`, role: 'img', 'aria-label': `Database latency, last ${points.length} checks, up to ${max.toFixed(1)} ms` },
    s('line', { class: 'axis', x1: 0, y1: height, x2: width, y2: height }),
    points.length ? s('path', { class: 'line', d }) : null,
    s('text', { x: 2, y: 10 }, `${max.toFixed(1)} ms`),
    s('text', { x: 2, y: height + 12 }, `last ${points.length} checks (every 2 s)`));
}

export async function render(root, ctx) {
  ctxRef = ctx;
  const healthBox = h('section.card', { 'aria-label': 'Health' });
  const feedBox = h('section.card', { 'aria-label': 'Live events' });
  const metricsBox = h('section.card', { 'aria-label': 'Metrics' }, h('h3', {}, 'Metrics'), h('p.muted', {}, 'Loading…'));
  const handshake = await studioJson('/studio/handshake');
  const webhooks = webhooksCard(handshake.metadata);
  ctx.handshake = handshake;
  const p = handshake.project;
  mount(root, h('div.split', {}, healthBox, h('section.card', {},
    h('h3', {}, 'Project'), kv({ name: p.name, version: p.version, viewset: p.service_version, rust: p.rust_version, environment: p.environment, debug: p.debug_mode }),
    h('h3', {}, 'Capabilities'), h('p', { 'data-capabilities': handshake.capabilities.join(' ') }, handshake.capabilities.map((c) => [h('span.badge', {}, c), ' '])),
    h('h3', {}, 'Checksums'), h('dl.kv.mono', {}, Object.entries(handshake.checksums).map(([k, v]) => [h('dt', {}, k), h('dd', { title: v }, `${v.slice(0, 16)}…`)])))),
  metricsBox, webhooks.box, feedBox);

  const pollMetrics = async () => {
    if (metricsUnavailable) {
      mount(metricsBox, h('h3', {}, 'Metrics'), h('p.muted', { 'data-metrics': 'unavailable' }, metricsUnavailable));
      return;
    }
    const r = await studio('/studio/metrics');
    if (r.body?.code === 'metrics_unavailable') {
      metricsUnavailable = `${r.status}: ${r.body.detail}`;
      await pollMetrics();
      return;
    }
    if (!r.ok) { mount(metricsBox, h('h3', {}, 'Metrics'), h('p.alert', {}, `${r.status} ${r.body?.detail ?? ''}`)); return; }
    snapshots.push(r.body);
    snapshots.splice(0, Math.max(0, snapshots.length - 60));
    mount(metricsBox, h('h3', {}, 'Metrics'), metricsView(snapshots));
  };
  const poll = async () => { await pollHealth(); await pollMetrics(); await webhooks.refresh(); };
  const pollHealth = async () => {
    const r = await studio('/studio/health');
    if (!r.ok) { mount(healthBox, h('h3', {}, 'Health'), h('p.alert', {}, `${r.status}`)); return; }
    const health = r.body;
    const db = health.database;
    samples.push({ at: new Date(), latency: db.latency_ms });
    samples.splice(0, Math.max(0, samples.length - 60));
    mount(healthBox, h('h3', {}, 'Health ', h('span.badge', { class: health.status === 'healthy' ? 'badge ok' : 'badge bad', 'data-status': health.status }, health.status)),
      kv({ dialect: db.dialect, connected: db.connected, pool_size: db.pool_size, pool_available: db.pool_available,
        latency_ms: db.latency_ms === null ? null : Number(db.latency_ms.toFixed(2)), last_error: db.last_error, checked: health.timestamp }),
      chart(samples));
  };
  const drawFeed = () => {
    const feed = ctx.feed;
    if (!feed) { mount(feedBox, h('h3', {}, 'Live events'), h('p.muted', {}, 'Not started.')); return; }
    const streams = Object.values(feed.streams);
    mount(feedBox, h('h3', {}, 'Live events'),
      h('p', { 'data-feed-identity': feed.token }, 'As ', h('strong', {}, who(feed.token)),
        feed.token ? ' (the "Act as" token, sent as Authorization: Bearer)' : ' (no Authorization: "Act as" is empty)',
        `, since ${feed.since.toLocaleTimeString()}: the events this identity's streams deliver, as over REST.`),
      streams.length ? h('ul.streams', {}, streams.map((st) => h('li', {
        'data-stream': st.name, 'data-state': st.state, 'data-connections': String(st.connections),
      }, h('span', { class: `badge ${STATE_CLASS[st.state] ?? ''}` }, st.state), ` ${st.name} `, h('span.muted', {}, st.detail))))
        : h('p.muted', {}, 'No ViewSet has a stream.'),
      events(feed, 'current', feed.events.length ? null : 'No event as this identity yet.'),
      ctx.earlierFeeds.map((f) => [
        h('h4', {}, `Earlier, as ${who(f.token)} (${f.since.toLocaleTimeString()}–${f.until.toLocaleTimeString()})`),
        events(f, 'earlier')]));
  };
  listener = drawFeed;
  ctx.feedListeners.add(listener);
  drawFeed();
  await poll();
  clearInterval(timer);
  timer = setInterval(poll, 2000);
}
