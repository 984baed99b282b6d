//! Short strings kept by value (names, ids, reasons, codes), always whole UTF-8 characters.

use crate::emit::str_of;

/// Longest tool name, tool id, response id, model, finish reason or error code kept; longer
/// ones are cut at a character boundary.
pub(crate) const SLOT_CAP: usize = 96;

/// A short string kept by value.
#[derive(Clone, Copy)]
pub(crate) struct Slot {
    buf: [u8; SLOT_CAP],
    len: u8,
    /// A push was cut: nothing more is added (so the cut does not depend on how the value
    /// was split into pieces).
    full: bool,
}

impl Slot {
    pub(crate) const EMPTY: Slot = Slot {
        buf: [0; SLOT_CAP],
        len: 0,
        full: false,
    };

    pub(crate) fn clear(&mut self) {
        self.len = 0;
        self.full = false;
    }

    pub(crate) fn push(&mut self, bytes: &[u8]) {
        if self.full {
            return;
        }
        let at = self.len as usize;
        let n = crate::emit::floor_char_boundary(bytes, (SLOT_CAP - at).min(bytes.len()));
        self.buf[at..at + n].copy_from_slice(&bytes[..n]);
        self.len += n as u8;
        self.full = n < bytes.len();
    }

    /// Sets the slot from bytes that may not be UTF-8 (AWS header values): invalid
    /// sequences become U+FFFD, as `from_utf8_lossy` makes them (rule 7).
    pub(crate) fn set_lossy(&mut self, bytes: &[u8]) {
        self.clear();
        crate::emit::lossy_parts(bytes, |piece| {
            self.push(piece);
            !self.full
        });
    }

    pub(crate) fn set(&mut self, bytes: &[u8]) {
        self.clear();
        self.push(bytes);
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        &self.buf[..self.len as usize]
    }

    pub(crate) fn as_str(&self) -> &str {
        str_of(self.bytes())
    }

    pub(crate) fn opt(&self) -> Option<&str> {
        (!self.is_empty()).then(|| self.as_str())
    }
}
