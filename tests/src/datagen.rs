//! Deterministic random blog data and an in-memory reference of the list semantics (filters, search, ordering,
//! pagination), to compare the database's answers with.

use std::cmp::Ordering;

use blog::entities::{author, post};
use chrono::{DateTime, TimeZone, Utc};
use sea_orm::{ActiveModelTrait, DatabaseConnection, EntityTrait, QueryOrder, Set};

/// A small xorshift generator: reproducible from its seed, no dependency.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a non-zero seed.
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }
    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
    /// True with probability `percent`%.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    /// One of the items.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
    /// A string of `len` characters from `alphabet`.
    pub fn text(&mut self, alphabet: &str, len: usize) -> String {
        let chars: Vec<char> = alphabet.chars().collect();
        (0..len).map(|_| *self.pick(&chars)).collect()
    }
}

/// Inserts two authors (if missing) and `n` random posts; returns every post, by id.
pub async fn insert_posts(db: &DatabaseConnection, n: usize, rng: &mut Rng) -> Vec<post::Model> {
    if author::Entity::find().one(db).await.expect("authors").is_none() {
        for (name, email) in [("A", "a@example.com"), ("B", "b@example.com")] {
            author::ActiveModel { name: Set(name.into()), email: Set(Some(email.into())), ..Default::default() }
                .insert(db)
                .await
                .expect("author");
        }
    }
    let authors: Vec<i32> = author::Entity::find().all(db).await.expect("authors").iter().map(|a| a.id).collect();
    let rows: Vec<post::ActiveModel> = (0..n).map(|_| random_post(rng, &authors)).collect();
    for chunk in rows.chunks(500) {
        post::Entity::insert_many(chunk.to_vec()).exec(db).await.expect("insert posts");
    }
    post::Entity::find().order_by_asc(post::Column::Id).all(db).await.expect("posts")
}

fn random_post(rng: &mut Rng, authors: &[i32]) -> post::ActiveModel {
    let title_len = 3 + rng.below(4) as usize;
    let body_len = 5 + rng.below(10) as usize;
    let rating = if rng.chance(30) { None } else { Some((2 + rng.below(9)) as f64 / 2.0) };
    let seconds = 1_700_000_000 + rng.below(50_000_000) as i64;
    post::ActiveModel {
        title: Set(rng.text("abcAB", title_len)),
        body: Set(rng.text("abcd xyz", body_len)),
        published: Set(rng.chance(50)),
        views: Set(rng.below(100) as i32),
        rating: Set(rating),
        author_id: Set(*rng.pick(authors)),
        created_at: Set(Utc.timestamp_opt(seconds, 0).single().expect("valid time")),
        ..Default::default()
    }
}

/// A sortable value of one column of a post.
#[derive(Debug, Clone, PartialEq, PartialOrd)]
pub enum Key {
    /// NULL: first ascending, last descending.
    Null,
    /// A number.
    Num(f64),
    /// Text, compared bytewise (the test databases use byte order).
    Text(String),
    /// A time.
    Time(DateTime<Utc>),
}

/// The value of `field` on `post`.
pub fn key(post: &post::Model, field: &str) -> Key {
    match field {
        "id" => Key::Num(f64::from(post.id)),
        "views" => Key::Num(f64::from(post.views)),
        "author_id" => Key::Num(f64::from(post.author_id)),
        "rating" => post.rating.map_or(Key::Null, Key::Num),
        "title" => Key::Text(post.title.clone()),
        "body" => Key::Text(post.body.clone()),
        "created_at" => Key::Time(post.created_at),
        other => panic!("no field {other}"),
    }
}

/// Sorts by `(field, descending)` terms then id ascending, with the framework's NULL placement.
pub fn sort(posts: &mut [post::Model], terms: &[(String, bool)]) {
    posts.sort_by(|a, b| {
        for (field, desc) in terms {
            let ord = key(a, field).partial_cmp(&key(b, field)).unwrap_or(Ordering::Equal);
            let ord = if *desc { ord.reverse() } else { ord };
            if ord != Ordering::Equal {
                return ord;
            }
        }
        a.id.cmp(&b.id)
    });
}
