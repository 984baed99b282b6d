//! Streaming base64 (standard alphabet, `=` padding) for Bedrock InvokeModelWithResponseStream,
//! whose chunk payload is `{"bytes":"<base64 of a JSON event>"}`: the string's text arrives
//! in pieces split anywhere, the decoded bytes go to a caller buffer.
//!
//! Whole 4-character groups are decoded in bulk by [`decode_groups`]; up to 3 characters of
//! an unfinished group are carried to the next piece. AWS sends no whitespace or line
//! breaks, so any byte outside the alphabet is an error. (Our own group decoder, not the
//! `base64` crate's: a tenth of its code in the npm package's .wasm, js/README.md "Size";
//! the crate checks it in the tests.)

/// Why base64 text is not valid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Base64Error {
    /// A byte outside the standard alphabet.
    InvalidByte,
    /// `=` where it may not be, text after the padding, or a last character with bits that
    /// decode to nothing set (not canonical).
    Padding,
    /// The text ended one character into a group (less than a byte).
    Truncated,
}

/// The 6 bits of an alphabet character; 64 for `=`, 255 for any other byte.
const SEXTETS: [u8; 256] = {
    let mut t = [255u8; 256];
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut i = 0;
    while i < 64 {
        t[alphabet[i] as usize] = i as u8;
        i += 1;
    }
    t[b'=' as usize] = 64;
    t
};

/// Decodes whole 4-character groups (`text.len()` a multiple of 4) into `out`, which has room
/// for 3 bytes a group; returns the bytes written. Only the last group may be padded
/// (`XX==`, `XXX=`), canonically (the bits past its last byte clear). The first bad byte in
/// text order decides the error: `=` misplaced or anything after it is `Padding`.
fn decode_groups(text: &[u8], out: &mut [u8]) -> Result<usize, Base64Error> {
    let mut written = 0;
    let groups = text.chunks_exact(4);
    let last = groups.len();
    for (n, group) in groups.enumerate() {
        let mut bits = 0u32;
        let mut chars = 4;
        for (i, &b) in group.iter().enumerate() {
            match SEXTETS[usize::from(b)] {
                // `=` from the third character of the last group on, and only `=` after it.
                64 if i >= 2 && n + 1 == last => chars = chars.min(i),
                64 => return Err(Base64Error::Padding),
                _ if chars < 4 => return Err(Base64Error::Padding),
                255 => return Err(Base64Error::InvalidByte),
                v => bits = bits << 6 | u32::from(v),
            }
        }
        bits <<= 6 * (4 - chars);
        let bytes = bits.to_be_bytes();
        let len = chars - 1;
        // Not canonical: bits set past the last byte.
        if bits << (8 * len) & 0x00FF_FFFF != 0 {
            return Err(Base64Error::Padding);
        }
        let Some(dst) = out.get_mut(written..written + len) else {
            return Err(Base64Error::Padding);
        };
        dst.copy_from_slice(&bytes[1..1 + len]);
        written += len;
    }
    Ok(written)
}

/// A base64 decoder fed piece by piece.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Base64Stream {
    /// An unfinished group (`len` < 4 characters) carried between pieces.
    carry: [u8; 4],
    len: u8,
    /// A padded group was decoded: only the end may follow.
    padded: bool,
    /// Errors stick: the text is invalid whatever comes next.
    error: Option<Base64Error>,
}

impl Default for Base64Stream {
    fn default() -> Self {
        Self::new()
    }
}

impl Base64Stream {
    /// A decoder at the start of a text.
    pub(crate) const fn new() -> Self {
        Base64Stream {
            carry: [0; 4],
            len: 0,
            padded: false,
            error: None,
        }
    }

    fn fail(&mut self, e: Base64Error) -> Result<(usize, usize), Base64Error> {
        self.error = Some(e);
        Err(e)
    }

    /// Decodes what it can of `input` into `out`; returns (bytes consumed from `input`, bytes
    /// written to `out`). With `out` at least 3 bytes long, some input is always consumed
    /// (call again with the rest); with less, whole groups cannot be written and only the
    /// carry fills. The output never depends on how the text was split: every group before
    /// an invalid one is decoded, the error comes when the invalid group is at the front.
    pub(crate) fn decode(
        &mut self,
        input: &[u8],
        out: &mut [u8],
    ) -> Result<(usize, usize), Base64Error> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if input.is_empty() {
            return Ok((0, 0));
        }
        if self.padded {
            return self.fail(Base64Error::Padding);
        }
        let mut used = 0;
        let mut written = 0;
        if self.len > 0 {
            let len = usize::from(self.len);
            let n = (4 - len).min(input.len());
            self.carry[len..len + n].copy_from_slice(&input[..n]);
            self.len += n as u8;
            used = n;
            if self.len < 4 || out.len() < 3 {
                return Ok((used, 0));
            }
            match decode_groups(&self.carry, &mut *out) {
                Ok(w) => written = w,
                Err(e) => return self.fail(e),
            }
            self.len = 0;
            if self.carry[3] == b'=' {
                self.padded = true;
                return Ok((used, written));
            }
        }
        let rest = &input[used..];
        let room = out.len().saturating_sub(written) / 3;
        let groups = (rest.len() / 4).min(room);
        let bulk = &rest[..groups * 4];
        let dst = &mut out[written..];
        match decode_groups(bulk, &mut *dst) {
            Ok(w) => {
                written += w;
                used += bulk.len();
                self.padded = bulk.last() == Some(&b'=');
            }
            Err(_) => {
                // Keep the groups before the bad one, so that the output does not depend
                // on where the pieces were cut; the bad group fails when it comes first.
                let mut at = 0;
                for group in bulk.chunks_exact(4) {
                    match decode_groups(group, &mut dst[at..]) {
                        Ok(w) => at += w,
                        Err(e) if used == 0 => return self.fail(e),
                        Err(_) => break,
                    }
                    used += 4;
                    if group[3] == b'=' {
                        self.padded = true;
                        break;
                    }
                }
                return Ok((used, written + at));
            }
        }
        if groups == rest.len() / 4 && !self.padded {
            let tail = &rest[groups * 4..];
            self.carry[..tail.len()].copy_from_slice(tail);
            self.len = tail.len() as u8;
            used += tail.len();
        }
        Ok((used, written))
    }

    /// The text ended: decodes a group left without its padding (`QQ`, `QUI`, `QQ=`) and
    /// starts over.
    pub(crate) fn finish(&mut self, out: &mut [u8; 3]) -> Result<usize, Base64Error> {
        let me = core::mem::take(self);
        if let Some(e) = me.error {
            return Err(e);
        }
        let len = usize::from(me.len);
        let mut chars = len;
        while chars > 0 && me.carry[chars - 1] == b'=' {
            chars -= 1;
        }
        match chars {
            0 if len == 0 => Ok(0),
            0 => Err(Base64Error::Padding),
            1 => Err(Base64Error::Truncated),
            _ => {
                let mut group = [b'='; 4];
                group[..chars].copy_from_slice(&me.carry[..chars]);
                decode_groups(&group, &mut out[..])
            }
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use ::base64::Engine as _;
    use ::base64::engine::general_purpose::STANDARD;
    use proptest::prelude::*;
    use std::vec;
    use std::vec::Vec;

    fn encode(data: &[u8]) -> Vec<u8> {
        let mut out = vec![0; data.len().div_ceil(3) * 4];
        let n = STANDARD.encode_slice(data, &mut out).unwrap();
        out.truncate(n);
        out
    }

    /// Decodes `text` cut at `cuts` into an `out_len`-byte buffer: the bytes written, and the
    /// error if any.
    fn decode(text: &[u8], cuts: &[usize], out_len: usize) -> (Vec<u8>, Option<Base64Error>) {
        let mut s = Base64Stream::new();
        let mut buf = vec![0; out_len];
        let mut got = Vec::new();
        let mut start = 0;
        for end in cuts.iter().copied().chain([text.len()]) {
            let end = end.clamp(start, text.len());
            let mut piece = &text[start..end];
            start = end;
            while !piece.is_empty() {
                match s.decode(piece, &mut buf) {
                    Ok((used, written)) => {
                        assert!(used > 0 || written > 0, "no progress");
                        assert!(used <= piece.len() && written <= buf.len());
                        got.extend_from_slice(&buf[..written]);
                        piece = &piece[used..];
                    }
                    Err(e) => return (got, Some(e)),
                }
            }
        }
        let mut last = [0; 3];
        match s.finish(&mut last) {
            Ok(n) => {
                got.extend_from_slice(&last[..n]);
                (got, None)
            }
            Err(e) => (got, Some(e)),
        }
    }

    fn sample(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i * 37 + 11) as u8).collect()
    }

    #[test]
    fn round_trip_split_anywhere() {
        for n in 0..=20 {
            let data = sample(n);
            let text = encode(&data);
            for out_len in [3, 4, 5, 7, 64] {
                assert_eq!(decode(&text, &[], out_len), (data.clone(), None));
                for i in 0..=text.len() {
                    for j in i..=text.len() {
                        assert_eq!(
                            decode(&text, &[i, j], out_len),
                            (data.clone(), None),
                            "n {n} out {out_len} cut {i} {j}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn padding_variants() {
        let ok = |text: &[u8], want: &[u8]| {
            for cut in 0..=text.len() {
                assert_eq!(decode(text, &[cut], 3), (want.to_vec(), None), "{text:?}");
            }
        };
        ok(b"", b"");
        ok(b"QQ==", b"A");
        ok(b"QUI=", b"AB");
        ok(b"QUJD", b"ABC");
        // Missing (or half) padding at the end is accepted.
        ok(b"QQ", b"A");
        ok(b"QQ=", b"A");
        ok(b"QUI", b"AB");
        ok(b"QUJDQQ", b"ABCA");
        let bad = |text: &[u8], before: &[u8], e: Base64Error| {
            for cut in 0..=text.len() {
                for out_len in [3, 8] {
                    let got = decode(text, &[cut], out_len);
                    assert_eq!(got, (before.to_vec(), Some(e)), "{:?} cut {cut}", text);
                }
            }
        };
        bad(b"Q", b"", Base64Error::Truncated);
        bad(b"QUJDQ", b"ABC", Base64Error::Truncated);
        bad(b"Q=", b"", Base64Error::Truncated);
        bad(b"=", b"", Base64Error::Padding);
        bad(b"====", b"", Base64Error::Padding);
        bad(b"Q===", b"", Base64Error::Padding);
        bad(b"QQ=A", b"", Base64Error::Padding);
        bad(b"Q=QQ", b"", Base64Error::Padding);
        // Text after the padding.
        bad(b"QQ==QUJD", b"A", Base64Error::Padding);
        bad(b"QUJDQQ==QQ", b"ABCA", Base64Error::Padding);
        bad(b"QQ===", b"A", Base64Error::Padding);
        // Bits past the last byte set: not canonical.
        bad(b"QR==", b"", Base64Error::Padding);
        bad(b"QR", b"", Base64Error::Padding);
        bad(b"QUJ=", b"", Base64Error::Padding);
    }

    #[test]
    fn bytes_outside_the_alphabet() {
        for junk in [b'"', b' ', b'\n', b'-', b'_', b'\\', 0, 0xff] {
            for at in 0..12 {
                let mut text = encode(b"abcdefghi");
                text[at] = junk;
                // Every group before the bad one is kept, wherever the cuts fall.
                let before = b"abcdefghi"[..at / 4 * 3].to_vec();
                for cut in 0..=text.len() {
                    for out_len in [3, 64] {
                        assert_eq!(
                            decode(&text, &[cut], out_len),
                            (before.clone(), Some(Base64Error::InvalidByte)),
                            "{junk} at {at} cut {cut}"
                        );
                    }
                }
            }
            // Held in the carry until the end.
            assert_eq!(
                decode(&[b'Q', junk], &[1], 3),
                (Vec::new(), Some(Base64Error::InvalidByte))
            );
        }
    }

    #[test]
    fn errors_stick_and_finish_starts_over() {
        let mut s = Base64Stream::new();
        let mut out = [0; 8];
        assert_eq!(s.decode(b"QU!D", &mut out), Err(Base64Error::InvalidByte));
        assert_eq!(s.decode(b"QUJD", &mut out), Err(Base64Error::InvalidByte));
        assert_eq!(s.finish(&mut [0; 3]), Err(Base64Error::InvalidByte));
        assert_eq!(s.decode(b"QUJD", &mut out), Ok((4, 3)));
        assert_eq!(&out[..3], b"ABC");
        // A buffer under 3 bytes only fills the carry.
        let mut s = Base64Stream::new();
        assert_eq!(s.decode(b"QUJD", &mut [0; 2]), Ok((0, 0)));
        assert_eq!(s.decode(b"QU", &mut [0; 2]), Ok((2, 0)));
        assert_eq!(s.decode(b"JD", &mut [0; 2]), Ok((2, 0)));
        assert_eq!(s.decode(b"", &mut out), Ok((0, 0)));
        assert_eq!(s.decode(b"QQ", &mut out), Ok((2, 3)));
        assert_eq!(s.finish(&mut [0; 3]), Ok(1));
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        #[test]
        fn chunk_invariance(data in prop::collection::vec(any::<u8>(), 0..200),
                            cuts in prop::collection::vec(0usize..280, 0..6),
                            out_len in 3usize..40, unpadded in any::<bool>()) {
            let mut text = encode(&data);
            if unpadded {
                while text.last() == Some(&b'=') { text.pop(); }
            }
            let mut cuts = cuts;
            cuts.sort_unstable();
            prop_assert_eq!(decode(&text, &cuts, out_len), (data, None));
        }

        #[test]
        fn garbage_is_split_invariant(text in prop::collection::vec(
                                          prop::sample::select(&b"QUJDab+/=\"! "[..]), 0..60),
                                      cuts in prop::collection::vec(0usize..60, 0..6),
                                      out_len in 3usize..10) {
            let mut cuts = cuts;
            cuts.sort_unstable();
            prop_assert_eq!(decode(&text, &cuts, out_len), decode(&text, &[], 64));
        }
    }
}
