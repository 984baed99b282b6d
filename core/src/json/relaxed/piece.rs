//! Output pieces: what the [`Writer`](super::Writer) and the [`Transcoder`](super::Transcoder)
//! hand out, borrowed from the input, static, or a few bytes by value.

use core::fmt;

/// A small by-value byte buffer (at most [`InlineBuf::CAPACITY`] bytes), used for output that
/// is not a slice of the input: escapes, completed characters, held bytes.
///
/// ```
/// use tokensieve::json::relaxed::InlineBuf;
///
/// let b = InlineBuf::new(b"\\u00e9").unwrap();
/// assert_eq!(b.as_bytes(), b"\\u00e9");
/// assert!(InlineBuf::new(&[0; 13]).is_none());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct InlineBuf {
    len: u8,
    buf: [u8; InlineBuf::CAPACITY],
}

impl InlineBuf {
    /// The most bytes an `InlineBuf` holds.
    ///
    /// ```
    /// assert_eq!(tokensieve::json::relaxed::InlineBuf::CAPACITY, 12);
    /// ```
    pub const CAPACITY: usize = 12;

    /// Copies `bytes` into a new buffer, or `None` if longer than [`Self::CAPACITY`].
    ///
    /// ```
    /// let b = tokensieve::json::relaxed::InlineBuf::new("é".as_bytes()).unwrap();
    /// assert_eq!(b.as_bytes(), "é".as_bytes());
    /// ```
    pub fn new(bytes: &[u8]) -> Option<Self> {
        let mut buf = [0u8; Self::CAPACITY];
        buf.get_mut(..bytes.len())?.copy_from_slice(bytes);
        Some(InlineBuf {
            len: bytes.len() as u8,
            buf,
        })
    }

    /// The bytes held.
    ///
    /// ```
    /// assert_eq!(tokensieve::json::relaxed::InlineBuf::new(b"ab").unwrap().as_bytes(), b"ab");
    /// ```
    pub fn as_bytes(&self) -> &[u8] {
        self.buf.get(..self.len as usize).unwrap_or(&[])
    }

    pub(super) fn from_char(c: char) -> Self {
        let mut buf = [0u8; Self::CAPACITY];
        let len = c.encode_utf8(&mut buf).len() as u8;
        InlineBuf { len, buf }
    }

    pub(super) fn escape_u(v: u16, upper: bool) -> Self {
        let digits: &[u8; 16] = if upper {
            b"0123456789ABCDEF"
        } else {
            b"0123456789abcdef"
        };
        let d = |shift: u16| digits[((v >> shift) & 0xF) as usize];
        let buf = [b'\\', b'u', d(12), d(8), d(4), d(0), 0, 0, 0, 0, 0, 0];
        InlineBuf { len: 6, buf }
    }
}

impl fmt::Debug for InlineBuf {
    /// ```
    /// let b = tokensieve::json::relaxed::InlineBuf::new(b"ab").unwrap();
    /// assert_eq!(format!("{b:?}"), "InlineBuf(\"ab\")");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("InlineBuf")
            .field(&core::str::from_utf8(self.as_bytes()).unwrap_or("<bytes>"))
            .finish()
    }
}

/// A piece of output: borrowed from the input, static, or a small inline buffer.
///
/// Concatenating the pieces in order gives the output; every piece is valid UTF-8 on its own.
///
/// ```
/// use tokensieve::json::relaxed::Piece;
///
/// assert_eq!(Piece::Static("{").as_bytes(), b"{");
/// assert_eq!(Piece::Input(b"abc").as_bytes(), b"abc");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Piece<'a> {
    /// Bytes of the input, copied through unchanged.
    Input(&'a [u8]),
    /// Fixed syntax such as `{` or `",`.
    Static(&'static str),
    /// A few bytes produced by the transcoder (an escape, a completed character, held bytes).
    Inline(InlineBuf),
}

impl Piece<'_> {
    /// The bytes of this piece.
    ///
    /// ```
    /// use tokensieve::json::relaxed::{InlineBuf, Piece};
    /// assert_eq!(Piece::Inline(InlineBuf::new(b"\\n").unwrap()).as_bytes(), b"\\n");
    /// ```
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Piece::Input(b) => b,
            Piece::Static(s) => s.as_bytes(),
            Piece::Inline(b) => b.as_bytes(),
        }
    }
}
