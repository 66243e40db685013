//! The writable relations a nested create body names, resolved to the ViewSets serving them ([`Link`]), and the
//! body's shape and bounds checked before anything is written ([`measure`]): each relation's value of the right
//! kind, at most `max_nested_depth` relations deep, at most `max_nested_rows` related rows.

use sea_orm::RelationType;
use serde_json::{Map, Value as Json};

use crate::error::ApiError;
use crate::request::embedders::Embedders;
use crate::request::nested::Writer;
use crate::request::registry::{Hop, Junction};

/// How a relation is written.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The record holds the foreign key: the related row first.
    ToOne,
    /// The related rows hold the key: after the record.
    ToMany,
    /// Through a join table: the related rows, then the links.
    ManyToMany,
}

/// One writable relation a body names, resolved.
pub(crate) struct Link {
    pub(crate) name: &'static str,
    pub(crate) kind: Kind,
    /// The column of the writing model (to-one: its foreign key; otherwise its key).
    pub(crate) from: String,
    /// The column of the related model (to-one and many-to-many: its key; to-many: its foreign key).
    pub(crate) to: String,
    pub(crate) target: &'static Writer,
    pub(crate) junction: Option<Junction>,
}

/// A 422 at `path` (under `["body"]`).
pub(crate) fn at(path: &[String], msg: impl Into<String>, kind: &str) -> ApiError {
    ApiError::input(std::iter::once("body".to_string()).chain(path.iter().cloned()), msg, kind)
}

/// `path` and one more segment.
pub(crate) fn joined(path: &[String], segment: impl ToString) -> Vec<String> {
    let mut out = path.to_vec();
    out.push(segment.to_string());
    out
}

/// The writable relations of `writer` that `body` names, in their declared order.
pub(crate) fn links(
    writer: &Writer,
    body: &Map<String, Json>,
    embedders: Option<&Embedders>,
    path: &[String],
) -> Result<Vec<Link>, ApiError> {
    let mut out = Vec::new();
    for &name in writer.config.nested.writable {
        if !body.contains_key(name) {
            continue;
        }
        let at_name = joined(path, name);
        let Some(entry) = writer.config.expandable.iter().find(|e| e.name == name) else { continue };
        let def = (entry.relation)();
        let unavailable = || {
            at(
                &at_name,
                format!("`{name}` cannot be written here: no ViewSet serving its table is registered with this API"),
                "nested_unavailable",
            )
        };
        let hop = Hop::of(&def, (entry.via)(), embedders).map_err(|_| unavailable())?;
        let target = hop.target.writer.ok_or_else(unavailable)?;
        // A `belongs_to` relation is a `HasOne` that does not own the key; a `has_one` owns it (the related row
        // holds this one's key).
        let kind = match (&hop.junction, hop.many, def.rel_type == RelationType::HasOne && def.is_owner) {
            (Some(_), _, _) => Kind::ManyToMany,
            (None, true, _) => Kind::ToMany,
            (None, false, true) => {
                let msg = format!("`{name}` is a has-one relation: not writable yet");
                return Err(at(&at_name, msg, "nested_unavailable"));
            }
            (None, false, false) => Kind::ToOne,
        };
        let (from, to) = (hop.from_col.to_string(), hop.to_col.to_string());
        out.push(Link { name, kind, from, to, target, junction: hop.junction });
    }
    Ok(out)
}

/// Checks the shape and bounds of a nested body before anything is written: every relation value of the right
/// kind, at most `max_depth` relations deep, at most `max_rows` related rows. Returns the relation paths written
/// (what the answer embeds).
pub(crate) fn measure(
    root: &'static Writer,
    body: &Map<String, Json>,
    embedders: Option<&Embedders>,
) -> Result<Vec<Vec<&'static str>>, ApiError> {
    let mut walk = Walk {
        max_depth: root.config.nested.max_depth,
        max_rows: root.config.nested.max_rows,
        rows: 0,
        paths: Vec::new(),
    };
    walk.record(root, body, embedders, &[], &[])?;
    Ok(walk.paths)
}

/// The operations a PATCH body may send for a relation: `{"add": [...]}`, `{"remove": [...]}`, `{"set": [...]}`.
pub(crate) const OPERATIONS: [&str; 3] = ["set", "add", "remove"];

/// [`measure`] for a PATCH body's `relations`: each a to-many or many-to-many relation whose value is an object of
/// [`OPERATIONS`], each an array; a to-many relation only adds (new records: an implicit delete of the children
/// the client did not name is never done, and `remove` would delete them); `set` not with `add` or `remove`.
pub(crate) fn measure_update(
    root: &'static Writer,
    relations: &Map<String, Json>,
    embedders: Option<&Embedders>,
) -> Result<Vec<Vec<&'static str>>, ApiError> {
    let mut walk = Walk {
        max_depth: root.config.nested.max_depth,
        max_rows: root.config.nested.max_rows,
        rows: 0,
        paths: Vec::new(),
    };
    for link in links(root, relations, embedders, &[])? {
        let here = joined(&[], link.name);
        let Json::Object(operations) = &relations[link.name] else {
            let msg = "Expected the changes of the relation: {\"add\": [...]}, {\"remove\": [...]} or {\"set\": [...]}";
            return Err(at(&here, msg, "nested_expected_operations"));
        };
        if link.kind == Kind::ToOne {
            let msg = format!("`{}` is changed through its foreign key in an update", link.name);
            return Err(at(&here, msg, "nested_unavailable"));
        }
        if operations.contains_key("set") && operations.len() > 1 {
            return Err(at(&here, "`set` replaces the links: send it alone", "nested_expected_operations"));
        }
        for (operation, items) in operations {
            let at_operation = joined(&here, operation);
            if !OPERATIONS.contains(&operation.as_str()) {
                let msg = "Expected `add`, `remove` or `set`";
                return Err(at(&at_operation, msg, "nested_expected_operations"));
            }
            if link.kind == Kind::ToMany && operation != "add" {
                let msg = format!(
                    "`{operation}` would delete children of this record: delete them through their own route, or \
                     `add` new ones"
                );
                return Err(at(&at_operation, msg, "nested_unavailable"));
            }
            let Json::Array(items) = items else {
                return Err(at(&at_operation, "Expected an array", "nested_expected_array"));
            };
            for (index, item) in items.iter().enumerate() {
                let here = joined(&at_operation, index);
                match (link.kind, item) {
                    (_, Json::Object(object)) if operation != "remove" => {
                        walk.row(&link, object, embedders, &here, &[link.name])?
                    }
                    (Kind::ManyToMany, Json::Number(_) | Json::String(_)) => walk.count(1)?,
                    (Kind::ManyToMany, _) => return Err(at(&here, "Expected a key", "invalid_key")),
                    _ => return Err(at(&here, "Expected an object", "nested_expected_object")),
                }
            }
        }
        walk.paths.push(vec![link.name]);
    }
    Ok(walk.paths)
}

/// [`measure`]'s state.
struct Walk {
    max_depth: usize,
    max_rows: usize,
    rows: usize,
    paths: Vec<Vec<&'static str>>,
}

impl Walk {
    fn record(
        &mut self,
        writer: &'static Writer,
        body: &Map<String, Json>,
        embedders: Option<&Embedders>,
        path: &[String],
        names: &[&'static str],
    ) -> Result<(), ApiError> {
        for link in links(writer, body, embedders, path)? {
            let here = joined(path, link.name);
            if names.len() + 1 > self.max_depth {
                let msg =
                    format!("nested {} relations deep; at most {} (max_nested_depth)", names.len() + 1, self.max_depth);
                return Err(at(&here, msg, "nested_too_deep"));
            }
            let names = [names, &[link.name]].concat();
            let value = &body[link.name];
            match (link.kind, value) {
                (Kind::ToOne, Json::Object(object)) => self.row(&link, object, embedders, &here, &names)?,
                (Kind::ToOne, Json::Number(_) | Json::String(_)) => self.count(1)?,
                (Kind::ToOne, _) => return Err(at(&here, "Expected a key or an object", "invalid_key")),
                (_, Json::Array(items)) => {
                    for (index, item) in items.iter().enumerate() {
                        let here = joined(&here, index);
                        match (link.kind, item) {
                            (_, Json::Object(object)) => self.row(&link, object, embedders, &here, &names)?,
                            (Kind::ManyToMany, Json::Number(_) | Json::String(_)) => self.count(1)?,
                            (Kind::ManyToMany, _) => {
                                return Err(at(&here, "Expected a key or an object", "invalid_key"));
                            }
                            _ => return Err(at(&here, "Expected an object", "nested_expected_object")),
                        }
                    }
                }
                _ => return Err(at(&here, "Expected an array", "nested_expected_array")),
            }
            if !self.paths.contains(&names) {
                self.paths.push(names);
            }
        }
        Ok(())
    }

    fn row(
        &mut self,
        link: &Link,
        object: &Map<String, Json>,
        embedders: Option<&Embedders>,
        here: &[String],
        names: &[&'static str],
    ) -> Result<(), ApiError> {
        self.count(1)?;
        self.record(link.target, object, embedders, here, names)
    }

    fn count(&mut self, rows: usize) -> Result<(), ApiError> {
        self.rows += rows;
        if self.rows > self.max_rows {
            let msg = format!("More than {} related rows in one request (max_nested_rows)", self.max_rows);
            return Err(at(&[], msg, "too_many_nested_rows"));
        }
        Ok(())
    }
}
