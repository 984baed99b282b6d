//! What a name or key must be for a format to carry it.

// --- checks ----------------------------------------------------------------------------------

/// Checks a name or key: not empty, at most 127 bytes, no control characters, none of the
/// characters `bad` rejects.
pub(super) fn check(s: &str, bad: impl Fn(char) -> bool) -> Result<(), &'static str> {
    if s.is_empty() {
        return Err("empty");
    }
    if s.len() > 127 {
        return Err("longer than 127 bytes");
    }
    if s.chars().any(|c| c.is_control()) {
        return Err("holds a control character");
    }
    if s.chars().any(bad) {
        return Err("holds a character the format cannot carry there");
    }
    Ok(())
}

pub(super) fn xml_attr_bad(c: char) -> bool {
    matches!(c, '"' | '<' | '>' | '&')
}

pub(super) fn ws_or(c: char, chars: &str) -> bool {
    c.is_whitespace() || chars.contains(c)
}

pub(super) fn pythonic_name(s: &str) -> Result<(), &'static str> {
    check(s, |_| false)?;
    let mut cs = s.chars();
    let first_ok = matches!(cs.next(), Some(c) if c.is_ascii_alphabetic() || c == '_');
    if first_ok && cs.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')) {
        Ok(())
    } else {
        Err("not a Python-style name (a letter or `_`, then letters, digits, `_`, `.`, `-`)")
    }
}

pub(super) fn xml_element_name(s: &str) -> Result<(), &'static str> {
    check(s, |_| false)?;
    let mut cs = s.chars();
    let first_ok = matches!(cs.next(), Some(c) if c.is_alphabetic() || c == '_');
    if first_ok && cs.all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-')) {
        Ok(())
    } else {
        Err("not an XML element name")
    }
}

pub(super) fn trimmed(s: &str) -> Result<(), &'static str> {
    if s.trim() == s {
        Ok(())
    } else {
        Err("starts or ends with whitespace")
    }
}
