// The Runtime Panel's metrics (plots.js draws them): snapshots of GET /studio/metrics, read from the registry the
// Prometheus exporter serves, turned into requests per second and latency quantiles from the differences between
// successive snapshots, as PromQL's rate() and histogram_quantile() turn a scrape's counters into them. Pure
// functions (no DOM), tested under Node (viewset-studio/ui-tests/metrics.test.mjs).

/**
 * The q-quantile of a histogram as Prometheus's histogram_quantile() computes it: `bounds` are the finite upper
 * bounds, `cumulative` the cumulative count of each bucket with the +Inf bucket last. Linear within the bucket that
 * holds the rank q·total, from 0 for the first bucket; the highest finite bound when the rank falls in +Inf; null
 * without an observation.
 */
export function quantile(q, bounds, cumulative) {
  const total = cumulative[cumulative.length - 1] ?? 0;
  if (!(total > 0) || bounds.length === 0) return null;
  const rank = q * total;
  let b = 0;
  while (b < bounds.length && cumulative[b] < rank) b += 1;
  if (b === bounds.length) return bounds[bounds.length - 1];
  const start = b === 0 ? 0 : bounds[b - 1];
  const below = b === 0 ? 0 : cumulative[b - 1];
  return start + (bounds[b] - start) * ((rank - below) / (cumulative[b] - below));
}

/** The requests a counter by status class holds, every class summed. */
function requests(statuses) {
  return Object.values(statuses ?? {}).reduce((sum, n) => sum + n, 0);
}

/**
 * What happened between snapshots `from` and `to`: {from, to, seconds, operations}, each operation with its
 * requests (every status), their rate per second, its latency buckets' differences and their p50 and p99 (seconds,
 * null without a request). An operation whose counters went down (the process restarted) counts from zero.
 */
export function between(from, to) {
  const seconds = to.at - from.at;
  const before = new Map(from.operations.map((o) => [o.operation, o]));
  const operations = to.operations.map((op) => {
    const prev = before.get(op.operation);
    let count = requests(op.statuses) - (prev ? requests(prev.statuses) : 0);
    let buckets = op.buckets.map((c, i) => c - (prev?.buckets[i] ?? 0));
    if (count < 0 || buckets.some((c) => c < 0)) {
      count = requests(op.statuses);
      buckets = op.buckets.slice();
    }
    return {
      operation: op.operation, requests: count, rate: seconds > 0 ? count / seconds : 0, buckets,
      p50: quantile(0.5, to.bounds, buckets), p99: quantile(0.99, to.bounds, buckets),
    };
  });
  return { from: from.at, to: to.at, seconds, operations };
}

/** A gauge of each snapshot as a series' points: {t, v}. */
const points = (snapshots, read) => snapshots.map((snap) => ({ t: snap.at, v: read(snap) }));

/**
 * The plots of `snapshots` (oldest first): `window`, the activity from the first to the last (null with fewer than
 * two); `active`, the operations with a request in it; per active operation the series `rate`, `p50` and `p99` (a
 * point per interval between two snapshots, at its end); the pools' connections in use and idle per role, and the
 * events' subscribers and shared views, and the outbox backlog where the exporter has it (a point per snapshot).
 */
export function plots(snapshots) {
  const intervals = [];
  for (let i = 1; i < snapshots.length; i += 1) intervals.push(between(snapshots[i - 1], snapshots[i]));
  const window = snapshots.length > 1 ? between(snapshots[0], snapshots[snapshots.length - 1]) : null;
  const active = window ? window.operations.filter((o) => o.requests > 0).map((o) => o.operation) : [];
  const perOperation = (key) => active.map((name) => ({
    name,
    points: intervals.map((iv) => ({ t: iv.to, v: iv.operations.find((o) => o.operation === name)?.[key] ?? null })),
  }));
  const roles = [...new Set(snapshots.flatMap((snap) => snap.pools.map((p) => p.role)))];
  const pool = (role, state) => ({
    name: `${role} ${state.replace('_', ' ')}`,
    points: points(snapshots, (snap) => snap.pools.find((p) => p.role === role)?.[state] ?? null),
  });
  return {
    window, active, rate: perOperation('rate'), p50: perOperation('p50'), p99: perOperation('p99'),
    pools: roles.flatMap((role) => [pool(role, 'in_use'), pool(role, 'idle')]),
    events: [
      { name: 'subscribers', points: points(snapshots, (snap) => snap.events.subscribers) },
      { name: 'shared views', points: points(snapshots, (snap) => snap.events.shared_views) },
    ],
    outbox: snapshots.some((snap) => snap.outbox_backlog !== null)
      ? [{ name: 'outbox backlog', points: points(snapshots, (snap) => snap.outbox_backlog) }]
      : [],
  };
}
