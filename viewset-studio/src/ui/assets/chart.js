// The geometry of the Model Browser's aggregate chart (aggregates.js draws it as SVG): what to ask the aggregate
// route, the series of its answer, round axis ticks, bars for a grouping and a line for time buckets, as plain
// numbers. Pure functions (no DOM), tested under Node (viewset-studio/ui-tests/chart.test.mjs).

/** The drawing area: the SVG's size and the margins left for the axes' labels. */
export const FRAME = { width: 640, height: 260, left: 52, right: 16, top: 14, bottom: 44 };

/**
 * What a ViewSet's published `aggregates` lets a chart plot: `count`, then each function's declared fields, as
 * {fn, field, alias, label}; `alias` is the answer's key (`sum_views`).
 */
export function measures(aggregates) {
  const list = [{ fn: 'count', field: null, alias: 'count', label: 'count' }];
  for (const [fn, fields] of Object.entries(aggregates?.functions ?? {})) {
    for (const field of fields) list.push({ fn, field, alias: `${fn}_${field}`, label: `${fn}(${field})` });
  }
  return list;
}

/** The group key a choice asks for: the field, or its time bucket (`created_at__month`). */
export function groupKey(field, bucket) {
  return bucket ? `${field}__${bucket}` : field;
}

/**
 * The aggregate request's [name, value] pairs: the group key and the measure, then the list's filters and search as
 * the Model Browser applies them (so the chart counts the rows the table shows); a time zone other than UTC as `tz`.
 */
export function aggregatePairs({ key, measure, filters = [], search = '', tz = '' }) {
  const pairs = [['group_by', key]];
  pairs.push(measure.fn === 'count' ? ['count', 'true'] : [measure.fn, measure.field]);
  if (tz && tz !== 'UTC') pairs.push(['tz', tz]);
  for (const f of filters) pairs.push([f.param, f.value]);
  if (search) pairs.push(['search', search]);
  return pairs;
}

/** A group key's value as a label: `null` for NULL, text as it is. */
function label(value) {
  return value === null || value === undefined ? 'null' : String(value);
}

/** A value as a number, or null (a decimal comes as its JSON text; a date or NULL is no number). */
function numeric(value) {
  if (value === null || value === undefined || typeof value === 'boolean' || value === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

/** The points of an aggregate answer's `groups`: one per group, labelled by `key`, valued by `alias`. */
export function series(groups, key, alias) {
  return groups.map((g) => ({ label: label(g[key]), value: numeric(g[alias]) }));
}

/**
 * The bucket after the one labelled `text` (`2026-03-29T14:00`, `2026-03-29`, a week's Monday, `2026-03`, `2026`), as
 * calendar arithmetic on the label; null for a label that is no date.
 */
export function nextBucket(text, bucket) {
  const [date, time] = text.split('T');
  const [y, m = 1, d = 1] = date.split('-').map(Number);
  const at = new Date(Date.UTC(y, m - 1, d, time ? Number(time.slice(0, 2)) : 0));
  if (bucket === 'hour') at.setUTCHours(at.getUTCHours() + 1);
  else if (bucket === 'day') at.setUTCDate(at.getUTCDate() + 1);
  else if (bucket === 'week') at.setUTCDate(at.getUTCDate() + 7);
  else if (bucket === 'month') at.setUTCMonth(at.getUTCMonth() + 1);
  else at.setUTCFullYear(at.getUTCFullYear() + 1);
  if (Number.isNaN(at.getTime())) return null;
  const iso = at.toISOString();
  return { hour: `${iso.slice(0, 13)}:00`, day: iso.slice(0, 10), week: iso.slice(0, 10), month: iso.slice(0, 7) }[bucket] ?? iso.slice(0, 4);
}

/**
 * Time buckets with the empty ones between the answered ones put back, so a line's x axis is time: a count or a sum
 * of no rows is 0, another function of no rows has no value (the line breaks there). Not filled: more than `most`
 * points in all (the line stays the answered buckets), and hours in a named zone (a clock change skips or repeats
 * an hour there, which no wall-clock sequence can tell). A `null` bucket (rows without a time) stays first.
 */
export function fillGaps(points, { bucket, fn, tz = 'UTC', most = 400 }) {
  if (!bucket || (bucket === 'hour' && tz && tz !== 'UTC')) return points;
  const empty = ['count', 'count_distinct', 'sum'].includes(fn) ? 0 : null;
  const filled = [];
  for (const p of points) {
    const last = filled[filled.length - 1];
    if (last && last.label !== 'null' && p.label !== 'null') {
      for (let next = nextBucket(last.label, bucket); next !== null && next < p.label; next = nextBucket(next, bucket)) {
        filled.push({ label: next, value: empty });
        if (filled.length > most) return points;
      }
    }
    filled.push(p);
  }
  return filled;
}

/** `value` without floating-point noise at the precision of `step`. */
function tidy(value, step) {
  const decimals = Math.max(0, -Math.floor(Math.log10(step)) + 1);
  return Number(value.toFixed(decimals));
}

/** Round ticks (steps of 1, 2, 2.5 or 5 times a power of ten) covering [min, max] and zero: {min, max, step, ticks}. */
export function niceTicks(min, max, count = 5) {
  let lo = Math.min(0, Number.isFinite(min) ? min : 0);
  let hi = Math.max(0, Number.isFinite(max) ? max : 0);
  if (lo === hi) hi = lo + 1;
  const raw = (hi - lo) / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((m) => m >= raw * (1 - 1e-9));
  lo = tidy(Math.floor(lo / step + 1e-9) * step, step);
  hi = tidy(Math.ceil(hi / step - 1e-9) * step, step);
  const ticks = [];
  for (let i = 0; lo + i * step <= hi + step / 2; i += 1) ticks.push(tidy(lo + i * step, step));
  return { min: lo, max: hi, step, ticks };
}

/** A linear map from the domain [d0, d1] onto the range [r0, r1]. */
export function scale([d0, d1], [r0, r1]) {
  const span = d1 - d0 || 1;
  return (v) => r0 + ((v - d0) / span) * (r1 - r0);
}

const round = (v) => Math.round(v * 100) / 100;

/** The value axis of `points` in `frame`: its ticks and the y of a value. */
function valueAxis(points, frame) {
  const values = points.map((p) => p.value).filter((v) => v !== null);
  const axis = niceTicks(Math.min(...values), Math.max(...values));
  return { axis, y: scale([axis.min, axis.max], [frame.height - frame.bottom, frame.top]) };
}

/**
 * Bars for a grouping: a band per point, each bar from zero to its value (a point without a number has no height),
 * as {label, value, x, y, width, height}; with the value axis {axis, y}.
 */
export function bars(points, frame = FRAME) {
  const { axis, y } = valueAxis(points, frame);
  const band = (frame.width - frame.left - frame.right) / Math.max(points.length, 1);
  const gap = Math.min(band * 0.25, 12);
  const items = points.map((p, i) => {
    const v = p.value ?? 0;
    const top = y(Math.max(v, 0));
    const bottom = y(Math.min(v, 0));
    return { ...p, x: round(frame.left + i * band + gap / 2), y: round(top), width: round(band - gap), height: round(bottom - top) };
  });
  return { axis, y, items, band };
}

/** An SVG path through `coords` ([x, y] or null for a gap): `M x y L x y …`, a new `M` after each gap. */
export function pathOf(coords) {
  const parts = [];
  let pen = 'M';
  for (const c of coords) {
    if (!c) { pen = 'M'; continue; }
    parts.push(`${pen}${round(c[0])} ${round(c[1])}`);
    pen = 'L';
  }
  return parts.join(' ');
}

/**
 * A line for time buckets, in the answer's order (the buckets ascending): a point per bucket spread evenly over the
 * width, as {label, value, cx, cy} (cy null without a number), and the path through them; with the value axis.
 */
export function line(points, frame = FRAME) {
  const { axis, y } = valueAxis(points, frame);
  const inner = frame.width - frame.left - frame.right;
  const step = points.length > 1 ? inner / (points.length - 1) : 0;
  const items = points.map((p, i) => ({
    ...p,
    cx: round(points.length > 1 ? frame.left + i * step : frame.left + inner / 2),
    cy: p.value === null ? null : round(y(p.value)),
  }));
  const path = pathOf(items.map((p) => (p.cy === null ? null : [p.cx, p.cy])));
  return { axis, y, items, path };
}

/** Which of `count` labels to write under the axis so that at most `room` show: every k-th, the last always. */
export function labelled(count, room = 12) {
  const every = Math.max(1, Math.ceil(count / room));
  return (i) => i % every === 0 || i === count - 1;
}
