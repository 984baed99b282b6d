//! Checking a host's dialect description: every error names the `dialect.<field>` at fault.

use super::*;

/// Checks a host's dialect description (the errors name `dialect.<field>`).
pub(super) fn validate_description(d: &Description<'_>) -> Result<(), ConfigError> {
    let pair = |key: &'static str, (open, close): (&str, &str)| {
        if [open, close]
            .iter()
            .any(|m| m.is_empty() || m.len() > MAX_MARKER_LEN)
        {
            return Err(ConfigError::new(key, "markers must be 1 to 64 bytes long"));
        }
        if open.starts_with(close) || close.starts_with(open) {
            return Err(ConfigError::new(
                key,
                "the opener and the closer must differ, and neither may begin the other",
            ));
        }
        Ok(())
    };
    if d.shape == Shape::Invoke {
        // The invoke shape's region is an element (checked below), or, when the region
        // element is unnamed, the wrapper's marker pair, or nothing.
        if !d.wrapper.0.is_empty() || !d.wrapper.1.is_empty() {
            pair("dialect.wrapper", d.wrapper)?;
            if d.elements.get(0) != Some("") {
                return Err(ConfigError::new(
                    "dialect.wrapper",
                    "is the invoke region's markers only when the region element is \"\" (give one or the other)",
                ));
            }
        }
    } else if d.shape == Shape::JsonCall && d.wrapper.1.is_empty() {
        // No closer: the JSON value's end ends the call.
        if d.wrapper.0.is_empty() || d.wrapper.0.len() > MAX_MARKER_LEN {
            return Err(ConfigError::new(
                "dialect.wrapper",
                "markers must be 1 to 64 bytes long (a json-call closer may be empty)",
            ));
        }
    } else {
        pair("dialect.wrapper", d.wrapper)?;
    }
    pair("dialect.thinking_tags", d.thinking_tags)?;
    let thinking = [d.thinking_tags.0, d.thinking_tags.1];
    if thinking.contains(&d.wrapper.0) || thinking.contains(&d.wrapper.1) {
        return Err(ConfigError::new(
            "dialect.wrapper",
            "must differ from the thinking markers",
        ));
    }
    let markup = |d: &Description<'_>| {
        if let Some(m) = d.markup {
            pair("dialect.markup", m)?;
            let taken = [d.wrapper.0, d.wrapper.1, thinking[0], thinking[1]];
            if taken.contains(&m.0) || taken.contains(&m.1) {
                return Err(ConfigError::new(
                    "dialect.markup",
                    "must differ from the wrapper and the thinking markers",
                ));
            }
        }
        validate_more_markup(d)
    };
    match d.shape {
        Shape::KeyValue => {
            markup(d)?;
            validate_key_value(d)?;
        }
        Shape::Sectioned => validate_sectioned(d)?,
        Shape::JsonCall => {
            markup(d)?;
            if let Some(r) = d.result_wrapper {
                pair("dialect.result_wrapper", r)?;
                if r.0 == d.wrapper.0 || thinking.contains(&r.0) {
                    return Err(ConfigError::new(
                        "dialect.result_wrapper",
                        "its opener must differ from the call's and the thinking opener",
                    ));
                }
            }
            for (key, list) in [
                ("dialect.name_keys", d.name_keys),
                ("dialect.argument_keys", d.argument_keys),
            ] {
                if list.is_empty() || list.len() > 4 {
                    return Err(ConfigError::new(key, "must list 1 to 4 keys"));
                }
                if list
                    .iter()
                    .any(|k| k.is_empty() || k.len() > crate::spec::MAX_KEY_LEN)
                {
                    return Err(ConfigError::new(key, "each key must be 1 to 10 bytes long"));
                }
            }
            if let Some((opener, call)) = d.call_header {
                // The opener is dropped as markup when no header follows it, and the header
                // ends at the call's own opener: both must already be markers of the
                // description.
                let markup = d.markup.into_iter().flat_map(|(a, b)| [a, b]);
                let is_markup = markup.chain(d.more_markup.iter()).any(|m| m == opener);
                if opener.is_empty() || !is_markup || call != d.wrapper.0 {
                    return Err(ConfigError::new(
                        "dialect.call_header",
                        "must be [a markup marker, the wrapper's opener]",
                    ));
                }
                // The header's opener takes the result opener's place in the text context,
                // and its look-ahead the bare list's.
                if d.result_wrapper.is_some() || d.bare_array {
                    return Err(ConfigError::new(
                        "dialect.call_header",
                        "does not go with a result_wrapper or bare_array",
                    ));
                }
            }
            if d.name_keys
                .iter()
                .any(|k| d.argument_keys.contains(k.as_bytes()))
            {
                return Err(ConfigError::new(
                    "dialect.argument_keys",
                    "must not repeat a name key",
                ));
            }
        }
        Shape::Invoke => {
            validate_invoke(d)?;
            if let Some(m) = d.markup {
                // Markers dropped between the calls of a marker region (Step-3's call header).
                pair("dialect.markup", m)?;
                let taken = [d.wrapper.0, d.wrapper.1, thinking[0], thinking[1]];
                if d.wrapper.0.is_empty() || taken.contains(&m.0) || taken.contains(&m.1) {
                    return Err(ConfigError::new(
                        "dialect.markup",
                        "needs a marker region (wrapper) and must differ from its and the thinking markers",
                    ));
                }
            }
            if d.result_wrapper.is_some() {
                return Err(ConfigError::new(
                    "dialect.result_wrapper",
                    "applies to the json-call shape only",
                ));
            }
        }
        Shape::Pythonic => {
            if d.result_wrapper.is_some() || d.markup.is_some() {
                return Err(ConfigError::new(
                    if d.markup.is_some() {
                        "dialect.markup"
                    } else {
                        "dialect.result_wrapper"
                    },
                    "applies to the json-call shape only",
                ));
            }
        }
        Shape::XmlParams => {
            if closing_tag_name(d.wrapper.1).is_none() {
                return Err(ConfigError::new(
                    "dialect.wrapper",
                    "an xml-params closer must be a closing tag </name>",
                ));
            }
            if d.result_wrapper.is_some() {
                return Err(ConfigError::new(
                    "dialect.result_wrapper",
                    "applies to the json-call shape only",
                ));
            }
            if d.markup.is_some() {
                return Err(ConfigError::new(
                    "dialect.markup",
                    "applies to the json-call shape only",
                ));
            }
        }
    }
    if d.shape != Shape::JsonCall && d.bare_array {
        return Err(ConfigError::new(
            "dialect.bare_array",
            "applies to the json-call shape only",
        ));
    }
    if d.shape != Shape::JsonCall && d.call_header.is_some() {
        return Err(ConfigError::new(
            "dialect.call_header",
            "applies to the json-call shape only",
        ));
    }
    if d.shape != Shape::JsonCall && d.name_as_key {
        return Err(ConfigError::new(
            "dialect.name_as_key",
            "applies to the json-call shape only",
        ));
    }
    if !matches!(d.shape, Shape::JsonCall | Shape::KeyValue) && !d.more_markup.is_empty() {
        return Err(ConfigError::new(
            "dialect.more_markup",
            "applies to the json-call and key-value shapes only",
        ));
    }
    Ok(())
}

/// The sectioned shape's fields: the call's markers, one or two header ends, an optional
/// fence, at most four other section openers; every marker present once (the scanner takes
/// the longest marker that matches, so one may begin another), none a thinking marker.
fn validate_sectioned(d: &Description<'_>) -> Result<(), ConfigError> {
    let bad = |m: &str| m.is_empty() || m.len() > MAX_MARKER_LEN;
    if bad(d.call_markers.0) || bad(d.call_markers.1) {
        return Err(ConfigError::new(
            "dialect.call_markers",
            "markers must be 1 to 64 bytes long",
        ));
    }
    if !(1..=2).contains(&d.header_ends.len()) || d.header_ends.iter().any(bad) {
        return Err(ConfigError::new(
            "dialect.header_ends",
            "must list one or two markers of 1 to 64 bytes",
        ));
    }
    if d.fence.is_some_and(|(a, b)| bad(a) || bad(b)) {
        return Err(ConfigError::new(
            "dialect.fence",
            "markers must be 1 to 64 bytes long",
        ));
    }
    if d.alt_openers.len() > 4 || d.alt_openers.iter().any(bad) {
        return Err(ConfigError::new(
            "dialect.alt_openers",
            "must list at most 4 markers of 1 to 64 bytes",
        ));
    }
    for (key, found) in [
        ("dialect.markup", d.markup.is_some()),
        ("dialect.result_wrapper", d.result_wrapper.is_some()),
    ] {
        if found {
            return Err(ConfigError::new(
                key,
                "is not a field of the sectioned shape",
            ));
        }
    }
    // Every structural marker once: `(field, marker)` in the order the errors name them.
    let fence = d.fence.unwrap_or(("", ""));
    let markers = [
        ("dialect.thinking_tags", d.thinking_tags.0),
        ("dialect.thinking_tags", d.thinking_tags.1),
        ("dialect.wrapper", d.wrapper.0),
        ("dialect.wrapper", d.wrapper.1),
        ("dialect.call_markers", d.call_markers.0),
        ("dialect.call_markers", d.call_markers.1),
        ("dialect.header_ends", d.header_ends.get(0).unwrap_or("")),
        ("dialect.header_ends", d.header_ends.get(1).unwrap_or("")),
        ("dialect.fence", fence.0),
        ("dialect.fence", fence.1),
    ];
    let alts = d.alt_openers.iter().map(|a| ("dialect.alt_openers", a));
    for (i, (key, m)) in markers.iter().copied().chain(alts).enumerate() {
        let earlier = markers
            .iter()
            .copied()
            .chain(d.alt_openers.iter().map(|a| ("", a)));
        if !m.is_empty() && earlier.take(i).any(|(_, e)| e == m) {
            return Err(ConfigError::new(
                key,
                "markers must differ from one another",
            ));
        }
    }
    Ok(())
}

/// The key-value shape's fields: the call element's tags, two or three distinct element
/// names (key, value, separator) unlike the call's and the thinking element's.
fn validate_key_value(d: &Description<'_>) -> Result<(), ConfigError> {
    let call = closing_tag_name(d.wrapper.1);
    if call.is_none_or(|c| {
        d.wrapper
            .0
            .strip_prefix('<')
            .and_then(|o| o.strip_suffix('>'))
            != Some(c)
    }) {
        return Err(ConfigError::new(
            "dialect.wrapper",
            "a key-value wrapper is an element's tags <name> and </name>",
        ));
    }
    if d.result_wrapper.is_some() {
        return Err(ConfigError::new(
            "dialect.result_wrapper",
            "applies to the json-call shape only",
        ));
    }
    let e = d.elements;
    if !(2..=3).contains(&e.len()) || !e.iter().all(|n| n.len() <= 48 && is_element_name(n)) {
        return Err(ConfigError::new(
            "dialect.elements",
            "must name [key, value] or [key, value, separator] elements: a letter or _, then letters, digits, _ - . : (at most 48 bytes)",
        ));
    }
    let think = crate::spec::element_name(d.thinking_tags.0, d.thinking_tags.1);
    for (i, n) in e.iter().enumerate() {
        if Some(n) == call || think == Some(n.as_bytes()) || e.iter().skip(i + 1).any(|m| m == n) {
            return Err(ConfigError::new(
                "dialect.elements",
                "must be different names, unlike the call element and the thinking element",
            ));
        }
    }
    Ok(())
}

/// A json-call description's further markup markers: one more pair at most, with a `markup`
/// pair, without a result wrapper (the text context holds eight markers), each unlike the
/// other markers.
fn validate_more_markup(d: &Description<'_>) -> Result<(), ConfigError> {
    const KEY: &str = "dialect.more_markup";
    let more = d.more_markup;
    if more.is_empty() {
        return Ok(());
    }
    if more.len() != 2 || d.markup.is_none() || d.result_wrapper.is_some() {
        return Err(ConfigError::new(
            KEY,
            "is one more pair of markers, with a markup pair and no result_wrapper",
        ));
    }
    let (m0, m1) = d.markup.unwrap_or(("", ""));
    let taken = [
        d.wrapper.0,
        d.wrapper.1,
        d.thinking_tags.0,
        d.thinking_tags.1,
        m0,
        m1,
    ];
    for m in more.iter() {
        if m.is_empty() || m.len() > MAX_MARKER_LEN {
            return Err(ConfigError::new(KEY, "markers must be 1 to 64 bytes long"));
        }
        if taken.contains(&m) {
            return Err(ConfigError::new(
                KEY,
                "must differ from the wrapper, thinking and markup markers",
            ));
        }
    }
    if more.get(0) == more.get(1) {
        return Err(ConfigError::new(
            KEY,
            "the opener and the closer must differ",
        ));
    }
    Ok(())
}

/// The invoke shape's fields: three distinct element names, short prefixes that cannot be
/// read as part of a tag's syntax, an attribute name.
fn validate_invoke(d: &Description<'_>) -> Result<(), ConfigError> {
    let element = is_element_name;
    // An empty region name: the calls stand in text, without a region (MiniCPM5).
    let named = |(i, n): (usize, &str)| (i == 0 && n.is_empty()) || (n.len() <= 48 && element(n));
    if d.elements.len() != 3 || !d.elements.iter().enumerate().all(named) {
        return Err(ConfigError::new(
            "dialect.elements",
            "must name three elements [region, call, parameter]: a letter or _, then letters, digits, _ - . : (at most 48 bytes); the region may be \"\" (none)",
        ));
    }
    let e: [&str; 3] = core::array::from_fn(|i| d.elements.get(i).unwrap_or_default());
    if e[0] == e[1] || e[1] == e[2] || e[0] == e[2] {
        return Err(ConfigError::new(
            "dialect.elements",
            "must be three different names",
        ));
    }
    if d.tag_prefixes.len() > 4
        || d.tag_prefixes.iter().any(|p| {
            p.is_empty()
                || p.len() > 16
                || p.bytes().any(|b| {
                    matches!(
                        b,
                        b'<' | b'>' | b'/' | b'=' | b'"' | b'\'' | b' ' | b'\t' | b'\n' | b'\r'
                    )
                })
        })
    {
        return Err(ConfigError::new(
            "dialect.tag_prefixes",
            "must list at most 4 prefixes of 1 to 16 bytes, without < > / = quotes or whitespace",
        ));
    }
    if let Some(a) = d.string_attribute {
        if a.is_empty() || a == "name" || !element(a) || a.len() > 32 {
            return Err(ConfigError::new(
                "dialect.string_attribute",
                "must be an attribute name other than `name` (a letter or _, then letters, digits, _ - . :)",
            ));
        }
    }
    // Without a prefix the region's opener must not be the thinking opener.
    let think = crate::spec::element_name(d.thinking_tags.0, d.thinking_tags.1);
    if d.tag_prefixes.is_empty() && think.is_some_and(|t| e.iter().any(|n| n.as_bytes() == t)) {
        return Err(ConfigError::new(
            "dialect.elements",
            "must differ from the thinking element",
        ));
    }
    Ok(())
}

/// `name` of a closing tag `</name>` (letters, digits, `_`, `-`, `.`, `:`), if it is one.
pub(crate) fn closing_tag_name(closer: &str) -> Option<&str> {
    let name = closer.strip_prefix("</")?.strip_suffix('>')?;
    is_element_name(name).then_some(name)
}

/// An element name: a letter or `_`, then letters, digits, `_`, `-`, `.`, `:`.
fn is_element_name(name: &str) -> bool {
    name.bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
}

/// Checks the other spellings of the thinking markers ([`Config::thinking_alternates`]):
/// whole pairs, at most [`MAX_THINKING_ALTERNATES`], each marker 1 to 64 bytes, and no
/// spelling of the opener equal to or beginning a spelling of the closer (or the reverse):
/// the scanner could not tell which was written.
pub(super) fn thinking_alternates(
    open: &str,
    close: &str,
    alt: StrList<'_>,
) -> Result<(), ConfigError> {
    const KEY: &str = "thinking_tags";
    if alt.is_empty() {
        // The pair in force alone is checked where it is given (a description's errors
        // name `dialect.thinking_tags`).
        return Ok(());
    }
    if alt.len() % 2 != 0 {
        return Err(ConfigError::new(
            KEY,
            "each spelling is a pair [open, close]",
        ));
    }
    if alt.len() / 2 > MAX_THINKING_ALTERNATES {
        return Err(ConfigError::new(
            KEY,
            "at most 3 spellings [open, close] are accepted",
        ));
    }
    let opens = || core::iter::once(open).chain(alt.iter().step_by(2));
    let closes = || core::iter::once(close).chain(alt.iter().skip(1).step_by(2));
    if alt.iter().any(|m| m.is_empty() || m.len() > MAX_MARKER_LEN) {
        return Err(ConfigError::new(KEY, "markers must be 1 to 64 bytes long"));
    }
    for o in opens() {
        if closes().any(|c| o.starts_with(c) || c.starts_with(o)) {
            return Err(ConfigError::new(
                KEY,
                "no opener may equal or begin a closer, nor a closer an opener",
            ));
        }
    }
    Ok(())
}
