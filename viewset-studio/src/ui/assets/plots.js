// The Runtime Panel's metrics, drawn as SVG by the page (runtime.js polls GET /studio/metrics; metrics.js computes):
// requests per second and p50 / p99 latency per operation, the pools' connections, the events' subscribers, and a
// table of the window's figures. Every line carries its numbers as data attributes, as the other charts do.

import { h, s } from './dom.js';
import { niceTicks, scale } from './chart.js';
import { plots } from './metrics.js';

const SIZE = { width: 420, height: 170, left: 50, right: 10, top: 10, bottom: 22 };

/** Seconds as milliseconds, for a latency. */
const ms = (seconds) => (seconds === null ? '–' : `${(seconds * 1000).toFixed(seconds < 0.01 ? 2 : 1)} ms`);

/** A number with at most `digits` decimals. */
const round = (v, digits = 2) => String(Number(v.toFixed(digits)));

/**
 * A line chart of `series` ([{name, points: [{t, v}], dashed, color}]) over time (`span`: [first, last] snapshot,
 * shared by the charts), its y axis labelled by `format` (whole ticks with `integer`); each line carries
 * `data-series`, `data-times` and `data-values` (a gap for a null value), each point a circle.
 */
function lineChart(title, series, format, empty, { integer = false, span = null } = {}) {
  const all = series.flatMap((line) => line.points);
  const values = all.map((p) => p.v).filter((v) => v !== null);
  if (!values.length) return h('figure.plot', { 'data-chart': title }, h('figcaption', {}, title), h('p.muted', {}, empty));
  const { width, height, left, right, top, bottom } = SIZE;
  const times = all.map((p) => p.t);
  const [t0, t1] = span ?? [Math.min(...times), Math.max(...times)];
  let ticks = niceTicks(0, Math.max(...values), 4);
  if (integer && ticks.step < 1) {
    // Counts of connections or subscribers: whole ticks only.
    const top = Math.max(1, Math.ceil(Math.max(...values)));
    ticks = { min: 0, max: top, ticks: Array.from({ length: top + 1 }, (_, i) => i) };
  }
  const x = scale([t0, t1 === t0 ? t0 + 1 : t1], [left, width - right]);
  const y = scale([ticks.min, ticks.max], [height - bottom, top]);
  const path = (points) => {
    let pen = 'M';
    return points.map((p) => {
      if (p.v === null) { pen = 'M'; return ''; }
      const step = `${pen}${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`;
      pen = 'L';
      return step;
    }).join(' ').trim();
  };
  return h('figure.plot', { 'data-chart': title }, h('figcaption', {}, title),
    s('svg', { class: 'chart plot', viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': `${title}, last ${Math.round(t1 - t0)} s` },
      ticks.ticks.map((tick) => [
        s('line', { class: 'grid', x1: left, x2: width - right, y1: y(tick), y2: y(tick) }),
        s('text', { x: left - 4, y: y(tick) + 4, 'text-anchor': 'end' }, format(tick))]),
      s('line', { class: 'axis', x1: left, x2: width - right, y1: height - bottom, y2: height - bottom }),
      s('text', { x: left, y: height - 6 }, `${Math.round(t1 - t0)} s ago`),
      s('text', { x: width - right, y: height - 6, 'text-anchor': 'end' }, 'now'),
      series.map((line, i) => {
        const color = `s${(line.color ?? i) % 6}`;
        return [s('path', {
          class: `series ${color}${line.dashed ? ' dashed' : ''}`, d: path(line.points) || null,
          'data-series': line.name, 'data-times': line.points.map((p) => p.t).join(','),
          'data-values': line.points.map((p) => p.v ?? '').join(','),
        }), line.points.filter((p) => p.v !== null).map((p) => s('circle', {
          class: `point ${color}`, cx: x(p.t).toFixed(1), cy: y(p.v).toFixed(1), r: line.dashed ? 2 : 2.5,
        }))];
      })),
    h('ul.legend', {}, series.map((line, i) => h('li', {},
      h(`span.swatch.s${(line.color ?? i) % 6}${line.dashed ? '.dashed' : ''}`, {}), line.name))));
}

/** The window's figures per operation, each row carrying them unrounded (latencies in seconds). */
function figures(window, active) {
  const rows = window.operations.filter((o) => active.includes(o.operation));
  return h('table.figures', { 'data-from': window.from, 'data-to': window.to },
    h('thead', {}, h('tr', {}, ['operation', 'requests', 'per second', 'p50', 'p99'].map((c) => h('th', {}, c)))),
    h('tbody', {}, rows.map((o) => h('tr', {
      'data-operation': o.operation, 'data-requests': o.requests, 'data-rate': o.rate,
      'data-p50': o.p50 ?? '', 'data-p99': o.p99 ?? '',
    }, h('td.mono', {}, o.operation), h('td', {}, String(o.requests)), h('td', {}, round(o.rate)),
    h('td', {}, ms(o.p50)), h('td', {}, ms(o.p99))))));
}

/** The Metrics card's content for `snapshots` (oldest first, from GET /studio/metrics). */
export function metricsView(snapshots) {
  const p = plots(snapshots);
  const latest = snapshots[snapshots.length - 1];
  const latency = p.active.flatMap((name, i) => [
    { name: `${name} p50`, color: i, points: p.p50[i].points },
    { name: `${name} p99`, color: i, dashed: true, points: p.p99[i].points }]);
  const none = 'No request in the last polls.';
  const options = { span: [snapshots[0].at, latest.at] };
  const counts = { ...options, integer: true };
  const events = p.events.map((line, i) => ({ ...line, dashed: i > 0 }));
  return [
    h('p.muted', {}, `The registry Prometheus scrapes (/studio/metrics), polled every 2 s while this panel is shown: `,
      p.window ? `${Math.round(p.window.seconds)} s, ${snapshots.length} snapshots` : 'waiting for a second snapshot',
      `; ${latest.in_flight} request(s) in flight.`),
    p.window && p.active.length ? figures(p.window, p.active) : h('p.muted', { 'data-figures': 'none' }, none),
    h('div.plots', {},
      lineChart('Requests per second', p.rate, (v) => round(v), none, options),
      lineChart('Latency p50 / p99 (ms)', latency, (v) => round(v * 1000, 3), none, options),
      lineChart('Pool connections', p.pools, (v) => round(v, 0), 'No pool.', counts),
      lineChart('Event subscribers', events, (v) => round(v, 0), 'No snapshot yet.', counts),
      lineChart('Outbox backlog', p.outbox, (v) => round(v, 0), 'Not exported by this viewset-core.', counts)),
    h('p.muted', { 'data-outbox': latest.outbox_backlog === null ? 'not-exported' : String(latest.outbox_backlog) },
      latest.outbox_backlog === null
        ? 'Outbox backlog: not exported by this viewset-core\'s metrics, so not plotted.'
        : `Outbox backlog: ${latest.outbox_backlog} row(s) waiting when the relay last looked (0 without an outbox).`),
  ];
}
