//! The journal check that runs before fjall replays the journals.
//!
//! fjall's own recovery truncates a journal at the first entry it cannot decode, which is
//! right for a torn tail but would silently drop every later batch if a byte in the middle
//! were damaged. This module reads each journal first (read-only) and decides:
//!
//! * **clean** — every batch decodes and matches its checksum;
//! * **torn tail** — the *active* (newest) journal ends in a damaged or incomplete batch and
//!   no complete batch follows it: the tail is cut off (it was never acknowledged under the
//!   `always`/`group` policies) and the byte count is reported;
//! * **corrupt** — a damaged batch in a sealed journal, or one followed by a complete batch:
//!   [`StoreError::Corrupt`] names the file and offset and nothing is modified (unless the
//!   operator asked for `repair`, which cuts the active journal at the damage).
//!
//! Journal format (fjall 3.1, little-endian), as a sequence of batches:
//!
//! ```text
//! start = 0x01 | item_count:u32 | seqno:u64
//! item  = 0x02 | value_type:u8 | compression:u8 | keyspace:u64 | key_len:u16
//!              | value_len:u32 | stored_len:u32 | key | value
//! clear = 0x04 | keyspace:u64
//! end   = 0x03 | xxh3_64(items and clears, as stored):u64 | "FJL" 0x03
//! ```

use std::fs::{File, OpenOptions};
use std::io::{BufReader, ErrorKind, Read};
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::Xxh3;

use crate::error::StoreError;

const MAGIC: [u8; 4] = [b'F', b'J', b'L', 3];
const TAG_START: u8 = 1;
const TAG_ITEM: u8 = 2;
const TAG_END: u8 = 3;
const TAG_CLEAR: u8 = 4;

/// What the check found.
#[derive(Debug, Default)]
pub(crate) struct JournalCheck {
    pub journals: usize,
    pub torn_tail_bytes: u64,
}

/// The first damaged batch of a journal.
#[derive(Debug)]
struct Damage {
    offset: u64,
    reason: String,
}

/// Checks every journal of the fjall database in `db_dir`, cutting a torn tail off the
/// active journal (or, with `repair`, any damage in it).
pub(crate) fn check_and_repair(db_dir: &Path, repair: bool) -> Result<JournalCheck, StoreError> {
    let mut journals = list_journals(db_dir)?;
    journals.sort();
    let mut check = JournalCheck { journals: journals.len(), torn_tail_bytes: 0 };
    let count = journals.len();
    for (i, (_, path)) in journals.iter().enumerate() {
        let Some(damage) = scan(path)? else { continue };
        let tail = tail_after(path, damage.offset)?;
        if tail.data_end == damage.offset {
            // Only zeros from here on: fjall's preallocated space, the clean end of a journal.
            continue;
        }
        let active = i + 1 == count;
        if !active {
            return Err(StoreError::Corrupt {
                path: path.clone(),
                offset: damage.offset,
                reason: format!("{} (in a sealed journal, which must be complete)", damage.reason),
            });
        }
        if !repair && tail.complete_batch_follows {
            return Err(StoreError::Corrupt {
                path: path.clone(),
                offset: damage.offset,
                reason: format!(
                    "{}; complete batches follow it, so it is not a torn tail (open with repair to \
                     discard everything from this offset on)",
                    damage.reason
                ),
            });
        }
        truncate(path, damage.offset)?;
        check.torn_tail_bytes += tail.data_end - damage.offset;
    }
    Ok(check)
}

/// The path of fjall's journal number `id` inside `db_dir` (`<id>.jnl`).
pub(crate) fn journal_path(db_dir: &Path, id: u64) -> PathBuf {
    db_dir.join(format!("{id}.jnl"))
}

/// The journals (`<id>.jnl`) directly inside `db_dir`, with their ids.
pub(crate) fn list_journals(db_dir: &Path) -> Result<Vec<(u64, PathBuf)>, StoreError> {
    let entries = match std::fs::read_dir(db_dir) {
        Ok(e) => e,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(StoreError::io(db_dir, e)),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| StoreError::io(db_dir, e))?;
        let name = entry.file_name();
        let Some(id) = name.to_str().and_then(|n| n.strip_suffix(".jnl")) else { continue };
        let id = id.parse::<u64>().map_err(|_| StoreError::Corrupt {
            path: entry.path(),
            offset: 0,
            reason: "journal file name is not <number>.jnl".into(),
        })?;
        out.push((id, entry.path()));
    }
    Ok(out)
}

/// A reader that counts the bytes it has consumed.
struct Counting {
    inner: BufReader<File>,
    pos: u64,
    len: u64,
}

/// Why reading a batch stopped.
enum Stop {
    Damaged(String),
    Io(std::io::Error),
}

impl Counting {
    fn fill(&mut self, buf: &mut [u8]) -> Result<(), Stop> {
        match self.inner.read_exact(buf) {
            Ok(()) => {
                self.pos += buf.len() as u64;
                Ok(())
            }
            Err(e) if e.kind() == ErrorKind::UnexpectedEof => {
                Err(Stop::Damaged("the file ends inside a batch".into()))
            }
            Err(e) => Err(Stop::Io(e)),
        }
    }

    fn u8(&mut self) -> Result<u8, Stop> {
        let mut b = [0u8; 1];
        self.fill(&mut b)?;
        Ok(b[0])
    }

    /// Feeds the next `n` bytes to `hasher` without holding them all in memory.
    fn hash_bytes(&mut self, mut n: u64, hasher: &mut Xxh3) -> Result<(), Stop> {
        if self.pos.saturating_add(n) > self.len {
            return Err(Stop::Damaged("an entry's length runs past the end of the file".into()));
        }
        let mut chunk = [0u8; 8192];
        while n > 0 {
            let take = n.min(chunk.len() as u64) as usize;
            let part = chunk.get_mut(..take).unwrap_or_default();
            self.fill(part)?;
            hasher.update(part);
            n -= take as u64;
        }
        Ok(())
    }
}

fn le_u16(b: &[u8]) -> u16 {
    let mut a = [0u8; 2];
    a.copy_from_slice(b.get(..2).unwrap_or(&[0, 0]));
    u16::from_le_bytes(a)
}

fn le_u32(b: &[u8]) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(b.get(..4).unwrap_or(&[0; 4]));
    u32::from_le_bytes(a)
}

fn le_u64(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(b.get(..8).unwrap_or(&[0; 8]));
    u64::from_le_bytes(a)
}

/// Reads one whole batch, checking its structure and checksum.
fn read_batch(r: &mut Counting) -> Result<(), Stop> {
    let tag = r.u8()?;
    if tag != TAG_START {
        return Err(Stop::Damaged(format!("expected a batch start, found entry tag {tag}")));
    }
    let mut head = [0u8; 12];
    r.fill(&mut head)?;
    let count = le_u32(&head);
    let mut hasher = Xxh3::new();
    for n in 0..count {
        match r.u8()? {
            TAG_ITEM => {
                // value_type, compression, keyspace, key_len, value_len, stored_len
                let mut h = [0u8; 20];
                r.fill(&mut h)?;
                hasher.update(&[TAG_ITEM]);
                hasher.update(&h);
                if h[1] != 0 {
                    return Err(Stop::Damaged(format!(
                        "entry {n} uses compression {}, which monotable never writes",
                        h[1]
                    )));
                }
                let key_len = u64::from(le_u16(&h[10..]));
                let value_len = le_u32(&h[12..]);
                let stored_len = le_u32(&h[16..]);
                if value_len != stored_len {
                    return Err(Stop::Damaged(format!("entry {n} has inconsistent value lengths")));
                }
                r.hash_bytes(key_len + u64::from(stored_len), &mut hasher)?;
            }
            TAG_CLEAR => {
                let mut h = [0u8; 8];
                r.fill(&mut h)?;
                hasher.update(&[TAG_CLEAR]);
                hasher.update(&h);
            }
            other => {
                return Err(Stop::Damaged(format!("entry {n} of {count} has unknown tag {other}")));
            }
        }
    }
    let tag = r.u8()?;
    if tag != TAG_END {
        return Err(Stop::Damaged(format!("batch of {count} entries has no end marker (found tag {tag})")));
    }
    let mut end = [0u8; 12];
    r.fill(&mut end)?;
    if end[8..] != MAGIC {
        return Err(Stop::Damaged("batch end marker has a damaged trailer".into()));
    }
    if le_u64(&end) != hasher.digest() {
        return Err(Stop::Damaged("batch checksum mismatch".into()));
    }
    Ok(())
}

/// The first damaged batch of the journal at `path`, if any.
fn scan(path: &Path) -> Result<Option<Damage>, StoreError> {
    let file = File::open(path).map_err(|e| StoreError::io(path, e))?;
    let len = file.metadata().map_err(|e| StoreError::io(path, e))?.len();
    let mut r = Counting { inner: BufReader::with_capacity(1 << 16, file), pos: 0, len };
    while r.pos < len {
        let offset = r.pos;
        match read_batch(&mut r) {
            Ok(()) => {}
            Err(Stop::Damaged(reason)) => return Ok(Some(Damage { offset, reason })),
            Err(Stop::Io(e)) => return Err(StoreError::io(path, e)),
        }
    }
    Ok(None)
}

/// What follows a damaged batch.
struct Tail {
    /// A complete end marker (`0x03`, 8 checksum bytes, the magic) appears after the damage,
    /// i.e. some batch after the damaged one was written entirely.
    complete_batch_follows: bool,
    /// The offset just past the last non-zero byte at or after the damage (fjall
    /// preallocates journals with zeros, so a zero-filled rest of the file is free space,
    /// not damage); equal to the damage offset when everything from it on is zero.
    data_end: u64,
}

/// Reads the file from `offset` on, looking for complete batches after it and for the end
/// of the data.
fn tail_after(path: &Path, offset: u64) -> Result<Tail, StoreError> {
    const CHUNK: usize = 1 << 16;
    static ZEROS: [u8; CHUNK] = [0u8; CHUNK];
    let file = File::open(path).map_err(|e| StoreError::io(path, e))?;
    let mut reader = BufReader::with_capacity(CHUNK, file);
    let skip = offset.saturating_add(1);
    std::io::copy(&mut (&mut reader).take(skip), &mut std::io::sink())
        .map_err(|e| StoreError::io(path, e))?;
    let mut tail = Tail { complete_batch_follows: false, data_end: offset };
    let mut pos = skip;
    let mut window = [0u8; 13];
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = reader.read(&mut buf).map_err(|e| StoreError::io(path, e))?;
        let Some(chunk) = buf.get(..n).filter(|c| !c.is_empty()) else { return Ok(tail) };
        // Slice equality is a memcmp, fast even in debug builds; zero chunks hold no marker.
        if chunk != ZEROS.get(..n).unwrap_or_default() {
            for (i, &b) in chunk.iter().enumerate() {
                window.rotate_left(1);
                window[12] = b;
                if b != 0 {
                    tail.data_end = pos + i as u64 + 1;
                }
                // The window holds bytes pos+i-12 ..= pos+i; its first must lie after `offset`.
                if window[0] == TAG_END && window[9..] == MAGIC && pos + i as u64 >= offset + 13 {
                    tail.complete_batch_follows = true;
                    return Ok(tail);
                }
            }
        } else {
            window = [0u8; 13];
        }
        pos += n as u64;
    }
}

/// Cuts the file at `offset` and flushes it.
fn truncate(path: &Path, offset: u64) -> Result<(), StoreError> {
    let file = OpenOptions::new().write(true).open(path).map_err(|e| StoreError::io(path, e))?;
    file.set_len(offset).and_then(|()| file.sync_all()).map_err(|e| StoreError::io(path, e))
}
