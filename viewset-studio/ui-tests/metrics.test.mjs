// The Runtime Panel's metrics math (metrics.js) under Node's test runner: Prometheus's histogram_quantile() over
// cumulative buckets, rates and quantiles from the differences between two snapshots, a restart, and the plots'
// series.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { between, plots, quantile } from '../src/ui/assets/metrics.js';

const close = (actual, expected) => assert.ok(Math.abs(actual - expected) < 1e-12, `${actual} ≠ ${expected}`);

test('a quantile interpolates linearly inside the bucket that holds the rank', () => {
  const bounds = [0.1, 0.2, 0.4];
  // 1 observation ≤ 0.1, 2 in (0.1, 0.2], 1 in (0.2, 0.4], none above.
  const cumulative = [1, 3, 4, 4];
  close(quantile(0.5, bounds, cumulative), 0.15); // rank 2: halfway through the second bucket
  close(quantile(0.99, bounds, cumulative), 0.392); // rank 3.96: 96 % through the third
  close(quantile(0.25, bounds, cumulative), 0.1); // rank 1: the end of the first bucket
});

test('the first bucket starts at 0; a rank in +Inf is the highest finite bound; no observation is null', () => {
  close(quantile(0.5, [0.1, 0.2], [4, 4, 4]), 0.05);
  assert.equal(quantile(0.5, [0.1], [1, 4]), 0.1);
  assert.equal(quantile(0.99, [0.1, 0.2], [0, 0, 0]), null);
  assert.equal(quantile(0.5, [], [3]), null);
});

const bounds = [0.001, 0.01, 0.1];
const snap = (at, ops, extra = {}) => ({
  at, bounds, in_flight: 0, outbox_backlog: null,
  pools: [{ role: 'primary', idle: 2, in_use: 1 }], events: { subscribers: 1, shared_views: 1, published: 0, delivered: 0 },
  operations: ops.map(([operation, statuses, buckets]) => ({ operation, statuses, buckets, count: buckets[3], sum: 0 })),
  ...extra,
});

test('between two snapshots: requests of every status, their rate, the buckets\' differences and quantiles', () => {
  const a = snap(100, [['posts_list', { '2xx': 3 }, [1, 3, 3, 3]], ['posts_create', { '2xx': 1 }, [0, 1, 1, 1]]]);
  const b = snap(104, [['posts_list', { '2xx': 7, '4xx': 1 }, [1, 7, 11, 11]], ['posts_create', { '2xx': 1 }, [0, 1, 1, 1]]]);
  const d = between(a, b);
  assert.equal(d.seconds, 4);
  const [list, create] = d.operations;
  assert.deepEqual([list.operation, list.requests, list.rate, list.buckets], ['posts_list', 5, 1.25, [0, 4, 8, 8]]);
  close(list.p50, 0.01); // rank 4: the end of the second bucket
  close(list.p99, 0.01 + 0.09 * (3.92 / 4));
  assert.deepEqual([create.requests, create.rate, create.p50, create.p99], [0, 0, null, null]);
});

test('a counter that went down (a restart) counts from zero; a new operation from nothing', () => {
  const a = snap(10, [['posts_list', { '2xx': 9 }, [9, 9, 9, 9]]]);
  const b = snap(12, [['posts_list', { '2xx': 2 }, [0, 2, 2, 2]], ['authors_list', { '2xx': 1 }, [1, 1, 1, 1]]]);
  const [list, authors] = between(a, b).operations;
  assert.deepEqual([list.requests, list.buckets, authors.requests, authors.rate], [2, [0, 2, 2, 2], 1, 0.5]);
});

test('plots: the active operations\' series per interval, gauges per snapshot', () => {
  const snaps = [
    snap(0, [['posts_list', { '2xx': 0 }, [0, 0, 0, 0]], ['idle_op', { '2xx': 0 }, [0, 0, 0, 0]]]),
    snap(2, [['posts_list', { '2xx': 4 }, [4, 4, 4, 4]], ['idle_op', { '2xx': 0 }, [0, 0, 0, 0]]]),
    snap(4, [['posts_list', { '2xx': 4 }, [4, 4, 4, 4]], ['idle_op', { '2xx': 0 }, [0, 0, 0, 0]]],
      { pools: [{ role: 'primary', idle: 3, in_use: 0 }] }),
  ];
  const p = plots(snaps);
  assert.deepEqual(p.active, ['posts_list']);
  assert.equal(p.window.operations[0].requests, 4);
  assert.deepEqual(p.rate, [{ name: 'posts_list', points: [{ t: 2, v: 2 }, { t: 4, v: 0 }] }]);
  assert.deepEqual(p.p50[0].points.map((pt) => pt.v), [0.0005, null]);
  assert.deepEqual(p.pools.map((s) => s.name), ['primary in use', 'primary idle']);
  assert.deepEqual(p.pools[1].points, [{ t: 0, v: 2 }, { t: 2, v: 2 }, { t: 4, v: 3 }]);
  assert.deepEqual(p.events[0].points.map((pt) => pt.v), [1, 1, 1]);
  assert.equal(plots(snaps.slice(0, 1)).window, null);
});

test('the outbox backlog is a series when the exporter has it, none when it does not', () => {
  const ops = [['posts_list', { '2xx': 1 }, [1, 1, 1, 1]]];
  assert.deepEqual(plots([snap(1, ops), snap(3, ops)]).outbox, []);
  const outbox = plots([snap(1, ops, { outbox_backlog: 4 }), snap(3, ops, { outbox_backlog: 0 })]).outbox;
  assert.deepEqual(outbox, [{ name: 'outbox backlog', points: [{ t: 1, v: 4 }, { t: 3, v: 0 }] }]);
});
