//! A connection's socket, read at most [`READ_SLICE_BYTES`] at a time.
//!
//! Why: a read is work the async worker does in one go, and hyper asks for as much as its read
//! buffer holds (up to 417,792 bytes). While forty 16 MiB bodies arrived together, each poll of
//! their connections read and copied up to two such buffers, each round of the worker over
//! them took 25 to 55 ms, and a GetItem on another connection waited for the round (its worst
//! 57 to 95 ms under `monotable bench --attack held-bodies`; 17 to 18 ms with reads of 64 KiB).
//!
//! Why not hyper's own `max_buf_size`: it also caps the request head hyper parses, and past it
//! hyper answers 431 where DynamoDB answers 400 (`transport::MAX_HEAD_PART_BYTES`). A slice of
//! each read leaves hyper's buffer, and so its head limit, alone.
//!
//! Invariant: writes pass through untouched (vectored writes included); only the length a
//! single read may fill is capped.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The most bytes one read of a connection fills.
pub(crate) const READ_SLICE_BYTES: usize = 64 * 1024;

/// `inner`, read at most [`READ_SLICE_BYTES`] at a time.
pub(crate) struct SlicedReads<T> {
    inner: T,
}

impl<T> SlicedReads<T> {
    pub(crate) fn new(inner: T) -> SlicedReads<T> {
        SlicedReads { inner }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for SlicedReads<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if buf.remaining() <= READ_SLICE_BYTES {
            return Pin::new(&mut self.inner).poll_read(cx, buf);
        }
        // A read into the first READ_SLICE_BYTES of what is left, then the same bytes marked
        // filled (and initialized) in `buf`.
        let mut slice = buf.take(READ_SLICE_BYTES);
        let poll = Pin::new(&mut self.inner).poll_read(cx, &mut slice);
        let filled = slice.filled().len();
        if let Poll::Ready(Ok(())) = poll {
            // SAFETY: `slice` is a view of `buf`'s unfilled part, and the inner read filled
            // (so initialized) its first `filled` bytes.
            unsafe { buf.assume_init(filled) };
            buf.advance(filled);
        }
        poll
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for SlicedReads<T> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, data)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, data)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    #[tokio::test]
    async fn a_read_fills_at_most_a_slice_and_every_byte_arrives_in_order() {
        let (mut client, server) = tokio::io::duplex(4 << 20);
        let sent: Vec<u8> = (0..1_000_000u32).map(|i| (i % 251) as u8).collect();
        client.write_all(&sent).await.unwrap();
        drop(client);
        let mut sliced = SlicedReads::new(server);
        let mut buffer = vec![0u8; 1 << 20];
        let mut received = Vec::new();
        loop {
            let n = sliced.read(&mut buffer).await.unwrap();
            assert!(n <= READ_SLICE_BYTES, "one read filled {n} bytes");
            if n == 0 {
                break;
            }
            received.extend_from_slice(&buffer[..n]);
        }
        assert_eq!(received, sent);
    }

    #[tokio::test]
    async fn writes_pass_through() {
        let (client, mut server) = tokio::io::duplex(1 << 16);
        let mut sliced = SlicedReads::new(client);
        sliced.write_all(b"written whole").await.unwrap();
        drop(sliced);
        let mut got = Vec::new();
        server.read_to_end(&mut got).await.unwrap();
        assert_eq!(got, b"written whole");
    }
}
