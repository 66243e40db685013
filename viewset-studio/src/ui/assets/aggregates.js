// The Model Browser's chart of a ViewSet's aggregate (shown when it declares `aggregates(...)`): pick a group key,
// for a date or time field a time bucket, and what to compute (count, or a declared sum / avg / min / max /
// count_distinct), then draw. The choices are what the server publishes for the ViewSet (`aggregates` in
// /ai/context/full: its keys with their buckets, each function's fields); the request is `GET <prefix>/aggregate` as
// the chosen identity, with the Model Browser's applied filters and search, so the chart counts the rows the table
// shows that identity. A grouping is drawn as bars, time buckets as a line over time (the buckets ascending, in the
// time zone chosen, UTC by default; a bucket without rows is drawn as 0 for a count or a sum, as a gap otherwise:
// chart.js `fillGaps`), as SVG written here (chart.js has the geometry); the groups the server answered are listed
// below it as a table too.

import { app, query } from './api.js';
import { h, s, mount, table, errorView, labelled } from './dom.js';
import { FRAME, aggregatePairs, bars, fillGaps, groupKey, labelled as showLabel, line, measures, series } from './chart.js';

/** The value axis: its ticks, their labels and grid lines. */
function axisOf(axis, y) {
  return axis.ticks.map((t) => [
    s('line', { class: 'grid', x1: FRAME.left, x2: FRAME.width - FRAME.right, y1: y(t), y2: y(t) }),
    s('text', { x: FRAME.left - 6, y: y(t) + 4, 'text-anchor': 'end' }, String(t)),
  ]);
}

/** A label under the axis at `x`, cut to 16 characters; `anchor` keeps a line's first and last inside the frame. */
function xLabel(x, text, anchor = 'middle') {
  const shown = text.length > 16 ? `${text.slice(0, 15)}…` : text;
  return s('text', { x, y: FRAME.height - FRAME.bottom + 16, 'text-anchor': anchor }, shown);
}

/** Where a line's `i`-th label is anchored: its first starts at its point, its last ends there. */
function edge(i, count) {
  if (count > 1 && i === 0) return 'start';
  return count > 1 && i === count - 1 ? 'end' : 'middle';
}

/** The SVG of `points`: bars, or a line when `timed`. */
export function drawChart(points, { timed, title }) {
  const { width, height } = FRAME;
  const base = s('line', { class: 'axis', x1: FRAME.left, x2: width - FRAME.right, y1: height - FRAME.bottom, y2: height - FRAME.bottom });
  const shows = showLabel(points.length);
  let marks;
  let geometry;
  if (timed) {
    geometry = line(points);
    marks = [
      geometry.path ? s('path', { class: 'series', d: geometry.path }) : null,
      geometry.items.map((p, i) => [
        p.cy === null ? null : s('circle', { class: 'point', cx: p.cx, cy: p.cy, r: 4, 'data-key': p.label, 'data-value': String(p.value) },
          s('title', {}, `${p.label}: ${p.value}`)),
        shows(i) ? xLabel(p.cx, p.label, edge(i, points.length)) : null,
      ]),
    ];
  } else {
    geometry = bars(points);
    marks = geometry.items.map((b, i) => [
      s('rect', { class: 'bar', x: b.x, y: b.y, width: b.width, height: b.height, 'data-key': b.label, 'data-value': String(b.value) },
        s('title', {}, `${b.label}: ${b.value ?? 'null'}`)),
      shows(i) ? xLabel(b.x + b.width / 2, b.label) : null,
    ]);
  }
  return s('svg', { class: `chart ${timed ? 'timed' : 'grouped'}`, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': title },
    axisOf(geometry.axis, geometry.y), base, marks);
}

/**
 * The chart card of the Model Browser's `viewset`; `applied()` returns the list's applied {filters, search}.
 * Returns {element, refresh}: `refresh` redraws the last chart (after the list's filters change).
 */
export function chartPanel(viewset, applied) {
  const declared = viewset.aggregates;
  const box = h('section.card', { 'aria-label': 'Chart' });
  const output = h('div', { 'aria-live': 'polite' });
  const keySelect = h('select', { 'aria-label': 'Group by' }, declared.group_by.map((k) => h('option', { value: k.field }, k.field)));
  const bucketSelect = h('select', { 'aria-label': 'Time bucket' });
  const fillBuckets = () => {
    const key = declared.group_by.find((k) => k.field === keySelect.value);
    const buckets = key?.buckets ?? [];
    mount(bucketSelect, h('option', { value: '' }, buckets.length ? 'none (each value)' : 'none'),
      buckets.map((b) => h('option', { value: b }, b)));
    bucketSelect.disabled = !buckets.length;
    zoneInput.disabled = !bucketSelect.value;
  };
  // The zone time buckets are cut in: any IANA name (the server checks it), offered from the browser's list.
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  const zoneList = h('datalist', { id: `zones-${viewset.name}` }, ['UTC', ...zones].map((z) => h('option', { value: z })));
  const zoneInput = h('input', { type: 'text', 'aria-label': 'Time zone', list: zoneList.id, value: 'UTC', size: 16 });
  keySelect.addEventListener('change', fillBuckets);
  bucketSelect.addEventListener('change', () => { zoneInput.disabled = !bucketSelect.value; });
  fillBuckets();
  const choices = measures(declared);
  const measureSelect = h('select', { 'aria-label': 'Value' }, choices.map((m) => h('option', { value: m.alias }, m.label)));
  let drawn = false;

  const draw = async () => {
    drawn = true;
    const measure = choices.find((m) => m.alias === measureSelect.value) ?? choices[0];
    const bucket = bucketSelect.value;
    const key = groupKey(keySelect.value, bucket);
    const tz = bucket ? zoneInput.value.trim() || 'UTC' : 'UTC';
    const { filters, search } = applied();
    const url = `${declared.path}${query(aggregatePairs({ key, measure, filters, search, tz }))}`;
    mount(output, h('p.muted', {}, 'Drawing…'));
    const r = await app(url);
    const request = h('p.muted.mono', { 'data-aggregate-url': url }, `GET ${url}`);
    if (!r.ok) { mount(output, request, errorView(r)); return; }
    const groups = r.body.groups ?? [];
    const points = fillGaps(series(groups, key, measure.alias), { bucket, fn: measure.fn, tz });
    const timed = Boolean(bucket);
    const title = `${measure.label} by ${key}${tz === 'UTC' ? '' : ` in ${tz}`}, ${groups.length} groups`;
    const numbers = points.some((p) => p.value !== null);
    mount(output, request,
      h('p', { 'data-groups': String(groups.length) }, title, r.body.truncated ? h('span.muted', {}, ` (the first ${groups.length}; more groups exist)`) : null),
      groups.length && numbers ? drawChart(points, { timed, title }) : h('p.note', {}, groups.length ? `${measure.label} has no numbers to draw.` : 'No rows: nothing to draw.'),
      table([{ key, label: key }, { key: measure.alias, label: measure.label, numeric: true }], groups));
  };

  mount(box, h('h3', {}, `${viewset.name} chart`),
    h('div.row', {}, labelled('Group by', keySelect), labelled('Bucket', bucketSelect), labelled('Time zone', zoneInput), zoneList,
      labelled('Value', measureSelect),
      h('button', { type: 'button', on: { click: draw } }, 'Draw chart'),
      h('span.muted', {}, 'over the rows the filters above select')),
    output);
  return { element: box, refresh: () => (drawn ? draw() : undefined) };
}
