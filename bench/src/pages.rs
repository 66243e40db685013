//! `viewset-bench pages`: what a page 10,000 rows deep costs against page 1, for limit/offset and for cursor
//! pagination, on the generated ViewSets (issue 3). Sequential requests on loopback against an in-process server
//! on a fresh PostgreSQL database; prints mean latencies and the deep ÷ first ratios measured in the same run.

use std::time::{Duration, Instant};

use blog::entities::{author, post};
use chrono::{TimeZone, Utc};
use sea_orm::{ActiveModelTrait, ConnectionTrait, Database, EntityTrait, Set};

/// Options of `pages`.
pub struct Options {
    pg: String,
    rows: usize,
    requests: usize,
}

impl Options {
    /// `--pg URL --rows N --requests N`.
    pub fn parse(args: &[String]) -> Result<Options, String> {
        let mut options = Options { pg: "postgres://postgres@127.0.0.1:5432".into(), rows: 20_000, requests: 200 };
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let value = it.next().ok_or(format!("`{arg}` needs a value"))?;
            match arg.as_str() {
                "--pg" => options.pg = value.trim_end_matches('/').to_string(),
                "--rows" => options.rows = value.parse().map_err(|_| "--rows takes a number")?,
                "--requests" => options.requests = value.parse().map_err(|_| "--requests takes a number")?,
                other => return Err(format!("unknown option `{other}`")),
            }
        }
        Ok(options)
    }
}

/// Runs the measurement.
pub fn run(options: Options) -> Result<(), String> {
    tokio::runtime::Runtime::new().map_err(|e| e.to_string())?.block_on(measure(options))
}

async fn measure(options: Options) -> Result<(), String> {
    let name = format!("viewset_bench_pages_{}", std::process::id());
    let admin = Database::connect(format!("{}/postgres", options.pg)).await.map_err(|e| e.to_string())?;
    admin.execute_unprepared(&format!("CREATE DATABASE \"{name}\"")).await.map_err(|e| e.to_string())?;
    let url = format!("{}/{name}", options.pg);
    let result = measure_on(&url, &options).await;
    admin.execute_unprepared(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)")).await.ok();
    result
}

async fn seed(url: &str, rows: usize) -> Result<(), String> {
    let db = blog::connect_and_migrate(url).await.map_err(|e| e.to_string())?;
    let author =
        author::ActiveModel { name: Set("A".into()), email: Set(Some("a@example.com".into())), ..Default::default() }
            .insert(&db)
            .await
            .map_err(|e| e.to_string())?;
    let posts: Vec<post::ActiveModel> = (0..rows)
        .map(|i| post::ActiveModel {
            title: Set(format!("post {i}")),
            body: Set("body".into()),
            published: Set(i % 2 == 0),
            views: Set((i % 1000) as i32),
            rating: Set(None),
            author_id: Set(author.id),
            created_at: Set(Utc.timestamp_opt(1_700_000_000 + i as i64, 0).single().expect("time")),
            ..Default::default()
        })
        .collect();
    for chunk in posts.chunks(1000) {
        post::Entity::insert_many(chunk.to_vec()).exec(&db).await.map_err(|e| e.to_string())?;
    }
    db.execute_unprepared("ANALYZE posts").await.map_err(|e| e.to_string())?;
    Ok(())
}

async fn mean_ms(client: &reqwest::Client, url: &str, requests: usize) -> Result<f64, String> {
    let start = Instant::now();
    for _ in 0..requests {
        let response = client.get(url).send().await.map_err(|e| e.to_string())?;
        if !response.status().is_success() {
            return Err(format!("{url}: {}", response.status()));
        }
        response.bytes().await.map_err(|e| e.to_string())?;
    }
    Ok(start.elapsed().as_secs_f64() * 1000.0 / requests as f64)
}

async fn measure_on(url: &str, options: &Options) -> Result<(), String> {
    seed(url, options.rows).await?;
    let app = crate::viewset_server::app(url, true).await?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.map_err(|e| e.to_string())?;
    let base = format!("http://{}", listener.local_addr().map_err(|e| e.to_string())?);
    tokio::spawn(async move { axum::serve(listener, app.into_make_service()).await.ok() });
    let client = reqwest::Client::new();
    // The cursor 10,000 rows deep: walk there with pages of 100.
    let mut link = "/cursor/posts/?limit=100".to_string();
    for _ in 0..100 {
        let page: serde_json::Value = client
            .get(format!("{base}{link}"))
            .send()
            .await
            .map_err(|e| e.to_string())?
            .json()
            .await
            .map_err(|e| e.to_string())?;
        link = page["next"].as_str().ok_or("the walk ended before 10,000 rows")?.to_string();
    }
    let deep_cursor = format!("{base}{}", link.replace("limit=100", "limit=20"));
    let cases = [
        ("offset, page 1", format!("{base}/api/posts/?limit=20")),
        ("offset, 10,000 deep", format!("{base}/api/posts/?limit=20&offset=10000")),
        ("cursor, page 1", format!("{base}/cursor/posts/?limit=20")),
        ("cursor, 10,000 deep", deep_cursor),
    ];
    for (_, url) in &cases {
        mean_ms(&client, url, 20).await?; // warm-up
    }
    let mut means = [0.0f64; 4];
    for _ in 0..3 {
        for (i, (_, url)) in cases.iter().enumerate() {
            means[i] += mean_ms(&client, url, options.requests).await? / 3.0;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    println!(
        "{} rows, {} sequential requests per case and round, 3 rounds interleaved",
        options.rows, options.requests
    );
    println!("| case | mean ms |\n|---|---|");
    for ((name, _), mean) in cases.iter().zip(means) {
        println!("| {name} | {mean:.3} |");
    }
    println!("deep ÷ page 1: offset {:.2}×, cursor {:.2}×", means[1] / means[0], means[3] / means[2]);
    Ok(())
}
