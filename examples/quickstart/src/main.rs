use sea_orm::{ConnectionTrait, Schema};
use viewset_core::prelude::*;

mod book {
    use sea_orm::entity::prelude::*;
    use serde::{Deserialize, Serialize};
    use viewset_core::ModelSchema;

    #[derive(Clone, Debug, PartialEq, DeriveEntityModel, Serialize, Deserialize, ModelSchema)]
    #[sea_orm(table_name = "books")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: i32, // set by the database: read-only
        #[viewset(max_length = 200)]
        pub title: String, // required on create
        pub author: String,
        #[sea_orm(default_value = 0)]
        pub pages: i32, // optional on create: the database default
        pub rating: Option<f64>, // nullable
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

#[derive(ModelViewSet)]
#[viewset(
    model = book::Entity,
    prefix = "/api/books",
    filter_backends = [ServiceFilterBackend, SearchFilter, OrderingFilter],
    filterable_fields = ["pages", "rating"],
    search_fields = ["title", "author"],
    ordering_fields = ["id", "pages"],
    ordering = "-id",
    permission_classes = [IsAuthenticatedOrReadOnly],
)]
pub struct BookViewSet;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Logs go to stderr; a 500 is logged with its request id (RUST_LOG=debug for more).
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).init();

    // An embedded SQLite file; any sea-orm URL works (postgres://user:pass@host/db).
    let url = std::env::var("DATABASE_URL").unwrap_or_else(|_| "sqlite://books.db?mode=rwc".into());
    let db = viewset_core::connect(&url).await?;
    let table =
        Schema::new(db.get_database_backend()).create_table_from_entity(book::Entity).if_not_exists().to_owned();
    db.execute(&table).await?; // a real project uses sea-orm-migration

    // Registration is explicit: deriving registers nothing.
    let mut api = Api::new();
    api.include::<BookViewSet>()?;

    // Who is calling: a bearer token becomes a Principal. Check your own tokens or sessions here.
    let auth =
        Authenticate::bearer(|token: String| async move { (token == "let-me-in").then(|| Principal::user("ada")) });

    let app = api.into_router_with_docs("books", "0.1.0").with_state(ServiceState::new(db)).layer(auth);
    let app = Limits::default().apply(app); // body, URI and header limits, timeouts, request ids

    let bind = std::env::var("BIND").unwrap_or_else(|_| "127.0.0.1:3000".into());
    let listener = tokio::net::TcpListener::bind(&bind).await?;
    println!("listening on http://{bind} (API docs at /docs)");
    // `into_make_service`: every connection shares the one route table (axum copies it per connection otherwise).
    axum::serve(listener, app.into_make_service())
        .with_graceful_shutdown(viewset_core::limits::shutdown_signal())
        .await?;
    Ok(())
}
