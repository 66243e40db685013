//! The Model Browser's aggregate chart in headless Chromium, on SQLite, PostgreSQL and MariaDB: the posts grouped by
//! author as bars (count, then sum of views, then with the filter builder's `published = true` applied), created
//! per day as a line, each mark checked against the seeded rows; the authors' chart as anonymous (refused), as bob
//! (a staff-only key: 422) and as alice (staff: drawn). Days without rows are drawn (a sum of 0); a time zone moves
//! the days, and an unknown one is the route's 422. Screenshots in `target/studio-ui-screenshots/`.

use fantoccini::Client;
use serde_json::json;
use viewset_tests::harness::TestApp;
use viewset_tests::on_every_database;
use viewset_tests::studio_fixtures::blog_with_ui;

use crate::support::browser::{self, act_as, click, find, js, screenshot, text};

on_every_database!(blog_with_ui => chromium_draws_aggregate_charts);

/// The chart's marks as `[key, value, size]`: a bar's height, or a point's height above the axis.
const MARKS: &str = "return [...document.querySelectorAll('svg.chart rect.bar, svg.chart circle.point')].map((m) => [
    m.dataset.key, Number(m.dataset.value),
    m.tagName === 'rect' ? Number(m.getAttribute('height')) : 216 - Number(m.getAttribute('cy'))]);";

/// Waits until the chart answered `url_part` and has `count` marks; returns them.
async fn marks(client: &Client, url_part: &str, count: usize) -> Vec<(String, f64, f64)> {
    text(client, "[data-aggregate-url]", url_part).await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    loop {
        let found = js(client, MARKS).await;
        let found: Vec<(String, f64, f64)> = serde_json::from_value(found).expect("marks");
        if found.len() == count {
            return found;
        }
        if std::time::Instant::now() > deadline {
            browser::fail(client, &format!("{count} marks for {url_part}; found {found:?}")).await;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// Scrolls the chart into the window, then writes the screenshot `name`.
async fn shot(client: &Client, name: &str) {
    js(client, "document.querySelector('section[aria-label=Chart]').scrollIntoView({block: 'end'});").await;
    screenshot(client, name).await;
}

/// Picks the chart's group key, bucket and value (by their option values), then draws.
async fn draw(client: &Client, key: &str, bucket: &str, value: &str) {
    let chart = "section[aria-label=Chart]";
    find(client, &format!("{chart} select[aria-label='Group by']")).await.select_by_value(key).await.unwrap();
    find(client, &format!("{chart} select[aria-label='Time bucket']")).await.select_by_value(bucket).await.unwrap();
    find(client, &format!("{chart} select[aria-label=Value]")).await.select_by_value(value).await.unwrap();
    click(client, &format!("{chart} button"), "Draw chart").await;
}

async fn chromium_draws_aggregate_charts(app: TestApp) {
    let Some((driver_path, chromium)) = browser::require() else { return };
    let (ada, alan) = super::aggregate::fixed_times(&app).await;
    let (ada, alan) = (ada.to_string(), alan.to_string());
    let driver = browser::Driver::start(&driver_path).await;
    let client = driver.session(&chromium).await;
    browser::sign_in(&client, &format!("{}/studio/ui", app.base)).await;
    let chart = "section[aria-label=Chart]";
    text(&client, chart, "PostViewSet chart").await;
    // The choices are the published ones: every declared key, buckets for the time field only, the measures.
    let options = js(&client, "return [...document.querySelectorAll('section[aria-label=Chart] select')].map((s) => [...s.options].map((o) => o.value));").await;
    assert_eq!(options[0], json!(["author_id", "published", "created_at"]));
    assert_eq!(options[1], json!([""]), "author_id has no time buckets");
    let measures = options[2].as_array().unwrap();
    assert_eq!(measures[..3], [json!("count"), json!("sum_views"), json!("avg_rating")], "{measures:?}");

    // Bars: posts per author, then their views.
    draw(&client, "author_id", "", "count").await;
    let bars = marks(&client, "group_by=author_id&count=true", 2).await;
    assert_eq!((bars[0].0.as_str(), bars[0].1, bars[1].0.as_str(), bars[1].1), (ada.as_str(), 1.0, alan.as_str(), 2.0));
    assert!((bars[1].2 - 2.0 * bars[0].2).abs() < 0.5, "heights proportional: {bars:?}");
    draw(&client, "author_id", "", "sum_views").await;
    let bars = marks(&client, "sum=views", 2).await;
    assert_eq!((bars[0].1, bars[1].1), (120.0, 307.0), "{bars:?}");
    assert!(bars[1].2 > bars[0].2 * 2.0, "{bars:?}");

    // The filter builder's filter, applied, narrows the chart as it narrows the table.
    let records = "section[aria-label=Records]";
    browser::filter_records(&client, records, "published", "true").await;
    text(&client, &format!("{records} [data-count]"), "1–2 of 2").await;
    let bars = marks(&client, "sum=views&published=true", 2).await;
    assert_eq!((bars[0].1, bars[1].1), (120.0, 300.0), "Alan's draft is not counted: {bars:?}");
    shot(&client, "7-model-browser-chart-bars").await;

    // A line: views per day of creation, without the filter.
    click(&client, &format!("{records} button[aria-label='Remove filter']"), "").await;
    click(&client, &format!("{records} button"), "Apply").await;
    text(&client, &format!("{records} [data-count]"), "1–3 of 3").await;
    find(&client, &format!("{chart} select[aria-label='Group by']")).await.select_by_value("created_at").await.unwrap();
    draw(&client, "created_at", "day", "sum_views").await;
    // The days without posts are drawn as a sum of 0: the x axis is time.
    let points = marks(&client, "group_by=created_at__day&sum=views", 6).await;
    let keys: Vec<(&str, f64)> = points.iter().map(|p| (p.0.as_str(), p.1)).collect();
    let empty = [("2026-03-30", 0.0), ("2026-03-31", 0.0), ("2026-04-01", 0.0)];
    assert_eq!(keys[..2], [("2026-03-28", 120.0), ("2026-03-29", 300.0)]);
    assert_eq!((&keys[2..5], keys[5]), (&empty[..], ("2026-04-02", 7.0)));
    assert!(points[1].2 > points[0].2 && points[0].2 > points[5].2, "higher values higher up: {points:?}");
    let path = js(&client, "return document.querySelector('svg.chart.timed path.series').getAttribute('d');").await;
    let path = path.as_str().unwrap();
    assert_eq!((path.matches('M').count(), path.matches('L').count()), (1, 5), "{path}");
    text(&client, &format!("{chart} [data-groups]"), "sum(views) by created_at__day, 3 groups").await;
    shot(&client, "7b-model-browser-chart-line").await;

    // In New York the first two posts were written on the evening of 28 March.
    let zone = find(&client, &format!("{chart} input[aria-label='Time zone']")).await;
    zone.clear().await.unwrap();
    zone.send_keys("America/New_York").await.unwrap();
    draw(&client, "created_at", "day", "count").await;
    let points = marks(&client, "group_by=created_at__day&count=true&tz=America", 6).await;
    let keys: Vec<(&str, f64)> = points.iter().map(|p| (p.0.as_str(), p.1)).collect();
    assert_eq!((keys[0], keys[1], keys[5]), (("2026-03-28", 2.0), ("2026-03-29", 0.0), ("2026-04-02", 1.0)));
    text(&client, &format!("{chart} [data-groups]"), "count by created_at__day in America/New_York, 2 groups").await;
    // A name the time zone database does not know: the route's 422, shown.
    zone.clear().await.unwrap();
    zone.send_keys("Mars/Olympus_Mons").await.unwrap();
    draw(&client, "created_at", "day", "count").await;
    let shown = text(&client, &format!("{chart} .alert"), "422").await;
    assert!(shown.contains("time zone"), "{shown}");
    zone.clear().await.unwrap();
    zone.send_keys("UTC").await.unwrap();

    // Authors: a staff-only group key, by identity.
    click(&client, "ul.list button", "Author").await;
    text(&client, chart, "AuthorViewSet chart").await;
    for (token, expected) in [("", "401"), ("forged-token", "401"), ("bob-token", "422")] {
        act_as(&client, token).await;
        draw(&client, "email", "", "count").await;
        let shown = text(&client, &format!("{chart} .alert"), expected).await;
        assert!(expected != "422" || shown.contains("email"), "{shown}");
    }
    act_as(&client, "alice-token").await;
    draw(&client, "email", "", "count").await;
    let bars = marks(&client, "group_by=email&count=true", 2).await;
    let keys: Vec<&str> = bars.iter().map(|b| b.0.as_str()).collect();
    assert_eq!(keys, ["ada@example.com", "alan@example.com"]);
    shot(&client, "7c-model-browser-chart-staff").await;

    // No console errors but the deliberate refusals.
    browser::assert_no_console_errors(&client, &["401", "422"]).await;
    client.close().await.unwrap();
}
