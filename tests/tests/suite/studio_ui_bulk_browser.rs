//! Studio's Model Browser writes in bulk through the application's own routes, in headless Chromium: a CSV file
//! (an export's columns: `id` and `created_at` are left out and named) imported as one `POST /api/posts/` with an
//! array; a file with an invalid row shows the 422 naming the row and field, and writes nothing; an anonymous
//! import shows the policy's 403; two checked rows deleted in one `DELETE /api/posts/bulk?id__in=…`. Needs `chromium`
//! and `chromedriver` (a failure, not a skip, with `VIEWSET_REQUIRE_BROWSER=1`).

use reqwest::StatusCode;
use viewset_tests::harness::Backend;
use viewset_tests::studio_fixtures::blog_with_ui;

use crate::support::browser;

#[tokio::test]
async fn chromium_imports_a_file_and_deletes_a_selection() {
    use browser::{act_as, click, find, screenshot, text};

    let Some((driver_path, chromium)) = browser::require() else { return };
    let app = blog_with_ui(Backend::Sqlite).await;
    let driver = browser::Driver::start(&driver_path).await;
    let client = driver.session(&chromium).await;
    browser::sign_in(&client, &format!("{}/studio/ui", app.base)).await;
    let records = "section[aria-label=Records]";
    text(&client, &format!("{records} [data-count]"), "of 3").await;

    let dir = std::env::temp_dir().join(format!("viewset-studio-import-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = |name: &str, contents: &str| {
        let path = dir.join(name);
        std::fs::write(&path, contents).unwrap();
        path.to_string_lossy().into_owned()
    };
    let csv = "id,title,body,published,views,author_id,created_at,slug\r\n\
               99,\"Imported, with a comma\",\"A \"\"quoted\"\" body\",true,7,1,2026-01-01T00:00:00Z,imported-one\r\n\
               100,Imported two,b,false,,2,2026-01-01T00:00:00Z,\r\n";
    let good = file("posts.csv", csv);
    let bad =
        file("bad.json", r#"[{"title": "ok", "body": "b", "author_id": 1}, {"body": "no title", "author_id": 1}]"#);
    let import = format!("{records} input[type=file][aria-label='Import file']");

    // Anonymous: the route's 401 (the bearer layer's challenge) is shown, nothing written.
    find(&client, &import).await.send_keys(&good).await.unwrap();
    text(&client, &format!("{records} .bulk-status .alert"), "401").await;
    assert_eq!(app.get("/api/posts/?limit=1").await.1["count"], 3, "nothing written");

    // As bob: an invalid row is a 422 naming it (row 1, `title`), nothing written.
    act_as(&client, "bob-token").await;
    find(&client, &import).await.send_keys(&bad).await.unwrap();
    text(&client, &format!("{records} .bulk-status .alert"), "body.1.title").await;
    assert_eq!(app.get("/api/posts/?limit=1").await.1["count"], 3, "nothing written");

    // The CSV: two records, typed by the create body's schema; the export-only columns are named.
    find(&client, &import).await.send_keys(&good).await.unwrap();
    let notice = text(&client, &format!("{records} p.note"), "Imported 2 records from posts.csv").await;
    assert!(notice.contains("left out: id, created_at"), "{notice}");
    text(&client, &format!("{records} [data-count]"), "of 5").await;
    let (status, imported) = app.get("/api/posts/?title=Imported,%20with%20a%20comma").await;
    assert_eq!(status, StatusCode::OK);
    let post = &imported["results"][0];
    assert_eq!(post["slug"], "imported-one");
    assert_eq!(post["body"], "A \"quoted\" body");
    assert_eq!((post["published"].as_bool(), post["views"].as_i64()), (Some(true), Some(7)));
    assert_ne!(post["id"], 99, "the file's id is not the record's");
    screenshot(&client, "7-model-browser-import").await;

    // Select the two imported rows, delete them in one request after confirming.
    for title in ["Imported, with a comma", "Imported two"] {
        let rows = client.find_all(fantoccini::Locator::Css(&format!("{records} tbody tr"))).await.unwrap();
        let mut checked = false;
        for row in rows {
            if row.text().await.unwrap().contains(title) {
                row.find(fantoccini::Locator::Css("input[type=checkbox]")).await.unwrap().click().await.unwrap();
                checked = true;
            }
        }
        assert!(checked, "a row for {title}");
    }
    text(&client, &format!("{records} [data-count]"), "of 5").await; // a checkbox opens no record
    click(&client, &format!("{records} button"), "Delete selected (2)").await;
    text(&client, "[role=alertdialog]", "Delete 2 records").await;
    screenshot(&client, "7b-model-browser-bulk-delete").await;
    click(&client, "[role=alertdialog] button", "Delete").await;
    text(&client, &format!("{records} p.note"), "Deleted 2 records").await;
    text(&client, &format!("{records} [data-count]"), "of 3").await;
    assert_eq!(app.get("/api/posts/?limit=1").await.1["count"], 3);
    client.close().await.unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}
