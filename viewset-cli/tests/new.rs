//! `viewset new` and `viewset generate` end to end, as the guide's "Growing a project" says: a project is written,
//! built and served (its database created with the first migration), then grown with the guide's `viewset
//! generate` lines (a resource with every field type, a nullable one and a reference; a field on the first
//! resource; a hand-written migration; a dry run), built again, tested with its own `cargo test`, and served on the
//! same database, whose new migrations apply; on SQLite, PostgreSQL and MariaDB (which create their missing databases).
//! Refused names and refused input are checked without building. The projects build in `target/starter` with the
//! workspace's `Cargo.lock`. Needs `cargo` and `curl`.

mod support;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::json;
use support::*;

/// Every file of the project's `src/` and `tests/`, by path.
fn sources(project: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    let mut dirs = vec![project.join("src"), project.join("tests"), project.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() && dir != project {
                dirs.push(path);
            } else if path.is_file() && path.extension().is_some_and(|e| e == "rs" || e == "toml") {
                files.insert(path.display().to_string(), std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    files
}

/// Runs the guide's `viewset generate` lines in `project`: a `--dry-run` line must print a diff and write nothing.
fn grow_as_the_readme_says(project: &Path) {
    let lines = readme_generate_lines();
    assert!(lines.len() >= 4, "{lines:?}");
    for line in lines {
        let args: Vec<&str> = line.iter().map(String::as_str).collect();
        let before = sources(project);
        let out = viewset_ok(project, &args);
        if args.contains(&"--dry-run") {
            assert!(out.contains("+++ b/") && out.ends_with("dry run: nothing was written\n"), "{out}");
            assert!(sources(project) == before, "{args:?} wrote files");
        } else {
            assert!(out.contains("next: cargo run"), "{out}");
        }
    }
    let migrations = std::fs::read_to_string(project.join("src/migration.rs")).unwrap();
    let date = viewset_codegen::today_utc();
    let names = [
        "create_items",
        "create_category",
        "create_product",
        "create_tag",
        "create_post",
        "add_items_rating",
        "add_index_on_name",
    ];
    let mut at = 0;
    for (n, name) in names.iter().enumerate() {
        let module = viewset_codegen::migration_name(&date, n + 1, name);
        assert!(project.join(format!("src/migration/{module}.rs")).exists(), "{module}");
        let line = format!("Box::new({module}::Migration)");
        at = at + migrations[at..].find(&line).unwrap_or_else(|| panic!("{line} in order: {migrations}"));
    }
}

/// `viewset migrate` on the grown project's database, where only the first migrations are applied: `status` lists
/// the new ones pending, `up` applies them, `down 1` rolls back the last one, `up 1` applies it again.
fn migrate_by_hand(project: &Path, env: &[(&str, &str)]) {
    let status = |args: &[&str]| -> Vec<(String, String)> {
        let out = viewset_ok_with(project, args, env);
        out.lines()
            .map(|l| {
                let (status, name) = l.split_once(' ').unwrap_or_else(|| panic!("{out}"));
                (status.to_string(), name.trim().to_string())
            })
            .collect()
    };
    let pending = |list: &[(String, String)]| -> Vec<String> {
        list.iter().filter(|(s, _)| s == "pending").map(|(_, n)| n.clone()).collect()
    };
    let before = status(&["migrate", "status"]);
    assert_eq!(before.len(), 8, "the framework's, the first and six generated: {before:?}");
    assert_eq!(pending(&before).len(), 6, "{before:?}");
    assert!(pending(&before)[0].ends_with("_create_category"), "{before:?}");
    let up = status(&["migrate", "up"]);
    assert!(pending(&up).is_empty() && up.iter().all(|(s, _)| s == "applied"), "{up:?}");
    assert_eq!(status(&["migrate", "status"]), up);
    let down = status(&["migrate", "down", "1"]);
    assert_eq!(pending(&down), [up.last().unwrap().1.clone()], "{down:?}");
    assert!(pending(&status(&["migrate", "up", "1"])).is_empty());
}

/// The first start: an item in a new database (with the first migration only).
fn first_start(project: &Path, binary: &str, env: &[(&str, &str)], log: &Path) {
    let server = Server::start(project, binary, env, log);
    let (status, item) = server.call("POST", "/api/items/", Some(&json!({"name": "lamp"})), true);
    assert_eq!((status, &item["id"], &item["archived"]), (201, &json!(1), &json!(false)), "{item}");
    let (status, refused) = server.call("POST", "/api/items/", Some(&json!({"name": "x"})), false);
    assert_eq!((status, &refused["code"]), (401, &json!("not_authenticated")), "{refused}");
}

/// The grown project on the same database: the added column exists (its migration applied to an existing
/// database), and the new resource answers create, read, filters, search, ordering, update and delete.
fn exercise_grown(server: &Server) {
    let (status, item) = server.call("GET", "/api/items/1", None, false);
    assert_eq!((status, &item["name"], &item["rating"]), (200, &json!("lamp"), &json!(null)), "{item}");
    let (status, item) = server.call("PATCH", "/api/items/1", Some(&json!({"rating": 4})), true);
    assert_eq!((status, &item["rating"]), (200, &json!(4)), "{item}");
    assert_eq!(server.call("GET", "/api/items/?rating=4", None, false).1["count"], 1);

    let code = "67e55044-10b1-426f-9247-bb680e5fe0c8";
    let product = json!({
        "name": "Desk lamp", "notes": "warm light", "views": 10, "price": 19.5, "cost": "12.34",
        "released_on": "2026-11-27", "updated_at": "2026-11-27T10:00:00Z", "code": code.to_uppercase(),
        "extra": {"colours": ["red"]}, "item_id": 1,
    });
    let (status, created) = server.call("POST", "/api/products/", Some(&product), true);
    assert_eq!(status, 201, "{created}");
    for (key, value) in product.as_object().unwrap() {
        if !["updated_at", "cost", "code"].contains(&key.as_str()) {
            assert_eq!(&created[key], value, "{key}: {created}");
        }
    }
    // A decimal is a string: `12.34` on SQLite, `12.3400` (the column's scale) on PostgreSQL and MariaDB; a UUID
    // lower-case.
    assert_eq!(created["cost"].as_str().map(|c| c.trim_end_matches('0')), Some("12.34"), "{created}");
    assert_eq!(created["code"], code, "{created}");
    assert!(created["updated_at"].as_str().unwrap().starts_with("2026-11-27T10:00:00"), "{created}");
    assert_eq!((&created["stock"], &created["active"]), (&json!(0), &json!(true)), "defaults: {created}");
    let id = created["id"].as_i64().unwrap();
    exercise_relations(server, id);
    let by_code = format!("code={code}");
    for query in ["item_id=1", "active=true", "search=desk", "views__gte=5", "ordering=-price", "cost=12.34"]
        .into_iter()
        .chain(["cost__gt=12", "ordering=-cost", &by_code])
    {
        let (status, list) = server.call("GET", &format!("/api/products/?{query}"), None, false);
        assert_eq!((status, &list["count"]), (200, &json!(1)), "{query}: {list}");
    }
    for query in ["cost=abc", "code=not-a-uuid"] {
        let (status, refused) = server.call("GET", &format!("/api/products/?{query}"), None, false);
        assert_eq!(status, 422, "{query}: {refused}");
    }
    let mut bad = product.clone();
    bad["cost"] = json!("0.00001");
    let (status, refused) = server.call("POST", "/api/products/", Some(&bad), true);
    assert_eq!((status, &refused["detail"][0]["loc"]), (422, &json!(["body", "cost"])), "{refused}");
    let (status, missing) = server.call("POST", "/api/products/", Some(&json!({"name": "no price"})), true);
    assert_eq!(status, 422, "price is required: {missing}");
    assert!(missing.to_string().contains("price"), "{missing}");
    let (status, patched) = server.call("PATCH", &format!("/api/products/{id}"), Some(&json!({"notes": null})), true);
    assert_eq!((status, &patched["notes"], &patched["price"]), (200, &json!(null), &json!(19.5)), "{patched}");
    let (status, deleted) = server.call("DELETE", &format!("/api/products/{id}"), None, true);
    assert_eq!((status, deleted), (200, json!({"deleted": true, "id": id})));
    assert_eq!(server.call("GET", &format!("/api/products/{id}"), None, false).0, 404);
}

/// Both sides of the generated relations: `?expand=` and related filters on products and categories (a foreign
/// key), posts and tags (many-to-many, links written with the post); a filter nobody declared is a 422; a string
/// longer than 255 characters is refused.
fn exercise_relations(server: &Server, product: i64) {
    let (status, tools) = server.call("POST", "/api/categories/", Some(&json!({"name": "Tools"})), true);
    assert_eq!(status, 201, "{tools}");
    let (status, _) = server.call("POST", "/api/categories/", Some(&json!({"name": "Food"})), true);
    assert_eq!(status, 201);
    let long = json!({"name": "x".repeat(256)});
    let (status, refused) = server.call("POST", "/api/categories/", Some(&long), true);
    assert_eq!((status, &refused["detail"][0]["loc"]), (422, &json!(["body", "name"])), "{refused}");
    let body = json!({"category_id": tools["id"]});
    let (status, patched) = server.call("PATCH", &format!("/api/products/{product}"), Some(&body), true);
    assert_eq!(status, 200, "{patched}");
    let (status, list) = server.call("GET", "/api/products/?category__name=Tools&expand=category", None, false);
    assert_eq!((status, &list["count"]), (200, &json!(1)), "{list}");
    assert_eq!(list["results"][0]["category"]["name"], "Tools", "{list}");
    assert_eq!(server.call("GET", "/api/products/?category__name=Food", None, false).1["count"], 0);
    let (status, refused) = server.call("GET", "/api/products/?categry__name=Tools", None, false);
    assert_eq!((status, &refused["detail"][0]["type"]), (422, &json!("unknown_filter")), "{refused}");
    let (status, list) = server.call("GET", "/api/categories/?products__name=Desk%20lamp&expand=products", None, false);
    assert_eq!((status, &list["count"]), (200, &json!(1)), "{list}");
    assert_eq!(list["results"][0]["products"][0]["id"], product, "{list}");

    let mut tags = Vec::new();
    for name in ["rust", "web"] {
        let (status, tag) = server.call("POST", "/api/tags/", Some(&json!({"name": name})), true);
        assert_eq!(status, 201, "{tag}");
        tags.push(tag["id"].clone());
    }
    let post = json!({"title": "Hello", "tags": tags});
    let (status, created) = server.call("POST", "/api/posts/", Some(&post), true);
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["tags"].as_array().map(Vec::len), Some(2), "the links written: {created}");
    let (status, _) = server.call("POST", "/api/posts/", Some(&json!({"title": "Untagged"})), true);
    assert_eq!(status, 201);
    let (status, list) = server.call("GET", "/api/posts/?tags__name=rust&expand=tags", None, false);
    assert_eq!((status, &list["count"]), (200, &json!(1)), "{list}");
    assert_eq!(list["results"][0]["tags"].as_array().map(Vec::len), Some(2), "{list}");
    let both = format!("/api/posts/?tags__id__in={},{}", tags[0], tags[1]);
    assert_eq!(server.call("GET", &both, None, false).1["count"], 1, "a post matching twice counts once");
    let (status, list) = server.call("GET", "/api/tags/?posts__title=Hello&expand=posts", None, false);
    assert_eq!((status, &list["count"]), (200, &json!(2)), "{list}");
    assert_eq!(list["results"][0]["posts"][0]["title"], "Hello", "{list}");
}

#[test]
fn a_sqlite_project_grows_builds_tests_and_serves() {
    let dir = Scratch::new("sqlite");
    let project = new_project("shop", &[], &dir.0);
    let again = viewset_refused(&dir.0, &["new", "shop"]);
    assert!(again.contains("already exists"), "{again}");
    cargo(&project, &["build", "--quiet"], &[]);
    first_start(&project, "shop", &[], &dir.0.join("first.log"));
    assert!(project.join("shop.db").exists(), "the development database, next to the project");

    grow_as_the_readme_says(&project);
    migrate_by_hand(&project, &[]);
    cargo(&project, &["build", "--quiet", "--all-targets"], &[]);
    cargo(&project, &["test", "--quiet"], &[]);
    let server = Server::start(&project, "shop", &[], &dir.0.join("second.log"));
    exercise_grown(&server);
}

/// Drops the scratch databases when the test ends (best effort, with `psql`).
struct Databases(String, Vec<String>);

impl Databases {
    fn drop_all(&self) {
        for name in &self.1 {
            let sql = format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)");
            let _ = std::process::Command::new("psql").args([&format!("{}/postgres", self.0), "-qc", &sql]).output();
        }
    }
}

impl Drop for Databases {
    fn drop(&mut self) {
        self.drop_all();
    }
}

#[test]
fn a_postgres_project_creates_its_databases_grows_and_serves() {
    let Some(server_url) = postgres_url() else { return };
    let dir = Scratch::new("postgres");
    let (development, test) =
        (format!("viewset_cli_{}", std::process::id()), format!("viewset_cli_{}_t", std::process::id()));
    let databases = Databases(server_url.clone(), vec![development.clone(), test.clone()]);
    databases.drop_all(); // left by an earlier run with the same process id
    grows_and_serves("pgshop", "postgres", &server_url, &dir, (&development, &test));
}

/// `viewset new <name> --<backend>` on the server at `server_url`: the manifest names the backend's features; the
/// first start creates the development database; the project grows as the guide says, its tests run on the test
/// database (created when missing), and the grown project serves.
fn grows_and_serves(name: &str, backend: &str, server_url: &str, dir: &Scratch, (development, test): (&str, &str)) {
    let project = new_project(name, &[&format!("--{backend}")], &dir.0);
    let manifest = std::fs::read_to_string(project.join("Cargo.toml")).unwrap();
    let features = format!(r#"features = ["{backend}", "docs"]"#);
    assert!(manifest.contains(&features) && manifest.contains(&format!("sqlx-{backend}")), "{manifest}");

    let development_url = format!("{server_url}/{development}");
    let test_url = format!("{server_url}/{test}");
    cargo(&project, &["build", "--quiet"], &[]);
    let env = [("DATABASE_URL", development_url.as_str())];
    first_start(&project, name, &env, &dir.0.join("first.log"));
    let log = std::fs::read_to_string(dir.0.join("first.log")).unwrap();
    assert!(log.contains(&format!("created the database `{development}`")), "{log}");

    grow_as_the_readme_says(&project);
    migrate_by_hand(&project, &env);
    cargo(&project, &["build", "--quiet", "--all-targets"], &[]);
    // The tests empty TEST_DATABASE_URL (created when missing), never the development database.
    cargo(&project, &["test", "--quiet"], &[("TEST_DATABASE_URL", &test_url), ("DATABASE_URL", &development_url)]);
    let server = Server::start(&project, name, &env, &dir.0.join("second.log"));
    exercise_grown(&server);
}

/// Drops the scratch MariaDB databases when the test ends (best effort, with the `mariadb` client).
struct MysqlDatabases(String, Vec<String>);

impl MysqlDatabases {
    fn drop_all(&self) {
        let (host, port) = server_address(&self.0);
        for name in &self.1 {
            let sql = format!("DROP DATABASE IF EXISTS `{name}`");
            let args = ["-h", host.as_str(), "-P", port.as_str(), "-u", "root", "-e", sql.as_str()];
            let _ = std::process::Command::new("mariadb").args(args).output();
        }
    }
}

impl Drop for MysqlDatabases {
    fn drop(&mut self) {
        self.drop_all();
    }
}

/// The host and port of `mysql://user@host:port`.
fn server_address(url: &str) -> (String, String) {
    let authority = url.rsplit('@').next().unwrap_or(url).trim_start_matches("mysql://");
    let (host, port) = authority.split_once(':').unwrap_or((authority, "3306"));
    (host.to_string(), port.trim_end_matches('/').to_string())
}

#[test]
fn a_mysql_project_creates_its_databases_grows_and_serves() {
    let Some(server_url) = mysql_url() else { return };
    let dir = Scratch::new("mysql");
    let (development, test) =
        (format!("viewset_cli_{}", std::process::id()), format!("viewset_cli_{}_t", std::process::id()));
    let databases = MysqlDatabases(server_url.clone(), vec![development.clone(), test.clone()]);
    databases.drop_all(); // left by an earlier run with the same process id
    let both = viewset_refused(&dir.0, &["new", "other", "--mysql", "--postgres"]);
    assert!(both.contains("cannot be used with"), "{both}");
    grows_and_serves("myshop", "mysql", &server_url, &dir, (&development, &test));
}

#[test]
fn names_that_cannot_build_and_bad_input_are_refused() {
    let dir = Scratch::new("refused");
    for name in ["type", "match", "self", "test", "std", "My Shop", "1shop", "sea-orm", "shop-"] {
        let error = viewset_refused(&dir.0, &["new", name]);
        assert!(error.contains("cannot name a project") && error.contains("; try `"), "{name}: {error}");
        assert!(!dir.0.join(name).exists(), "{name}");
    }
    let error = viewset_refused(&dir.0, &["new", "shop", "--resource", "type"]);
    assert!(error.contains("cannot name a resource") && error.contains("try `type_items`"), "{error}");
    let error = viewset_refused(&dir.0, &["generate", "resource", "products", "name:string"]);
    assert!(error.contains("src/lib.rs"), "not a project: {error}");

    let project = new_project("shop", &[], &dir.0);
    let before = sources(&project);
    for (args, expected) in [
        (&["generate", "resource", "products", "total:decimal=0"][..], "Decimal columns take none here"),
        (&["generate", "resource", "products", "price"], "is not a field"),
        (&["generate", "resource", "products", "price:money"], "types: string, text, i32"),
        (&["generate", "resource", "type", "name:string"], "`type`: `type` is a Rust keyword"),
        (&["generate", "resource", "products", "limit:i32"], "`limit:i32`: `limit` is a reserved query name"),
        (&["generate", "resource", "products", "x:references:nothing"], "no entity of this project has the table"),
        (&["generate", "resource", "items", "name:string"], "already has an entity for `items`"),
        (&["generate", "field", "items", "stock:i32"], "existing rows need a value"),
        (&["generate", "field", "items", "foo:string"], "`foo:string`: existing rows need a value"),
        (&["generate", "resource", "post", "tags:many_to_many:nothing"], "no entity of this project has the table"),
        (&["generate", "resource", "post", "tags:many_to_many"], "is not a field"),
        (&["generate", "field", "items", "tags:many_to_many:items"], "`generate field` adds a column"),
        (&["generate", "field", "nothing", "stock:i32?"], "no entity of this project has the table `nothing`"),
        (&["generate", "migration", "Add-Index"], "is not a snake_case identifier"),
    ] {
        let error = viewset_refused(&project, args);
        assert!(error.contains(expected), "{args:?}: {error}");
        assert_eq!(error.lines().count(), 1, "each error once, nothing after it: {error}");
    }
    assert!(sources(&project) == before, "a refused command writes nothing");
}
