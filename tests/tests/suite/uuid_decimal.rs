//! UUID and decimal fields through every surface of a ViewSet: JSON bodies (create, PATCH) and responses, exact and
//! range filters, ordering, cursor pages, CSV, the narrowed list `SELECT` and a UUID primary key; malformed values
//! are 422s (400 for a detail path), never 500s. On SQLite (a UUID is a 16-byte blob, a decimal a `REAL`) and
//! PostgreSQL (`uuid`, `numeric(19, 4)`), the tables created with the `schema` helpers `viewset generate` writes.

use axum::Router;
use reqwest::{Method, StatusCode};
use sea_orm::prelude::Decimal;
use sea_orm::{ConnectionTrait, DatabaseConnection, DbBackend, Statement};
use sea_orm_migration::prelude::{Table, TableCreateStatement};
use sea_orm_migration::schema::{decimal_len, decimal_len_null, pk_auto, string, uuid, uuid_null, uuid_uniq};
use serde_json::{Value, json};
use viewset_core::prelude::*;
use viewset_tests::harness::{Backend, Statements, TestApp, TestDb, recording};
use viewset_tests::on_every_database;

mod product {
    use sea_orm::entity::prelude::*;
    use serde::{Deserialize, Serialize};
    use viewset_core::ModelSchema;

    /// A product with a UUID code and decimal prices.
    #[derive(Clone, Debug, PartialEq, DeriveEntityModel, Serialize, Deserialize, ModelSchema)]
    #[sea_orm(table_name = "products")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: i32,
        pub name: String,
        #[sea_orm(unique)]
        pub code: Uuid,
        pub parent: Option<Uuid>,
        #[sea_orm(column_type = "Decimal(Some((19, 4)))")]
        pub price: Decimal,
        #[sea_orm(column_type = "Decimal(Some((19, 4)))")]
        pub discount: Option<Decimal>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

mod ticket {
    use sea_orm::entity::prelude::*;
    use serde::{Deserialize, Serialize};
    use viewset_core::ModelSchema;

    /// A record keyed by a UUID the client chooses.
    #[derive(Clone, Debug, PartialEq, DeriveEntityModel, Serialize, Deserialize, ModelSchema)]
    #[sea_orm(table_name = "tickets")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        #[sea_orm(column_type = "Decimal(Some((19, 4)))")]
        pub amount: Decimal,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

#[derive(ModelViewSet)]
#[viewset(
    model = product::Entity,
    prefix = "/api/products",
    filter_backends = [ServiceFilterBackend, OrderingFilter],
    filterable_fields = ["code", "parent", "price", "discount"],
    ordering_fields = ["id", "price", "discount", "code"],
    ordering = "id",
    permission_classes = [AllowAny],
)]
struct Products;

#[derive(ModelViewSet)]
#[viewset(
    model = product::Entity,
    prefix = "/api/product-pages",
    pagination_class = CursorPagination,
    filter_backends = [OrderingFilter],
    ordering_fields = ["price", "code", "id"],
    ordering = ["price", "id"],
    permission_classes = [AllowAny],
)]
struct ProductPages;

#[derive(ModelViewSet)]
#[viewset(model = ticket::Entity, prefix = "/api/tickets", permission_classes = [AllowAny])]
struct Tickets;

on_every_database!(app =>
    bodies_responses_and_filters,
    malformed_values_are_422s,
    ordering_and_cursor_pages,
    csv_and_narrowed_lists,
    uuid_primary_key,
);

const U1: &str = "67e55044-10b1-426f-9247-bb680e5fe0c8";
const U2: &str = "0b7d3c4e-2f1a-4a8b-9c6d-5e4f3a2b1c0d";
const U3: &str = "f47ac10b-58cc-4372-a567-0e02b2c3d479";

/// The tables, created with the `schema` helpers the code generator writes.
async fn create_tables(db: &DatabaseConnection) {
    let products: TableCreateStatement = Table::create()
        .table("products")
        .col(pk_auto("id"))
        .col(string("name"))
        .col(uuid_uniq("code"))
        .col(uuid_null("parent"))
        .col(decimal_len("price", 19, 4))
        .col(decimal_len_null("discount", 19, 4))
        .to_owned();
    let tickets =
        Table::create().table("tickets").col(uuid("id").primary_key()).col(decimal_len("amount", 19, 4)).to_owned();
    for table in [products, tickets] {
        db.execute(&table).await.expect("create table");
    }
}

async fn app(backend: Backend) -> (TestApp, Statements) {
    let database = TestDb::create(backend).await;
    let db = viewset_core::connect(&database.url).await.expect("connect");
    create_tables(&db).await;
    let (recorded, statements) = recording(&db);
    let router = include_viewset::<Tickets, _>(include_viewset::<ProductPages, _>(include_viewset::<Products, _>(
        Router::new(),
    )))
    .with_state(ServiceState::new(recorded));
    (TestApp::serve(router, db, database).await, statements)
}

/// `text` as a decimal (what a response's string must equal as a number).
fn dec(text: &str) -> Decimal {
    text.parse().unwrap_or_else(|_| panic!("{text:?} is not a decimal"))
}

/// The decimal a response field holds: always a JSON string.
fn decimal_of(value: &Value) -> Decimal {
    dec(value.as_str().unwrap_or_else(|| panic!("a decimal is a JSON string, not {value}")))
}

async fn send(app: &TestApp, method: Method, path: &str, body: Value) -> (StatusCode, Value) {
    app.send(method, path, None, Some(&body.to_string())).await
}

/// Three products: 9.99 (code U1), 12.5 (code U2, parent U1, discount 0.5), -3.25 (code U3).
async fn seed(app: &TestApp) -> Vec<i64> {
    let bodies = [
        json!({"name": "a", "code": U1, "parent": null, "price": "9.99", "discount": null}),
        // A JSON number is accepted for a decimal; an upper-case UUID too.
        json!({"name": "b", "code": U2.to_uppercase(), "parent": U1, "price": 12.5, "discount": "0.5"}),
        json!({"name": "c", "code": U3, "parent": null, "price": "-3.25", "discount": null}),
    ];
    let mut ids = Vec::new();
    for body in bodies {
        let (status, created) = send(app, Method::POST, "/api/products/", body.clone()).await;
        assert_eq!(status, StatusCode::CREATED, "{body} → {created}");
        ids.push(created["id"].as_i64().expect("an id"));
    }
    ids
}

fn ids(body: &Value) -> Vec<i64> {
    body["results"].as_array().expect("results").iter().map(|r| r["id"].as_i64().unwrap()).collect()
}

async fn bodies_responses_and_filters((app, _): (TestApp, Statements)) {
    let [a, b, c] = seed(&app).await[..] else { panic!("three products") };
    let (status, one) = app.get(&format!("/api/products/{b}")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!((one["code"].as_str(), one["parent"].as_str()), (Some(U2), Some(U1)), "lower-case, hyphenated");
    assert_eq!((decimal_of(&one["price"]), decimal_of(&one["discount"])), (dec("12.5"), dec("0.5")));
    assert_eq!(one["id"], b);
    // How each backend stores them, and so how a decimal's text reads back.
    let backend = app.db.get_database_backend();
    let (types, price) = match backend {
        DbBackend::Sqlite => ("SELECT typeof(code) || ',' || typeof(price) AS t FROM products", "12.5"),
        DbBackend::MySql => (
            "SELECT CAST(GROUP_CONCAT(COLUMN_TYPE ORDER BY COLUMN_NAME) AS CHAR) AS t FROM information_schema.COLUMNS \
             WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'products' AND COLUMN_NAME IN ('code', 'price')",
            "12.5000",
        ),
        _ => ("SELECT pg_typeof(code)::text || ',' || pg_typeof(price)::text AS t FROM products", "12.5000"),
    };
    let row = app.db.query_one_raw(Statement::from_string(backend, types)).await.unwrap().expect("a row");
    let stored: String = row.try_get("", "t").unwrap();
    let expected = match backend {
        DbBackend::Sqlite => "blob,real",
        DbBackend::MySql => "binary(16),decimal(19,4)",
        _ => "uuid,numeric",
    };
    assert_eq!((stored.as_str(), one["price"].as_str()), (expected, Some(price)));

    for (query, expected) in [
        ("price=9.99", vec![a]),
        ("price=9.9900", vec![a]),
        ("price__gte=9.99", vec![a, b]),
        ("price__lt=0", vec![c]),
        ("price__in=12.5,-3.25", vec![b, c]),
        ("discount=0.5", vec![b]),
        ("discount__isnull=true", vec![a, c]),
        (&format!("code={U2}"), vec![b]),
        (&format!("code={}", U2.to_uppercase()), vec![b]),
        (&format!("code__in={U1},{U3}"), vec![a, c]),
        (&format!("parent={U1}"), vec![b]),
        ("parent=null", vec![a, c]),
    ] {
        let (status, list) = app.get(&format!("/api/products/?{query}")).await;
        assert_eq!(status, StatusCode::OK, "{query}: {list}");
        assert_eq!(ids(&list), expected, "{query}");
    }

    let (status, patched) =
        send(&app, Method::PATCH, &format!("/api/products/{a}"), json!({"price": "10.0001", "parent": U3})).await;
    assert_eq!(status, StatusCode::OK, "{patched}");
    assert_eq!((decimal_of(&patched["price"]), patched["parent"].as_str()), (dec("10.0001"), Some(U3)));
    let (_, again) = app.get(&format!("/api/products/{a}")).await;
    assert_eq!((decimal_of(&again["price"]), again["parent"].as_str()), (dec("10.0001"), Some(U3)));
    assert_eq!(again["code"], U1, "an omitted UUID is kept");
    let (status, cleared) = send(&app, Method::PATCH, &format!("/api/products/{a}"), json!({"parent": null})).await;
    assert_eq!((status, cleared["parent"].clone()), (StatusCode::OK, Value::Null));
    let (_, list) = app.get("/api/products/?price=10.0001").await;
    assert_eq!(ids(&list), [a]);

    let duplicate = json!({"name": "d", "code": U1, "price": "1"});
    let (status, conflict) = send(&app, Method::POST, "/api/products/", duplicate).await;
    assert_eq!((status, conflict["code"].as_str()), (StatusCode::CONFLICT, Some("unique_violation")), "{conflict}");
}

/// The `loc` of the only error of a 422.
fn loc(body: &Value) -> Value {
    body["detail"].as_array().filter(|d| d.len() == 1).unwrap_or_else(|| panic!("one error: {body}"))[0]["loc"].clone()
}

async fn malformed_values_are_422s((app, _): (TestApp, Statements)) {
    let [a, ..] = seed(&app).await[..] else { panic!("three products") };
    for (query, param) in [
        ("price=abc", "price"),
        ("price=1e5", "price"),
        ("price=NaN", "price"),
        ("price__gt=9.9.9", "price__gt"),
        ("price__in=1,x", "price__in"),
        (&format!("price={}", "9".repeat(40)), "price"),
        ("code=not-a-uuid", "code"),
        ("code=67e55044-10b1-426f-9247", "code"),
        ("parent__in=x", "parent__in"),
    ] {
        let (status, body) = app.get(&format!("/api/products/?{query}")).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{query}: {body}");
        assert_eq!(loc(&body), json!(["query", param]), "{query}");
    }
    let valid = json!({"name": "x", "code": "11111111-2222-4333-8444-555555555555", "price": "1"});
    for (field, bad) in [
        ("code", json!("not-a-uuid")),
        ("code", json!(7)),
        ("parent", json!("67e55044")),
        ("price", json!("abc")),
        ("price", json!("")),
        ("price", json!(true)),
        ("price", json!("0.00001")),
        ("price", json!("1234567890123456")),
        ("discount", json!("1e400")),
    ] {
        let mut body = valid.clone();
        body[field] = bad.clone();
        let (status, answer) = send(&app, Method::POST, "/api/products/", body).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{field}: {bad} → {answer}");
        assert_eq!(loc(&answer), json!(["body", field]), "{field}: {bad}");
        let patch = json!({field: bad});
        let (status, answer) = send(&app, Method::PATCH, &format!("/api/products/{a}"), patch).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "PATCH {field}: {bad} → {answer}");
    }
    // A value at the column's limits is stored: exactly on PostgreSQL; on SQLite as the nearest `REAL` (19
    // significant digits are more than a double holds).
    let mut body = valid.clone();
    body["price"] = json!("-999999999999999.9999");
    let (status, created) = send(&app, Method::POST, "/api/products/", body).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let stored = decimal_of(&created["price"]);
    match app.db.get_database_backend() {
        sea_orm::DbBackend::Sqlite => assert!((stored - dec("-999999999999999.9999")).abs() < dec("1"), "{stored}"),
        _ => assert_eq!(stored, dec("-999999999999999.9999")),
    }
}

async fn ordering_and_cursor_pages((app, _): (TestApp, Statements)) {
    let [a, b, c] = seed(&app).await[..] else { panic!("three products") };
    for extra in ["d", "e", "f"] {
        let body = json!({"name": extra, "code": uuid_for(extra), "price": "9.99"});
        assert_eq!(send(&app, Method::POST, "/api/products/", body).await.0, StatusCode::CREATED);
    }
    let (_, by_price) = app.get("/api/products/?ordering=-price").await;
    assert_eq!(ids(&by_price)[..2], [b, a], "12.5, then the 9.99s");
    assert_eq!(ids(&by_price)[5], c);
    let (_, by_code) = app.get("/api/products/?ordering=code&limit=4").await;
    let codes: Vec<&str> = by_code["results"].as_array().unwrap().iter().map(|r| r["code"].as_str().unwrap()).collect();
    assert_eq!(codes, [uuid_for("d").as_str(), &uuid_for("e"), &uuid_for("f"), U2], "UUIDs in their byte order");

    for (ordering, key) in [("price", "price"), ("-code", "code")] {
        let all: Vec<Value> =
            app.get(&format!("/api/products/?ordering={ordering}")).await.1["results"].as_array().unwrap().clone();
        let mut walked = Vec::new();
        let mut next = Some(format!("/api/product-pages/?limit=2&ordering={ordering}"));
        while let Some(path) = next {
            let (status, page) = app.get(&path).await;
            assert_eq!(status, StatusCode::OK, "{path}: {page}");
            walked.extend(page["results"].as_array().unwrap().iter().cloned());
            next = page["next"].as_str().map(str::to_string);
        }
        let keys = |records: &[Value]| records.iter().map(|r| (r[key].clone(), r["id"].clone())).collect::<Vec<_>>();
        assert_eq!(keys(&walked), keys(&all), "cursor pages by {ordering}");
    }
}

/// A UUID made from a short name (for records whose code does not matter).
fn uuid_for(name: &str) -> String {
    let hex: String = name.bytes().map(|b| format!("{b:02x}")).collect();
    format!("00000000-0000-4000-8000-{hex:0>12}")
}

async fn csv_and_narrowed_lists((app, statements): (TestApp, Statements)) {
    seed(&app).await;
    let response = app.client().get(format!("{}/api/products/?format=csv&ordering=id", app.base)).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let csv = response.text().await.unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows[0], "id,name,code,parent,price,discount");
    assert!(rows[3].starts_with(&format!("3,c,{U3},,-3.25")), "a negative decimal is a number: {csv}");

    statements.lock().unwrap().clear();
    let (status, list) = app.get("/api/products/?fields=id,name&ordering=id").await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(list["results"][2], json!({"id": 3, "name": "c"}));
    let sql = statements.lock().unwrap().iter().find(|s| !s.contains("COUNT")).cloned().unwrap_or_default();
    for column in ["code", "parent", "price", "discount"] {
        assert!(!sql.contains(&format!(r#""products"."{column}""#)), "{column} stands in: {sql}");
    }
    // Every other field left out: the stand-ins decode as the field types.
    let (status, list) = app.get("/api/products/?fields=code,price&ordering=-price").await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(list["results"][0]["code"], U2);
}

async fn uuid_primary_key((app, _): (TestApp, Statements)) {
    let (status, created) = send(&app, Method::POST, "/api/tickets/", json!({"id": U1, "amount": "0.1"})).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!((created["id"].as_str(), decimal_of(&created["amount"])), (Some(U1), dec("0.1")));
    let (status, one) = app.get(&format!("/api/tickets/{}", U1.to_uppercase())).await;
    assert_eq!((status, one["id"].as_str()), (StatusCode::OK, Some(U1)));
    let (status, patched) = send(&app, Method::PATCH, &format!("/api/tickets/{U1}"), json!({"amount": 2})).await;
    assert_eq!((status, decimal_of(&patched["amount"])), (StatusCode::OK, dec("2")));
    let (status, missing) = app.get(&format!("/api/tickets/{U2}")).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{missing}");
    let (status, invalid) = app.get("/api/tickets/not-a-uuid").await;
    assert_eq!((status, invalid["code"].as_str()), (StatusCode::BAD_REQUEST, Some("invalid_id")), "{invalid}");
    let (status, deleted) = app.send(Method::DELETE, &format!("/api/tickets/{U1}"), None, None).await;
    assert_eq!((status, deleted), (StatusCode::OK, json!({"deleted": true, "id": U1})));
}
