//! A request body as it arrives: its frames, kept as hyper hands them over, and joined into
//! one buffer only where the request runs.
//!
//! Why frames and not a growing buffer: a buffer that doubles as a 16 MiB body arrives copies
//! up to 8 MiB at a time, on the async worker that reads the body, and faults in the pages of
//! each new buffer. Forty such bodies arriving together doubled together, and each round of
//! the worker over their connections took a few milliseconds per body: a GetItem queued behind
//! them waited 150 to 200 ms. Kept as frames, a body costs the worker nothing but the reads;
//! the one copy that joins a large body happens on the blocking pool, where large bodies run.
//!
//! Invariant: a body holds its frames' bytes and no more than the blocks of hyper's read
//! buffer that those frames are views into (hyper fills one block after another, so a body's
//! frames share blocks with each other and at most two with the rest of the connection's
//! traffic). A body that declares 16 MiB and sends two bytes holds two bytes: nothing is
//! reserved for what was declared.

use bytes::{Bytes, BytesMut};

/// The frames of one request body.
#[derive(Debug, Default)]
pub(crate) struct Body {
    /// The first frame: usually the whole body, a view into hyper's read buffer.
    first: Option<Bytes>,
    /// The frames after the first, if any.
    rest: Vec<Bytes>,
    len: usize,
}

impl Body {
    /// The bytes that have arrived.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether the body arrived in more than one frame, and so holds blocks that are no
    /// longer hyper's current read buffer (the budget of buffered bytes counts such a body).
    pub(crate) fn is_split(&self) -> bool {
        !self.rest.is_empty()
    }

    /// Adds the next frame.
    pub(crate) fn push(&mut self, frame: Bytes) {
        self.len += frame.len();
        match self.first {
            None => self.first = Some(frame),
            Some(_) => self.rest.push(frame),
        }
    }

    /// The body in one buffer: the first frame itself when it is the only one, else one copy
    /// of every frame into a buffer of the body's exact size.
    pub(crate) fn join(self) -> Bytes {
        let Some(first) = self.first else { return Bytes::new() };
        if self.rest.is_empty() {
            return first;
        }
        let mut joined = BytesMut::with_capacity(self.len);
        joined.extend_from_slice(&first);
        for frame in &self.rest {
            joined.extend_from_slice(frame);
        }
        joined.freeze()
    }
}

impl From<Bytes> for Body {
    /// A body of one frame.
    fn from(bytes: Bytes) -> Body {
        let mut body = Body::default();
        body.push(bytes);
        body
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_of_one_frame_is_that_frame_uncopied() {
        let frame = Bytes::from(vec![b'x'; 1000]);
        let mut body = Body::default();
        body.push(frame.clone());
        assert_eq!((body.len(), body.is_split()), (1000, false));
        let joined = body.join();
        assert_eq!(joined.as_ptr(), frame.as_ptr(), "no copy was made");
    }

    #[test]
    fn frames_are_joined_in_order_into_a_buffer_of_the_exact_size() {
        let mut body = Body::default();
        for i in 0..100u8 {
            body.push(Bytes::from(vec![i; 1000]));
        }
        assert_eq!((body.len(), body.is_split()), (100_000, true));
        let joined = body.join();
        assert_eq!(joined.len(), 100_000);
        assert!(joined.chunks(1000).enumerate().all(|(i, chunk)| chunk.iter().all(|&b| b == i as u8)));
        assert_eq!(Body::default().join().len(), 0);
    }

    #[test]
    fn a_body_holds_what_arrived_not_what_was_declared() {
        let mut body = Body::default();
        body.push(Bytes::from_static(b"{"));
        body.push(Bytes::from_static(b"\""));
        let held: usize = body.first.iter().chain(&body.rest).map(Bytes::len).sum();
        assert_eq!((body.len(), held), (2, 2));
    }
}
