//! Just enough of Rust's lexical structure to edit source text safely: which bytes are code (not a string, a
//! character literal or a comment), matching brackets, top-level comma-separated items, and the items of a
//! `#[viewset(...)]` attribute with the struct it decorates. No parser: the edits splice text, so everything the
//! generator does not touch stays byte for byte as the developer wrote it.

use std::ops::Range;

/// The text with a per-byte flag: `true` where the byte is code.
pub(crate) struct Source<'a> {
    pub(crate) text: &'a str,
    code: Vec<bool>,
}

impl<'a> Source<'a> {
    /// Classifies every byte of `text`.
    pub(crate) fn new(text: &'a str) -> Self {
        let bytes = text.as_bytes();
        let mut code = vec![true; bytes.len()];
        let mut i = 0;
        let mark = |from: usize, to: usize, code: &mut Vec<bool>| code[from..to.min(bytes.len())].fill(false);
        while i < bytes.len() {
            let rest = &bytes[i..];
            let end = if rest.starts_with(b"//") {
                i + rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len())
            } else if rest.starts_with(b"/*") {
                block_comment_end(bytes, i)
            } else if let Some(hashes) = raw_string_start(bytes, i) {
                raw_string_end(bytes, i, hashes)
            } else if rest[0] == b'"' || (rest.starts_with(b"b\"") && !ident_before(bytes, i)) {
                string_end(bytes, i + usize::from(rest[0] == b'b') + 1)
            } else if rest[0] == b'\'' {
                char_literal_end(text, i).unwrap_or(i + 1)
            } else {
                i += 1;
                continue;
            };
            if rest[0] != b'\'' || end > i + 1 {
                mark(i, end, &mut code);
            }
            i = end.max(i + 1);
        }
        Source { text, code }
    }

    /// Whether the byte at `i` is code.
    pub(crate) fn is_code(&self, i: usize) -> bool {
        self.code.get(i).copied().unwrap_or(false)
    }

    /// The first occurrence of `pattern` at or after `from` that starts in code.
    pub(crate) fn find(&self, pattern: &str, from: usize) -> Option<usize> {
        let mut at = from;
        while let Some(found) = self.text.get(at..)?.find(pattern) {
            if self.is_code(at + found) {
                return Some(at + found);
            }
            at += found + 1;
        }
        None
    }

    /// The closing bracket that matches the opening one at `open` (`(`, `[` or `{`), counting code only.
    pub(crate) fn matching(&self, open: usize) -> Option<usize> {
        let bytes = self.text.as_bytes();
        let mut depth = 0usize;
        for (i, &b) in bytes.iter().enumerate().skip(open) {
            if !self.is_code(i) {
                continue;
            }
            match b {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// The comma-separated items of `range` (inside brackets), each trimmed of whitespace; empty items (a
    /// trailing comma) are left out.
    pub(crate) fn split_items(&self, range: Range<usize>) -> Vec<Range<usize>> {
        let bytes = self.text.as_bytes();
        let (mut items, mut depth, mut start) = (Vec::new(), 0i32, range.start);
        for i in range.clone() {
            if !self.is_code(i) {
                continue;
            }
            match bytes[i] {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => depth -= 1,
                b',' if depth == 0 => {
                    items.push(start..i);
                    start = i + 1;
                }
                _ => {}
            }
        }
        items.push(start..range.end);
        items.into_iter().map(|r| self.trim(r)).filter(|r| !r.is_empty()).collect()
    }

    /// `range` without leading and trailing whitespace.
    pub(crate) fn trim(&self, range: Range<usize>) -> Range<usize> {
        let slice = &self.text[range.clone()];
        let start = range.start + (slice.len() - slice.trim_start().len());
        let end = range.end - (slice.len() - slice.trim_end().len());
        start..end.max(start)
    }

    /// `range` without the attributes (`#[...]`), doc comments and comments that lead it.
    pub(crate) fn skip_attributes(&self, range: Range<usize>) -> Range<usize> {
        let mut start = range.start;
        loop {
            let trimmed = self.trim(start..range.end);
            start = trimmed.start;
            if start >= range.end {
                return range.end..range.end;
            }
            if !self.is_code(start) {
                start = (start..range.end).find(|&i| self.is_code(i)).unwrap_or(range.end);
            } else if self.text[start..].starts_with("#[") {
                match self.matching(start + 1) {
                    Some(close) => start = close + 1,
                    None => return range.end..range.end,
                }
            } else {
                return start..range.end;
            }
        }
    }
}

fn ident_before(bytes: &[u8], i: usize) -> bool {
    i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_')
}

fn block_comment_end(bytes: &[u8], start: usize) -> usize {
    let (mut depth, mut i) = (0usize, start);
    while i + 1 < bytes.len() {
        if bytes[i] == b'/' && bytes[i + 1] == b'*' {
            depth += 1;
            i += 2;
        } else if bytes[i] == b'*' && bytes[i + 1] == b'/' {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    bytes.len()
}

/// The number of `#` of a raw string (`r"`, `r#"`, `br##"`) starting at `i`.
fn raw_string_start(bytes: &[u8], i: usize) -> Option<usize> {
    if ident_before(bytes, i) {
        return None;
    }
    let mut j = i + usize::from(bytes.get(i) == Some(&b'b'));
    if bytes.get(j) != Some(&b'r') {
        return None;
    }
    j += 1;
    let hashes = bytes[j..].iter().take_while(|&&b| b == b'#').count();
    (bytes.get(j + hashes) == Some(&b'"')).then_some(hashes)
}

fn raw_string_end(bytes: &[u8], i: usize, hashes: usize) -> usize {
    let open = i + bytes[i..].iter().position(|&b| b == b'"').unwrap_or(0) + 1;
    let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
    bytes[open..]
        .windows(close.len())
        .position(|w| w == close.as_slice())
        .map_or(bytes.len(), |p| open + p + close.len())
}

fn string_end(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The end of a character literal at `i` (`'a'`, `'\n'`, `'\u{1F600}'`), or `None` for a lifetime (`'a`).
fn char_literal_end(text: &str, i: usize) -> Option<usize> {
    let rest = &text[i + 1..];
    if let Some(escaped) = rest.strip_prefix('\\') {
        return escaped.find('\'').map(|p| i + 2 + p + 1);
    }
    let c = rest.chars().next()?;
    rest[c.len_utf8()..].starts_with('\'').then(|| i + 1 + c.len_utf8() + 1)
}

/// One `key = value` item of an attribute.
#[derive(Debug, Clone)]
pub(crate) struct Item {
    pub(crate) key: String,
    /// The whole item.
    pub(crate) range: Range<usize>,
    /// The value after `=` (empty at the item's end for a bare flag).
    pub(crate) value: Range<usize>,
}

/// A `#[viewset(...)]` attribute and the struct it decorates.
#[derive(Debug, Clone)]
pub(crate) struct ViewSetDecl {
    /// The struct's name.
    pub(crate) name: String,
    /// Between the attribute's parentheses.
    pub(crate) inner: Range<usize>,
    pub(crate) items: Vec<Item>,
}

impl ViewSetDecl {
    /// The item `key`.
    pub(crate) fn item(&self, key: &str) -> Option<&Item> {
        self.items.iter().find(|i| i.key == key)
    }
}

/// Every `#[viewset(...)]` attribute of `source` that decorates a struct.
pub(crate) fn viewset_decls(source: &Source) -> Vec<ViewSetDecl> {
    let text = source.text;
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(start) = source.find("#[viewset", at) {
        at = start + 1;
        let Some(open) = text[start + 9..].find(|c: char| !c.is_whitespace()).map(|p| start + 9 + p) else { break };
        if text.as_bytes()[open] != b'(' {
            continue;
        }
        let Some(close) = source.matching(open) else { break };
        let Some(bracket) = source.matching(start + 1) else { break };
        let after = source.skip_attributes(bracket + 1..text.len());
        let head = &text[after.clone()];
        let head = head.strip_prefix("pub(crate)").or_else(|| head.strip_prefix("pub")).unwrap_or(head);
        let Some(rest) = head.trim_start().strip_prefix("struct") else { continue };
        let name: String = rest.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let inner = open + 1..close;
        let items = source
            .split_items(inner.clone())
            .into_iter()
            .map(|range| {
                let item = &text[range.clone()];
                match item.find('=') {
                    Some(eq) => Item {
                        key: item[..eq].trim().to_string(),
                        value: source.trim(range.start + eq + 1..range.end),
                        range,
                    },
                    None => Item { key: item.trim().to_string(), value: range.end..range.end, range },
                }
            })
            .collect();
        out.push(ViewSetDecl { name, inner, items });
    }
    out
}

/// The string literals of a list value `["a", "b"]`, or `None` when the value is not such a list.
pub(crate) fn string_list(source: &Source, value: Range<usize>) -> Option<Vec<String>> {
    let text = &source.text[value.clone()];
    if !text.starts_with('[') || !text.ends_with(']') {
        return None;
    }
    source.split_items(value.start + 1..value.end - 1).into_iter().map(|r| string_literal(&source.text[r])).collect()
}

/// The value of a plain string literal `"abc"` (no escapes), or `None`.
pub(crate) fn string_literal(text: &str) -> Option<String> {
    let inner = text.trim().strip_prefix('"')?.strip_suffix('"')?;
    (!inner.contains(['"', '\\'])).then(|| inner.to_string())
}

/// The leading whitespace of the line holding byte `at`.
pub(crate) fn indent_at(text: &str, at: usize) -> &str {
    let line_start = text[..at].rfind('\n').map_or(0, |p| p + 1);
    let line = &text[line_start..];
    &line[..line.len() - line.trim_start().len()]
}

/// One field of a `pub struct Model { ... }`: name and type as written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ModelField {
    pub(crate) name: String,
    pub(crate) ty: String,
}

/// The fields of `pub struct Model` and the position of its closing brace, or `None` without that struct.
pub(crate) fn model_fields(source: &Source) -> Option<(Vec<ModelField>, usize)> {
    let start = source.find("pub struct Model", 0)?;
    let open = source.find("{", start)?;
    let close = source.matching(open)?;
    let fields = source
        .split_items(open + 1..close)
        .into_iter()
        .filter_map(|range| {
            let decl = &source.text[source.skip_attributes(range)];
            let decl = decl.strip_prefix("pub(crate)").or_else(|| decl.strip_prefix("pub")).unwrap_or(decl);
            let (name, ty) = decl.split_once(':')?;
            Some(ModelField { name: name.trim().to_string(), ty: ty.split_whitespace().collect::<Vec<_>>().join("") })
        })
        .collect();
    Some((fields, close))
}

/// The `table_name` of a sea-orm entity's `#[sea_orm(table_name = "...")]`.
pub(crate) fn table_name(source: &Source) -> Option<String> {
    let at = source.find("table_name", 0)?;
    let rest = source.text[at + "table_name".len()..].trim_start().strip_prefix('=')?.trim_start();
    let end = rest[1..].find('"')? + 2;
    string_literal(&rest[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_comments_and_lifetimes_are_not_code() {
        let text = "let a = \"(\"; // ) here\nfn f<'a>(x: &'a str) -> char { '(' } /* ( */ r#\"(\"#";
        let source = Source::new(text);
        let open = text.find("(x:").unwrap();
        assert_eq!(&text[open..=source.matching(open).unwrap()], "(x: &'a str)");
        let brace = text.find('{').unwrap();
        assert_eq!(&text[brace..=source.matching(brace).unwrap()], "{ '(' }");
        assert_eq!(source.find("(", text.find("*/").unwrap()), None);
    }

    #[test]
    fn viewset_attribute_items() {
        let text = "/// Doc.\n#[derive(ModelViewSet)]\n#[viewset(\n    model = entity::Entity,\n    filterable_fields = [\"done\", \"a,b\"],\n    ordering = \"-id\",\n)]\n/// More.\npub struct BooksViewSet;\n";
        let source = Source::new(text);
        let decls = viewset_decls(&source);
        assert_eq!(decls.len(), 1);
        assert_eq!(decls[0].name, "BooksViewSet");
        let keys: Vec<&str> = decls[0].items.iter().map(|i| i.key.as_str()).collect();
        assert_eq!(keys, ["model", "filterable_fields", "ordering"]);
        let list = string_list(&source, decls[0].item("filterable_fields").unwrap().value.clone());
        assert_eq!(list, Some(vec!["done".to_string(), "a,b".to_string()]));
    }

    #[test]
    fn model_fields_skip_attributes() {
        let text = "#[sea_orm(table_name = \"t\")]\npub struct Model {\n    /// Key, (read-only).\n    #[sea_orm(primary_key)]\n    pub id: i32,\n    #[sea_orm(column_type = \"String(StringLen::N(2))\")]\n    pub name: Option<String>,\n}\n";
        let source = Source::new(text);
        let (fields, _) = model_fields(&source).unwrap();
        assert_eq!(
            fields,
            [
                ModelField { name: "id".into(), ty: "i32".into() },
                ModelField { name: "name".into(), ty: "Option<String>".into() }
            ]
        );
        assert_eq!(table_name(&source).as_deref(), Some("t"));
    }
}
