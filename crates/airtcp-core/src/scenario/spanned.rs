//! A value with where it was written in the file, like `toml::Spanned`,
//! but one that also reads the tables TOML makes implicitly.
//!
//! TOML lets a header name a table inside one not yet written
//! (`[flow.tcp.kick]` in a `[[flow]]` without `[flow.tcp]`), and a dotted
//! key make its tables (`tcp.variant = "sack"`): both are valid TOML
//! (TOML 1.0, "Table": "you don't need to specify all the super-tables if
//! you don't want to"). The parser gives such a table no place in the text,
//! and `toml::Spanned` then refuses it ("invalid type: string "kick",
//! expected a borrowed string"). This `Spanned` reads it as the table it is,
//! with the span [`IMPLICIT_SPAN`]: an error about it finds its line from
//! the field's path instead ([`line_of_path`]).

use std::fmt;
use std::marker::PhantomData;
use std::ops::Range;

use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_spanned::__unstable::{END_FIELD, NAME, START_FIELD, VALUE_FIELD};

/// The span of a table written only through its children (no header and no
/// `key = { ... }` of its own).
pub const IMPLICIT_SPAN: Range<usize> = usize::MAX..usize::MAX;

#[derive(Clone, Debug)]
pub struct Spanned<T> {
    span: Range<usize>,
    value: T,
}

impl<T> Spanned<T> {
    pub fn new(span: Range<usize>, value: T) -> Self {
        Spanned { span, value }
    }
    /// Byte range in the file; [`IMPLICIT_SPAN`] for an implicit table.
    pub fn span(&self) -> Range<usize> {
        self.span.clone()
    }
    pub fn get_ref(&self) -> &T {
        &self.value
    }
    pub fn into_inner(self) -> T {
        self.value
    }
}

impl<T: PartialEq> PartialEq for Spanned<T> {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Spanned<T> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Ask as toml::Spanned does: the toml deserializer answers with the
        // span and the value when it knows the span, else with the table.
        d.deserialize_struct(
            NAME,
            &[START_FIELD, END_FIELD, VALUE_FIELD],
            SpannedVisitor(PhantomData),
        )
    }
}

struct SpannedVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for SpannedVisitor<T> {
    type Value = Spanned<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a value or a table")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Spanned<T>, A::Error> {
        let Some(first) = map.next_key::<String>()? else {
            let empty = de::value::MapDeserializer::<std::iter::Empty<((), ())>, A::Error>::new(
                std::iter::empty(),
            );
            return T::deserialize(empty).map(|v| Spanned::new(IMPLICIT_SPAN, v));
        };
        if first != START_FIELD {
            // An implicit table: its first key is already read; hand it
            // back to T with the rest.
            let replay = Replay {
                first: Some(first),
                map,
            };
            return T::deserialize(de::value::MapAccessDeserializer::new(replay))
                .map(|v| Spanned::new(IMPLICIT_SPAN, v));
        }
        let start: usize = map.next_value()?;
        fn expect<'de, A: MapAccess<'de>>(
            map: &mut A,
            field: &'static str,
        ) -> Result<(), A::Error> {
            match map.next_key::<String>()? {
                Some(k) if k == field => Ok(()),
                _ => Err(de::Error::missing_field(field)),
            }
        }
        expect(&mut map, END_FIELD)?;
        let end: usize = map.next_value()?;
        expect(&mut map, VALUE_FIELD)?;
        let value: T = map.next_value()?;
        Ok(Spanned::new(start..end, value))
    }
}

/// A map whose first key was read already: it yields that key, then the
/// rest of `map`.
struct Replay<A> {
    first: Option<String>,
    map: A,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Replay<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        match self.first.take() {
            Some(k) => seed.deserialize(k.into_deserializer()).map(Some),
            None => self.map.next_key_seed(seed),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }
}

/// The byte offset where the field at `path` ("flow[2].tcp.kick.ttl",
/// as errors name fields; a member's "[i=5]" is skipped) is written in
/// `text`: the deepest table or value on the path that has a place, or, for
/// an implicit table, its first key that has one. None if `text` does not
/// parse or the path leads nowhere.
pub fn offset_of_path(text: &str, path: &str) -> Option<usize> {
    use toml_edit::{ImDocument, Item, Table, TableLike, Value};
    /// Where the walk is: a table or value, or a member of an array of
    /// tables (a `Table`, not an `Item`).
    enum Node<'a> {
        Item(&'a Item),
        Member(&'a Table),
    }
    let doc = ImDocument::parse(text).ok()?;
    let mut node = Node::Item(doc.as_item());
    let mut found = None;
    for part in path_parts(path) {
        let table: Option<&dyn TableLike> = match node {
            Node::Item(Item::Table(t)) => Some(t),
            Node::Item(Item::Value(Value::InlineTable(t))) => Some(t),
            Node::Member(t) => Some(t),
            _ => None,
        };
        let (span, next) = match (part, table, &node) {
            (Part::Key(k), Some(t), _) => match t.get_key_value(&k) {
                // An implicit table has no span: its key has one.
                Some((key, item)) => (item.span().or(key.span()), Node::Item(item)),
                None => break,
            },
            (Part::Index(i), _, Node::Item(Item::ArrayOfTables(a))) => match a.get(i) {
                Some(t) => (t.span(), Node::Member(t)),
                None => break,
            },
            _ => break,
        };
        found = span.map(|s| s.start).or(found);
        node = next;
    }
    found
}

enum Part {
    Key(String),
    Index(usize),
}

fn path_parts(path: &str) -> Vec<Part> {
    let mut parts = Vec::new();
    for dotted in path.split('.') {
        let (key, rest) = dotted.split_at(dotted.find('[').unwrap_or(dotted.len()));
        if !key.is_empty() {
            parts.push(Part::Key(key.to_string()));
        }
        for index in rest.split('[').filter(|s| !s.is_empty()) {
            if let Ok(i) = index.trim_end_matches(']').parse() {
                parts.push(Part::Index(i));
            }
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::offset_of_path;

    #[test]
    fn offsets_of_paths() {
        let text = "[[flow]]\nname = \"a\"\n\n[[flow]]\nfrom = \"B\"\nname = \"b\"\n[flow.tcp.kick]\nttl = 1\n";
        let line = |p: &str| offset_of_path(text, p).map(|o| text[..o].matches('\n').count() + 1);
        assert_eq!(line("flow[1].name"), Some(6));
        assert_eq!(line("flow[0][i=3].name"), Some(2));
        assert_eq!(line("flow[1].tcp.mss"), Some(7));
        assert_eq!(line("flow[1].tcp.kick.ttl"), Some(8));
    }
}
