// The Model Browser's aggregate chart geometry (chart.js) under Node's test runner: the request it makes, the series
// of an answer, round ticks, bars and a line's path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FRAME, aggregatePairs, bars, fillGaps, groupKey, labelled, line, measures, nextBucket, niceTicks, pathOf, scale, series } from '../src/ui/assets/chart.js';

const POSTS = {
  path: '/api/posts/aggregate',
  group_by: [{ field: 'author_id', buckets: [] }, { field: 'created_at', buckets: ['hour', 'day', 'week', 'month', 'year'] }],
  functions: { sum: ['views'], avg: ['rating', 'views'], min: [], max: ['views'], count_distinct: ['author_id'] },
  max_groups: 200,
};

test('measures are count, then each published function of each declared field', () => {
  assert.deepEqual(measures(POSTS).map((m) => m.alias),
    ['count', 'sum_views', 'avg_rating', 'avg_views', 'max_views', 'count_distinct_author_id']);
  assert.equal(measures(POSTS)[2].label, 'avg(rating)');
  assert.deepEqual(measures(null).map((m) => m.alias), ['count']);
});

test('the request: the key (or its bucket), the measure, then the list filters and search', () => {
  const count = measures(POSTS)[0];
  assert.equal(groupKey('created_at', 'month'), 'created_at__month');
  assert.equal(groupKey('author_id', ''), 'author_id');
  assert.deepEqual(aggregatePairs({ key: 'author_id', measure: count, filters: [{ param: 'published', value: 'true' }], search: 'engine' }),
    [['group_by', 'author_id'], ['count', 'true'], ['published', 'true'], ['search', 'engine']]);
  assert.deepEqual(aggregatePairs({ key: 'created_at__day', measure: measures(POSTS)[1] }),
    [['group_by', 'created_at__day'], ['sum', 'views']]);
});

test('a series labels NULL keys and reads decimals given as text; dates and NULL are no numbers', () => {
  const groups = [{ k: 1, v: 2 }, { k: null, v: '2.50' }, { k: true, v: null }, { k: 'x', v: '2026-03-01T00:00:00Z' }];
  assert.deepEqual(series(groups, 'k', 'v'), [
    { label: '1', value: 2 }, { label: 'null', value: 2.5 }, { label: 'true', value: null }, { label: 'x', value: null },
  ]);
});

test('ticks are round, cover the values and zero, without float noise', () => {
  assert.deepEqual(niceTicks(0, 307), { min: 0, max: 400, step: 100, ticks: [0, 100, 200, 300, 400] });
  assert.deepEqual(niceTicks(1, 2).ticks, [0, 0.5, 1, 1.5, 2]);
  assert.deepEqual(niceTicks(0.1, 0.3).ticks, [0, 0.1, 0.2, 0.3]);
  assert.deepEqual(niceTicks(-40, 10).ticks, [-40, -30, -20, -10, 0, 10]);
  assert.deepEqual(niceTicks(0, 0).ticks, [0, 0.2, 0.4, 0.6, 0.8, 1]);
  assert.deepEqual(niceTicks(Infinity, -Infinity).ticks, [0, 0.2, 0.4, 0.6, 0.8, 1], 'no values');
  assert.deepEqual(niceTicks(5, 5, 4).ticks, [0, 2, 4, 6]);
});

test('a scale maps its domain linearly, also inverted', () => {
  const y = scale([0, 10], [200, 0]);
  assert.equal(y(0), 200);
  assert.equal(y(5), 100);
  assert.equal(y(10), 0);
  assert.equal(scale([3, 3], [0, 10])(3), 0, 'an empty domain does not divide by zero');
});

test('bars: a band each, from zero to the value, heights proportional', () => {
  const { axis, items } = bars([{ label: 'a', value: 1 }, { label: 'b', value: 2 }, { label: 'c', value: null }]);
  assert.deepEqual(axis.ticks, [0, 0.5, 1, 1.5, 2]);
  const floor = FRAME.height - FRAME.bottom;
  assert.equal(items.length, 3);
  assert.equal(items[0].y + items[0].height, floor);
  assert.equal(items[1].y, FRAME.top, 'the largest reaches the top tick');
  assert.equal(items[1].height, floor - FRAME.top);
  assert.equal(items[1].height, items[0].height * 2);
  assert.equal(items[2].height, 0, 'no number, no height');
  assert.ok(items[0].x >= FRAME.left && items[2].x + items[2].width <= FRAME.width - FRAME.right);
  assert.ok(items[1].x > items[0].x + items[0].width, 'a gap between bars');
});

test('a negative bar hangs below zero', () => {
  const { items, y } = bars([{ label: 'a', value: -10 }, { label: 'b', value: 10 }]);
  assert.equal(items[0].y, Math.round(y(0) * 100) / 100);
  assert.ok(items[0].height > 0);
});

test('a line: points spread over the width, the path skips a gap', () => {
  const { items, path } = line([{ label: 'd1', value: 120 }, { label: 'd2', value: 300 }, { label: 'd3', value: null }, { label: 'd4', value: 7 }]);
  assert.equal(items[0].cx, FRAME.left);
  assert.equal(items[3].cx, FRAME.width - FRAME.right);
  assert.equal(items[2].cy, null);
  assert.ok(items[1].cy < items[0].cy && items[0].cy < items[3].cy, 'higher values higher up');
  assert.equal(path.split('M').length - 1, 2, `a new move after the gap: ${path}`);
  assert.equal(line([{ label: 'only', value: 3 }]).items[0].cx, FRAME.left + (FRAME.width - FRAME.left - FRAME.right) / 2);
});

test('pathOf writes moves and lines, rounded', () => {
  assert.equal(pathOf([[0, 0], [1.234, 5.678], null, [3, 4]]), 'M0 0 L1.23 5.68 M3 4');
  assert.equal(pathOf([]), '');
});

test('axis labels thin out to the room', () => {
  const shown = (n, room) => [...Array(n).keys()].filter(labelled(n, room));
  assert.deepEqual(shown(3, 12), [0, 1, 2]);
  assert.deepEqual(shown(10, 4), [0, 3, 6, 9]);
  assert.deepEqual(shown(11, 4), [0, 3, 6, 9, 10]);
});

test('a time zone other than UTC is asked for; UTC is the default and not sent', () => {
  const count = measures(POSTS)[0];
  assert.deepEqual(aggregatePairs({ key: 'created_at__day', measure: count, tz: 'Europe/Berlin', filters: [{ param: 'published', value: 'true' }] }),
    [['group_by', 'created_at__day'], ['count', 'true'], ['tz', 'Europe/Berlin'], ['published', 'true']]);
  assert.deepEqual(aggregatePairs({ key: 'created_at__day', measure: count, tz: 'UTC' }),
    [['group_by', 'created_at__day'], ['count', 'true']]);
});

test('the next bucket is calendar arithmetic on the label', () => {
  assert.equal(nextBucket('2026-03-29T23:00', 'hour'), '2026-03-30T00:00');
  assert.equal(nextBucket('2026-02-28', 'day'), '2026-03-01');
  assert.equal(nextBucket('2026-12-28', 'week'), '2027-01-04');
  assert.equal(nextBucket('2026-12', 'month'), '2027-01');
  assert.equal(nextBucket('2026', 'year'), '2027');
  assert.equal(nextBucket('not a date', 'day'), null);
});

test('empty buckets are drawn: 0 for a count or a sum, a gap for an average', () => {
  const points = [{ label: 'null', value: 1 }, { label: '2026-03-28', value: 2 }, { label: '2026-03-31', value: 5 }];
  assert.deepEqual(fillGaps(points, { bucket: 'day', fn: 'count' }).map((p) => [p.label, p.value]),
    [['null', 1], ['2026-03-28', 2], ['2026-03-29', 0], ['2026-03-30', 0], ['2026-03-31', 5]]);
  assert.deepEqual(fillGaps(points, { bucket: 'day', fn: 'avg' }).map((p) => p.value), [1, 2, null, null, 5]);
  assert.equal(fillGaps(points, { bucket: '', fn: 'count' }), points, 'a grouping is not filled');
  const hours = [{ label: '2026-03-29T00:00', value: 1 }, { label: '2026-03-29T03:00', value: 1 }];
  assert.equal(fillGaps(hours, { bucket: 'hour', fn: 'count', tz: 'Europe/Berlin' }), hours, 'a clock change skips an hour there');
  assert.equal(fillGaps(hours, { bucket: 'hour', fn: 'count' }).length, 4);
  const years = [{ label: '2026-01-01T00:00', value: 1 }, { label: '2027-01-01T00:00', value: 1 }];
  assert.equal(fillGaps(years, { bucket: 'hour', fn: 'count', most: 400 }), years, 'too many to draw: as answered');
});
