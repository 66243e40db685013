//! The values `#[viewset(...)]` declares inside a [`Config`](super::Config) beyond plain flags: the relations
//! `?expand=` may follow, the related paths of filters and ordering, full-text search and the count mode. Each is
//! re-exported by the module that acts on it ([`crate::embed`], [`crate::query`], [`crate::pagination`]).

use sea_orm::RelationDef;
use sea_orm::sea_query::ColumnType;

use crate::error::ApiError;
use crate::types::lookups::FilterLookup;
use crate::types::params::QueryParams;

/// One `expandable` entry: the name clients write in `?expand=` (and the key of the embedded value) and the
/// sea-orm relation it follows (the derive writes `|| Relation::Author.def()`, or for a name declared in
/// `relations(...)` the model's `Related` impl, checked at compile time).
#[derive(Debug, Clone, Copy)]
pub struct Expandable {
    /// `author`.
    pub name: &'static str,
    /// The relation from this ViewSet's model; through a join table, from the join table to the related model.
    pub relation: fn() -> RelationDef,
    /// A many-to-many relation's first hop, from this ViewSet's model to the join table (`Related::via`); `None`
    /// for a direct relation.
    pub via: fn() -> Option<RelationDef>,
}

/// `#[viewset(fulltext(fields = ["title", "body"], language = "english", sqlite_table = "posts_fts"))]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FullText {
    /// Text fields searched (checked at compile time like `search_fields`).
    pub fields: &'static [&'static str],
    /// PostgreSQL text search configuration (default [`FullText::DEFAULT_LANGUAGE`]), sent as a bound parameter.
    pub language: &'static str,
    /// The application's FTS5 table on SQLite.
    pub sqlite_table: Option<&'static str>,
}

impl FullText {
    /// `language` when the attribute leaves it out.
    pub const DEFAULT_LANGUAGE: &'static str = "english";
}

/// One related path of `filterable_fields` or `ordering_fields` (the derive writes one per distinct path).
#[derive(Debug, Clone, Copy)]
pub struct RelatedField {
    /// `author__name`: how clients write it.
    pub path: &'static str,
    /// `author`: the name declared in `relations(...)`.
    pub relation: &'static str,
    /// `name`: the field of the related model.
    pub field: &'static str,
    /// The relation from this ViewSet's model (`<Entity as Related<author::Entity>>::to`); through a join table,
    /// from the join table to the related model.
    pub def: fn() -> RelationDef,
    /// A many-to-many relation's first hop, from this ViewSet's model to the join table
    /// (`<Entity as Related<tag::Entity>>::via`); `None` for a direct relation.
    pub via: fn() -> Option<RelationDef>,
    /// The column type of a field of the related model (for the OpenAPI document).
    pub column_type: fn(&str) -> Option<ColumnType>,
}

impl RelatedField {
    /// The related path a filter parameter `key` names, with its lookup (`None`: not a lookup we know).
    pub fn find(related: &'static [RelatedField], key: &str) -> Option<(&'static RelatedField, Option<FilterLookup>)> {
        related.iter().find_map(|rf| {
            if key == rf.path {
                return Some((rf, Some(FilterLookup::Exact)));
            }
            let rest = key.strip_prefix(rf.path)?.strip_prefix("__")?;
            Some((rf, FilterLookup::from_name(rest)))
        })
    }
}

/// How a list finds the size of its filtered set (`?count=`).
///
/// ```
/// use viewset_core::pagination::CountMode;
/// use viewset_core::query::QueryParams;
/// assert_eq!(CountMode::from_query(&QueryParams::parse(None)).unwrap(), None);
/// assert_eq!(CountMode::from_query(&QueryParams::parse(Some("count=none"))).unwrap(), Some(CountMode::None));
/// assert!(CountMode::from_query(&QueryParams::parse(Some("count=fast"))).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum CountMode {
    /// `COUNT(*)` of the filtered set.
    Exact,
    /// The planner's estimate on PostgreSQL when it is large; exact otherwise.
    Estimated,
    /// No count query.
    None,
}

impl CountMode {
    /// The values of `?count=`.
    pub const VALUES: [&'static str; 3] = ["exact", "estimated", "none"];

    /// The mode's name, as `?count=` and `#[viewset(count_mode = "...")]` spell it.
    ///
    /// ```
    /// use viewset_core::pagination::CountMode;
    /// assert_eq!(CountMode::Estimated.name(), "estimated");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            CountMode::Exact => "exact",
            CountMode::Estimated => "estimated",
            CountMode::None => "none",
        }
    }

    /// The mode `?count=` asks for (`None` when absent); any other value is a 422 naming the choices.
    pub fn from_query(query: &QueryParams) -> Result<Option<CountMode>, ApiError> {
        Ok(match query.one("count")? {
            None => None,
            Some("exact") => Some(CountMode::Exact),
            Some("estimated") => Some(CountMode::Estimated),
            Some("none") => Some(CountMode::None),
            Some(_) => {
                let msg = format!("Must be one of: {}", Self::VALUES.join(", "));
                return Err(ApiError::input(["query", "count"], msg, "invalid_choice"));
            }
        })
    }
}

/// `#[viewset(bulk, max_bulk = 500)]`: which writes take many records at once, and how many. Off unless written.
/// `bulk` (or `bulk = true`) turns on all three; `bulk(create)`, `bulk(update)`, `bulk(delete)` (or any of them
/// together) the named ones. Bulk create is `POST <prefix>/bulk` with a JSON array, bulk update `PATCH <prefix>/bulk`
/// with a JSON array of partial records naming their keys, bulk delete `DELETE <prefix>/bulk?<lookup>__in=1,2,3`
/// ([`crate::handlers::bulk`]).
///
/// ```
/// use viewset_core::viewset::Bulk;
/// assert!(!Bulk::OFF.create && !Bulk::OFF.update && !Bulk::OFF.delete);
/// let all = Bulk { create: true, update: true, delete: true, max: Bulk::DEFAULT_MAX, upsert_keys: &["slug"] };
/// assert_eq!(all.max, 1000);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bulk {
    /// `POST <prefix>/bulk` accepts an array of records.
    pub create: bool,
    /// `PATCH <prefix>/bulk` accepts an array of partial records, each naming its lookup field.
    pub update: bool,
    /// `DELETE <prefix>/bulk?<lookup>__in=...` is a route.
    pub delete: bool,
    /// The most records (or keys) one request may name (`max_bulk`, default [`Bulk::DEFAULT_MAX`]).
    pub max: usize,
    /// `upsert_keys`: the unique fields `POST <prefix>/upsert?on_conflict=<field>` may name: a record whose key
    /// exists is updated (or, with `Prefer: resolution=ignore-duplicates`, skipped), the others created
    /// ([`crate::handlers::upsert`]). Empty: no upsert route.
    pub upsert_keys: &'static [&'static str],
}

impl Bulk {
    /// `max_bulk` when the attributes leave it out.
    pub const DEFAULT_MAX: usize = 1000;
    /// No bulk route: what a ViewSet without `bulk` has.
    pub const OFF: Bulk =
        Bulk { create: false, update: false, delete: false, max: Bulk::DEFAULT_MAX, upsert_keys: &[] };
}

/// `#[viewset(writable_relations = ["author", "posts"], max_nested_depth = 2, max_nested_rows = 100)]`: the
/// `expandable` relations a single create (`POST <prefix>/` with an object body) may write along with the record,
/// in one transaction ([`crate::viewset::nested`]). Off (no relation writable) unless written.
///
/// ```
/// use viewset_core::viewset::Nested;
/// assert!(Nested::OFF.writable.is_empty());
/// let nested = Nested::new(&["author", "posts"], Nested::DEFAULT_MAX_DEPTH, 10);
/// assert_eq!((nested.max_depth, nested.max_rows), (2, 10));
/// assert!(nested.allows("posts") && !nested.allows("tags"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Nested {
    /// `writable_relations`: names of `expandable` relations a create body may carry.
    pub writable: &'static [&'static str],
    /// `max_nested_depth`: how many relations deep a body may nest (default [`Nested::DEFAULT_MAX_DEPTH`]): the
    /// record's own relations are level 1, theirs level 2.
    pub max_depth: usize,
    /// `max_nested_rows`: the most related rows (created or referenced) one request may name (default
    /// [`Nested::DEFAULT_MAX_ROWS`]).
    pub max_rows: usize,
}

impl Nested {
    /// `max_nested_depth` when the attribute leaves it out.
    pub const DEFAULT_MAX_DEPTH: usize = 2;
    /// `max_nested_rows` when the attribute leaves it out.
    pub const DEFAULT_MAX_ROWS: usize = 100;
    /// No writable relation: what a ViewSet without `writable_relations` has.
    pub const OFF: Nested =
        Nested { writable: &[], max_depth: Nested::DEFAULT_MAX_DEPTH, max_rows: Nested::DEFAULT_MAX_ROWS };

    /// The declaration as the derive spells it.
    pub const fn new(writable: &'static [&'static str], max_depth: usize, max_rows: usize) -> Nested {
        Nested { writable, max_depth, max_rows }
    }

    /// Whether a create body may write the relation `name`.
    pub fn allows(&self, name: &str) -> bool {
        self.writable.contains(&name)
    }
}

/// Which fields clients may order by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderingFields {
    /// `ordering_fields = "__all__"`: every column (discouraged; the derive warns).
    All,
    /// An explicit allowlist (may be empty: no client ordering).
    Only(&'static [&'static str]),
}

impl OrderingFields {
    /// Whether `field` may be ordered by.
    ///
    /// ```
    /// use viewset_core::viewset::OrderingFields;
    /// assert!(OrderingFields::Only(&["id"]).allows("id"));
    /// assert!(!OrderingFields::Only(&["id"]).allows("title"));
    /// ```
    pub fn allows(&self, field: &str) -> bool {
        match self {
            OrderingFields::All => true,
            OrderingFields::Only(list) => list.contains(&field),
        }
    }

    /// Whether an allowlist exists (`__all__` or at least one field). Without one, `?ordering=` is not a
    /// parameter of the API and the class `ordering` stays the default (spec).
    ///
    /// ```
    /// use viewset_core::viewset::OrderingFields;
    /// assert!(!OrderingFields::Only(&[]).exists());
    /// assert!(OrderingFields::All.exists() && OrderingFields::Only(&["id"]).exists());
    /// ```
    pub fn exists(&self) -> bool {
        !matches!(self, OrderingFields::Only([]))
    }
}

/// Sort direction of one ordering term.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Ascending (`field`).
    Asc,
    /// Descending (`-field`).
    Desc,
}

impl Direction {
    /// The other direction.
    ///
    /// ```
    /// assert_eq!(viewset_core::viewset::Direction::Asc.reversed(), viewset_core::viewset::Direction::Desc);
    /// ```
    pub fn reversed(self) -> Self {
        match self {
            Direction::Asc => Direction::Desc,
            Direction::Desc => Direction::Asc,
        }
    }
}

/// `#[viewset(aggregates(group_by = [...], sum = [...], avg = [...], min = [...], max = [...],
/// count_distinct = [...], max_groups = N))]`: what `GET <prefix>/aggregate` may group by and compute
/// ([`crate::aggregate`]). Off unless written (`None` in [`Config::aggregates`](crate::Config::aggregates)). Every
/// name is a field of the model, checked at compile time; `sum` and `avg` name numeric fields, `min` and `max`
/// fields with an order (numbers, text, dates and times).
///
/// ```
/// use viewset_core::aggregate::Aggregates;
/// const POSTS: Aggregates = Aggregates {
///     group_by: &["author_id", "published", "created_at"],
///     sum: &["views"],
///     avg: &["rating", "views"],
///     ..Aggregates::NONE
/// };
/// assert!(POSTS.allows("sum", "views") && !POSTS.allows("sum", "rating"));
/// assert_eq!(POSTS.max_groups, Aggregates::DEFAULT_MAX_GROUPS);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Aggregates {
    /// Fields a request may group by (`group_by=author_id,created_at__month`); a date or time field also by its
    /// time buckets.
    pub group_by: &'static [&'static str],
    /// Numeric fields `sum=` may name.
    pub sum: &'static [&'static str],
    /// Numeric fields `avg=` may name.
    pub avg: &'static [&'static str],
    /// Ordered fields `min=` may name.
    pub min: &'static [&'static str],
    /// Ordered fields `max=` may name.
    pub max: &'static [&'static str],
    /// Fields `count_distinct=` may name.
    pub count_distinct: &'static [&'static str],
    /// The most groups one answer holds (`max_groups`, default [`Aggregates::DEFAULT_MAX_GROUPS`]): the default and
    /// the largest `limit`; an answer cut there says `"truncated": true`.
    pub max_groups: u64,
}

impl Aggregates {
    /// `max_groups` when the attribute leaves it out.
    pub const DEFAULT_MAX_GROUPS: u64 = 1000;
    /// Nothing declared: the base of a declaration written with `..Aggregates::NONE`.
    pub const NONE: Aggregates = Aggregates {
        group_by: &[],
        sum: &[],
        avg: &[],
        min: &[],
        max: &[],
        count_distinct: &[],
        max_groups: Aggregates::DEFAULT_MAX_GROUPS,
    };

    /// The fields the parameter `kind` (`group_by`, `sum`, `avg`, `min`, `max`, `count_distinct`) may name.
    ///
    /// ```
    /// use viewset_core::aggregate::Aggregates;
    /// let declared = Aggregates { min: &["views"], ..Aggregates::NONE };
    /// assert_eq!(declared.fields("min"), ["views"]);
    /// assert!(declared.fields("median").is_empty());
    /// ```
    pub fn fields(&self, kind: &str) -> &'static [&'static str] {
        match kind {
            "group_by" => self.group_by,
            "sum" => self.sum,
            "avg" => self.avg,
            "min" => self.min,
            "max" => self.max,
            "count_distinct" => self.count_distinct,
            _ => &[],
        }
    }

    /// Whether the parameter `kind` may name `field`.
    ///
    /// ```
    /// use viewset_core::aggregate::Aggregates;
    /// let declared = Aggregates { group_by: &["author_id"], ..Aggregates::NONE };
    /// assert!(declared.allows("group_by", "author_id") && !declared.allows("sum", "author_id"));
    /// ```
    pub fn allows(&self, kind: &str, field: &str) -> bool {
        self.fields(kind).contains(&field)
    }
}
