//! FNV-1a, 64 bits: the engine's one non-cryptographic hash, for spreading keys over lock
//! stripes and for salts and digests that only need to tell inputs apart (never against an
//! adversary: a collision costs contention or a refused token, nothing else).

/// FNV-1a's starting state.
pub(crate) const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// Continues FNV-1a from state `h` over `bytes`.
pub(crate) fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    h
}
