//! Property test: for random data and random queries (filters with lookups, search, ordering, limit/offset), the
//! blog's list endpoint returns exactly what an in-memory reference implementation of the spec's rules returns,
//! on SQLite and PostgreSQL. Deterministic: a failure prints its seed and query.

use blog::entities::post;
use reqwest::StatusCode;
use viewset_tests::datagen::{Rng, insert_posts, sort};
use viewset_tests::harness::TestApp;
use viewset_tests::on_every_database;

const CASES: usize = 300;
const ORDERING_FIELDS: &[&str] = &["id", "title", "views", "created_at"];

/// A reference predicate over one row.
type Predicate = Box<dyn Fn(&post::Model) -> bool>;

/// One random query: its query string and the reference predicate/ordering.
struct Query {
    params: Vec<(String, String)>,
    filters: Vec<Predicate>,
    ordering: Option<Vec<(String, bool)>>,
    limit: usize,
    offset: usize,
}

fn word(rng: &mut Rng, value: bool) -> String {
    let words: &[&str] = if value { &["true", "yes", "1", "TRUE"] } else { &["false", "no", "0", "False"] };
    rng.pick(words).to_string()
}

fn random_query(rng: &mut Rng, authors: &[i32]) -> Query {
    let mut q = Query { params: Vec::new(), filters: Vec::new(), ordering: None, limit: 20, offset: 0 };
    let add = |q: &mut Query, k: &str, v: String, f: Predicate| {
        q.params.push((k.to_string(), v));
        q.filters.push(f);
    };
    if rng.chance(30) {
        let b = rng.chance(50);
        add(&mut q, "published", word(rng, b), Box::new(move |p| p.published == b));
    }
    if rng.chance(40) {
        let n = rng.below(100) as i32;
        let op = *rng.pick(&["gt", "gte", "lt", "lte"]);
        let f: Predicate = match op {
            "gt" => Box::new(move |p| p.views > n),
            "gte" => Box::new(move |p| p.views >= n),
            "lt" => Box::new(move |p| p.views < n),
            _ => Box::new(move |p| p.views <= n),
        };
        add(&mut q, &format!("views__{op}"), n.to_string(), f);
    }
    if rng.chance(15) {
        let set: Vec<i32> = (0..1 + rng.below(4)).map(|_| rng.below(100) as i32).collect();
        let raw = set.iter().map(ToString::to_string).collect::<Vec<_>>().join(",");
        add(&mut q, "views__in", raw, Box::new(move |p| set.contains(&p.views)));
    }
    if rng.chance(20) {
        let b = rng.chance(50);
        add(&mut q, "rating__isnull", word(rng, b), Box::new(move |p| p.rating.is_none() == b));
    }
    if rng.chance(20) {
        let x = (2 + rng.below(9)) as f64 / 2.0;
        add(&mut q, "rating__gte", format!("{x:.1}"), Box::new(move |p| p.rating.is_some_and(|r| r >= x)));
    }
    if rng.chance(20) {
        let a = *rng.pick(authors);
        add(&mut q, "author_id", a.to_string(), Box::new(move |p| p.author_id == a));
    }
    if rng.chance(25) {
        let len = 1 + rng.below(2) as usize;
        let needle = rng.text("abcAB", len);
        let lower = needle.to_lowercase();
        add(&mut q, "title__icontains", needle, Box::new(move |p| p.title.to_lowercase().contains(&lower)));
    }
    if rng.chance(15) {
        let len = 1 + rng.below(2) as usize;
        let needle = rng.text("abcAB", len);
        let n = needle.clone();
        add(&mut q, "title__contains", needle, Box::new(move |p| p.title.contains(&n)));
    }
    if rng.chance(25) {
        let len = 1 + rng.below(2) as usize;
        let needle = rng.text("abcxyz", len);
        let n = needle.clone();
        add(
            &mut q,
            "search",
            needle,
            Box::new(move |p| p.title.to_lowercase().contains(&n) || p.body.to_lowercase().contains(&n)),
        );
    }
    if rng.chance(60) {
        let count = 1 + rng.below(2);
        let terms: Vec<String> = (0..count)
            .map(|_| {
                format!(
                    "{}{}",
                    if rng.chance(50) { "-" } else { "" },
                    rng.pick(&["id", "title", "views", "created_at", "body", "bogus"])
                )
            })
            .collect();
        q.params.push(("ordering".into(), terms.join(",")));
        let valid: Vec<(String, bool)> = terms
            .iter()
            .map(|t| (t.trim_start_matches('-').to_string(), t.starts_with('-')))
            .filter(|(f, _)| ORDERING_FIELDS.contains(&f.as_str()))
            .collect();
        q.ordering = Some(valid);
    }
    q.limit = 1 + rng.below(25) as usize;
    q.offset = rng.below(40) as usize;
    q.params.push(("limit".into(), q.limit.to_string()));
    q.params.push(("offset".into(), q.offset.to_string()));
    q
}

on_every_database!(TestApp::query_app => list_matches_reference);

fn reference(rows: &[post::Model], q: &Query) -> (usize, Vec<i64>) {
    let mut hits: Vec<post::Model> = rows.iter().filter(|p| q.filters.iter().all(|f| f(p))).cloned().collect();
    let terms = q.ordering.clone().unwrap_or_else(|| vec![("id".into(), true)]);
    sort(&mut hits, &terms);
    let page = hits.iter().skip(q.offset).take(q.limit).map(|p| i64::from(p.id)).collect();
    (hits.len(), page)
}

async fn list_matches_reference(app: TestApp) {
    let seed = 0xC0FFEE;
    let mut rng = Rng::new(seed);
    let rows = insert_posts(&app.db, 120, &mut rng).await;
    let mut authors: Vec<i32> = rows.iter().map(|p| p.author_id).collect();
    authors.sort_unstable();
    authors.dedup();
    for case in 0..CASES {
        let q = random_query(&mut rng, &authors);
        let mut query = form_urlencoded::Serializer::new(String::new());
        for (k, v) in &q.params {
            query.append_pair(k, v);
        }
        let query = query.finish();
        let (status, body) = app.get(&format!("/api/posts/?{query}")).await;
        assert_eq!(status, StatusCode::OK, "case {case} (seed {seed:#x}) {query}: {body}");
        let got: Vec<i64> = body["results"].as_array().unwrap().iter().map(|r| r["id"].as_i64().unwrap()).collect();
        let (count, expected) = reference(&rows, &q);
        assert_eq!(body["count"].as_u64(), Some(count as u64), "case {case} (seed {seed:#x}) count of {query}");
        assert_eq!(got, expected, "case {case} (seed {seed:#x}) page of {query}");
    }
}
