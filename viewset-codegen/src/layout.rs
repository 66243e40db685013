//! The supported layout — the one `viewset new` writes — and the edits that register new pieces in it:
//!
//! | file | holds | edited by |
//! |---|---|---|
//! | `src/lib.rs` | `pub mod entities; pub mod migration; pub mod viewsets;` and `pub fn api()` with `api.include::<viewsets::X>()?;` | `new_resource` (`pub mod entities;` when absent, one `include` line) |
//! | `src/entities.rs`, `src/entities/<table>.rs` | every entity, the first one included (`pub mod <table>;` each) | `new_resource` (also the other side of its relations, and join tables), `add_column` |
//! | `src/entity.rs` | the first entity of a project written before `viewset new` used `src/entities/` | `add_column`, `new_resource` (the other side of a relation) |
//! | `src/migration.rs` | `Migrator` with `vec![...]` in `fn migrations()`; `mod m<YYYYMMDD>_<NNNNNN>_...;` lines | both (one file per migration in `src/migration/`) |
//! | `src/viewsets.rs` | the ViewSets (`use viewset_core::prelude::*;`) | `new_resource`, `add_to_allowlist` |

use super::errors::CodegenError;
use super::rust_text::{ModelField, Source, indent_at, model_fields, table_name};
use super::workspace::Workspace;

pub(crate) const LIB: &str = "src/lib.rs";
pub(crate) const MIGRATION: &str = "src/migration.rs";
pub(crate) const VIEWSETS: &str = "src/viewsets.rs";
pub(crate) const ENTITY: &str = "src/entity.rs";
pub(crate) const ENTITIES: &str = "src/entities.rs";

fn unsupported(path: &str, what: &str) -> CodegenError {
    CodegenError::UnsupportedLayout(format!(
        "`{path}` does not have {what}: the generator edits projects laid out as `viewset new` writes them \
         (see viewset-cli/templates); edit this project by hand"
    ))
}

/// An entity of the project.
#[derive(Debug, Clone)]
pub(crate) struct Entity {
    /// Its file.
    pub(crate) path: String,
    /// Its module path from the crate root (`crate::entity`, `crate::entities::tags`).
    pub(crate) module: String,
    pub(crate) table: String,
    pub(crate) fields: Vec<ModelField>,
}

impl Entity {
    /// The field `name`.
    pub(crate) fn field(&self, name: &str) -> Option<&ModelField> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The field names, for messages.
    pub(crate) fn field_names(&self) -> String {
        self.fields.iter().map(|f| f.name.as_str()).collect::<Vec<_>>().join(", ")
    }
}

/// Checks the files every operation relies on.
pub(crate) fn check(ws: &mut Workspace) -> Result<(), CodegenError> {
    let lib = ws.require(LIB, "registering modules and ViewSets")?;
    let source = Source::new(&lib);
    for needed in ["pub mod migration;", "pub mod viewsets;", "pub fn api("] {
        if source.find(needed, 0).is_none() {
            return Err(unsupported(LIB, &format!("`{needed}`")));
        }
    }
    let migration = ws.require(MIGRATION, "registering migrations")?;
    if Source::new(&migration).find("impl MigratorTrait for Migrator", 0).is_none() {
        return Err(unsupported(MIGRATION, "`impl MigratorTrait for Migrator`"));
    }
    let viewsets = ws.require(VIEWSETS, "ViewSets")?;
    if Source::new(&viewsets).find("use viewset_core::prelude::*;", 0).is_none() {
        return Err(unsupported(VIEWSETS, "`use viewset_core::prelude::*;`"));
    }
    Ok(())
}

/// The modules listed in `src/entities.rs` (`pub mod tags;` → `tags`).
fn entity_modules(text: &str) -> Vec<String> {
    let source = Source::new(text);
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(found) = source.find("pub mod ", at) {
        at = found + 8;
        let name: String = text[at..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if text[at + name.len()..].trim_start().starts_with(';') {
            out.push(name);
        }
    }
    out
}

/// Every entity: `src/entity.rs` and those `src/entities.rs` lists.
pub(crate) fn entities(ws: &mut Workspace) -> Result<Vec<Entity>, CodegenError> {
    let mut files = vec![(ENTITY.to_string(), "crate::entity".to_string())];
    if let Some(list) = ws.read(ENTITIES)? {
        for module in entity_modules(&list) {
            files.push((format!("src/entities/{module}.rs"), format!("crate::entities::{module}")));
        }
    }
    let mut out = Vec::new();
    for (path, module) in files {
        let Some(text) = ws.read(&path)? else { continue };
        let source = Source::new(&text);
        let (Some(table), Some((fields, _))) = (table_name(&source), model_fields(&source)) else { continue };
        out.push(Entity { path, module, table, fields });
    }
    Ok(out)
}

/// The entity a ViewSet's `model = <path>::Entity` names (`entity::Entity`, `crate::entities::tags::Entity`, or
/// `tags::Entity` for `crate::entities::tags`).
pub(crate) fn entity_of_model<'a>(entities: &'a [Entity], model: &str) -> Option<&'a Entity> {
    let model: String = model.split_whitespace().collect();
    let module = model.strip_suffix("::Entity")?;
    let module = module.strip_prefix("crate::").unwrap_or(module);
    let exact = entities.iter().find(|e| e.module.strip_prefix("crate::") == Some(module));
    // `category::Entity` after `use crate::entities::category;` (as `viewset new` writes the first ViewSet).
    exact.or_else(|| entities.iter().find(|e| e.module.ends_with(&format!("::entities::{module}"))))
}

/// `text` with the line `<prefix><module>;` among its top-level `<prefix>...;` lines, in name order (as rustfmt
/// orders them); `None` when it has no such line.
fn insert_mod_line(text: &str, prefix: &str, module: &str) -> Option<String> {
    let source = Source::new(text);
    let mut lines = Vec::new();
    let mut at = 0;
    while let Some(found) = source.find(prefix, at) {
        at = found + 1;
        if found == 0 || text[..found].ends_with('\n') {
            let end = found + text[found..].find(';')? + 1;
            lines.push((text[found + prefix.len()..end - 1].trim().to_string(), found, end));
        }
    }
    let line = format!("{prefix}{module};");
    match lines.iter().find(|(name, _, _)| name.as_str() > module) {
        Some((_, start, _)) => Some(format!("{}{line}\n{}", &text[..*start], &text[*start..])),
        None => lines.last().map(|(_, _, end)| format!("{}\n{line}{}", &text[..*end], &text[*end..])),
    }
}

/// `lib.rs` with `pub mod <module>;` among its `pub mod` lines (unchanged when present).
pub(crate) fn add_lib_module(text: &str, module: &str) -> Result<String, CodegenError> {
    if Source::new(text).find(&format!("pub mod {module};"), 0).is_some() {
        return Ok(text.to_string());
    }
    insert_mod_line(text, "pub mod ", module).ok_or_else(|| unsupported(LIB, "`pub mod` lines"))
}

/// `lib.rs` with `api.include::<viewsets::Name>()?;` after the last `api.include` of `fn api()`.
pub(crate) fn add_include(text: &str, viewset: &str) -> Result<String, CodegenError> {
    let source = Source::new(text);
    let api = source.find("pub fn api(", 0).ok_or_else(|| unsupported(LIB, "`pub fn api()`"))?;
    let open = source.find("{", api).ok_or_else(|| unsupported(LIB, "a body for `api()`"))?;
    let close = source.matching(open).ok_or_else(|| unsupported(LIB, "a closed body for `api()`"))?;
    let mut last = None;
    let mut at = open;
    while let Some(found) = source.find("api.include::<", at).filter(|&f| f < close) {
        at = found + 1;
        last = Some(found);
    }
    let last = last.ok_or_else(|| unsupported(LIB, "`api.include::<...>()?;` in `api()`"))?;
    let end = source.find(";", last).filter(|&e| e < close).ok_or_else(|| unsupported(LIB, "`;` after include"))?;
    let indent = indent_at(text, last);
    Ok(format!("{}\n{indent}api.include::<viewsets::{viewset}>()?;{}", &text[..=end], &text[end + 1..]))
}

/// `src/entities.rs` listing `module` (created when absent).
pub(crate) fn add_entity_module(text: Option<&str>, module: &str) -> String {
    match text {
        None => {
            format!("//! The entities added by the code generator, one module per table.\n\npub mod {module};\n")
        }
        Some(text) if entity_modules(text).iter().any(|m| m == module) => text.to_string(),
        Some(text) => insert_mod_line(text, "pub mod ", module)
            .unwrap_or_else(|| format!("{}\n\npub mod {module};\n", text.trim_end())),
    }
}

/// The number of the project's own migrations in the `Migrator`'s list: the framework's
/// (`Box::new(viewset_core::idempotency::Migration)`, first in a new project's list) are not numbered.
pub(crate) fn migration_count(text: &str) -> Result<usize, CodegenError> {
    let source = Source::new(text);
    let (open, close) = migrations_vec(&source)?;
    let items = source.split_items(open + 1..close);
    Ok(items.into_iter().filter(|item| !text[item.clone()].trim_start().starts_with("Box::new(viewset_core::")).count())
}

fn migrations_vec(source: &Source) -> Result<(usize, usize), CodegenError> {
    let f = source.find("fn migrations()", 0).ok_or_else(|| unsupported(MIGRATION, "`fn migrations()`"))?;
    let vec = source.find("vec![", f).ok_or_else(|| unsupported(MIGRATION, "`vec![...]` in `fn migrations()`"))?;
    let open = vec + 4;
    let close = source.matching(open).ok_or_else(|| unsupported(MIGRATION, "a closed `vec![...]`"))?;
    Ok((open, close))
}

/// `migration.rs` with `mod <module>;` and `Box::new(<module>::Migration)` at the end of the `Migrator`'s list.
pub(crate) fn add_migration(text: &str, module: &str) -> Result<String, CodegenError> {
    let source = Source::new(text);
    let (open, close) = migrations_vec(&source)?;
    let mut items: Vec<String> = source.split_items(open + 1..close).into_iter().map(|r| text[r].to_string()).collect();
    items.push(format!("Box::new({module}::Migration)"));
    let indent = indent_at(text, open);
    let one_line = format!("[{}]", items.join(", "));
    let line_start = text[..open].rfind('\n').map_or(0, |p| p + 1);
    // As rustfmt formats the templates (max_width 120, use_small_heuristics "Max"): one line when it fits.
    let fits = open - line_start + one_line.len() <= 120;
    let list = if fits && !items.iter().any(|i| i.contains('\n')) {
        one_line
    } else {
        let inner: String = items.iter().map(|i| format!("{indent}    {i},\n")).collect();
        format!("[\n{inner}{indent}]")
    };
    let with_list = format!("{}{list}{}", &text[..open], &text[close + 1..]);
    // `mod <module>;` among the top-level `mod` lines, else after the first `use` statement.
    if let Some(done) = insert_mod_line(&with_list, "mod ", module) {
        return Ok(done);
    }
    let source = Source::new(&with_list);
    let first_use = source.find("use ", 0).ok_or_else(|| unsupported(MIGRATION, "a `use` statement"))?;
    let end = source.find(";", first_use).ok_or_else(|| unsupported(MIGRATION, "a `use` statement"))? + 1;
    Ok(format!("{}\n\nmod {module};{}", &with_list[..end], &with_list[end..]))
}

/// A free migration module name `m<YYYYMMDD>_<NNNNNN>_<suffix>` (today's date in UTC, then the migration's position
/// in the list after the `count` already there): one file per migration, each with its own name, so
/// `DeriveMigrationName` (which names a migration after its file) never gives two the same `seaql_migrations` row.
pub(crate) fn migration_module(ws: &mut Workspace, count: usize, suffix: &str) -> Result<String, CodegenError> {
    let date = today_utc();
    let mut n = count + 1;
    loop {
        let module = migration_name(&date, n, suffix);
        if ws.read(&format!("src/migration/{module}.rs"))?.is_none() {
            return Ok(module);
        }
        n += 1;
    }
}

/// The name of the `n`th migration (from 1), written on `date` (`YYYYMMDD`): `m20261127_000001_create_products`.
/// `viewset new` names its first migration with it, the generator every later one.
pub fn migration_name(date: &str, n: usize, suffix: &str) -> String {
    format!("m{date}_{n:06}_{suffix}")
}

/// Today's date in UTC as `YYYYMMDD` (the civil date of the Unix day, proleptic Gregorian).
pub fn today_utc() -> String {
    let seconds = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    civil_date(seconds / 86_400)
}

/// `YYYYMMDD` of the day `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
fn civil_date(days: u64) -> String {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    format!("{year:04}{month:02}{day:02}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn civil_dates() {
        assert_eq!(super::civil_date(0), "19700101");
        assert_eq!(super::civil_date(11_016), "20000229");
        assert_eq!(super::civil_date(19_782), "20240229");
        assert_eq!(super::civil_date(20_784), "20261127");
        assert_eq!(super::migration_name("20261127", 1, "create_products"), "m20261127_000001_create_products");
    }
}
