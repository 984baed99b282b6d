//! CRC-32 (IEEE, as the AWS event stream's prelude and message CRCs use): `crc32fast`
//! natively; on wasm32 one 1 KB table, bytewise, since crc32fast's 16 KB of slice-by-16
//! tables cannot be compressed and were a tenth of the npm package's gzipped .wasm
//! (js/README.md, "Size"); an event stream's frames are small, so speed barely matters there.

/// `crc` (a finished CRC-32, 0 to start) continued over `bytes`.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn update(crc: u32, bytes: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new_with_initial(crc);
    h.update(bytes);
    h.finalize()
}

/// `crc` (a finished CRC-32, 0 to start) continued over `bytes`.
#[cfg(target_arch = "wasm32")]
pub(crate) fn update(crc: u32, bytes: &[u8]) -> u32 {
    small_update(crc, bytes)
}

/// The CRC-32 of `bytes`.
pub(crate) fn hash(bytes: &[u8]) -> u32 {
    update(0, bytes)
}

/// The reflected IEEE polynomial's table, one entry per byte value.
#[cfg(any(target_arch = "wasm32", test))]
const TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
};

#[cfg(any(target_arch = "wasm32", test))]
fn small_update(crc: u32, bytes: &[u8]) -> u32 {
    let mut c = !crc;
    for &b in bytes {
        c = TABLE[((c ^ u32::from(b)) & 0xFF) as usize] ^ (c >> 8);
    }
    !c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_small_table_agrees_with_crc32fast() {
        assert_eq!(small_update(0, b"123456789"), 0xCBF4_3926);
        let mut data = [0u8; 3000];
        for (i, b) in data.iter_mut().enumerate() {
            *b = (i * 7919 % 251) as u8;
        }
        for cut in [0, 1, 7, 1000, 2999, 3000] {
            let (a, b) = data.split_at(cut);
            assert_eq!(small_update(small_update(0, a), b), crc32fast::hash(&data));
            assert_eq!(update(update(0, a), b), crc32fast::hash(&data));
        }
    }
}
