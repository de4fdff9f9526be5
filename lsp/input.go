package lsp

import (
	"io"
	"sync"
)

// input reads the client's stream on a goroutine of its own, so the end of
// the input is noticed at once even while the connection's reader is busy
// in a handler: ended is closed when the stream ends or fails, and the
// session then cancels everything it was doing (serve). What was read and
// not yet consumed stays queued, so messages sent just before the end
// (shutdown, exit) are still handled in order.
type input struct {
	src   io.ReadCloser
	ended chan struct{}

	mu   sync.Mutex
	cond *sync.Cond
	buf  []byte
	err  error // the error that ended the stream; io.EOF at its end
}

func newInput(src io.ReadCloser) *input {
	in := &input{src: src, ended: make(chan struct{})}
	in.cond = sync.NewCond(&in.mu)
	// Not part of the session's wait group: a read of a stream that
	// cannot be closed (a terminal) may block until the process ends.
	go in.pump()
	return in
}

func (in *input) pump() {
	chunk := make([]byte, 32<<10)
	for {
		n, err := in.src.Read(chunk)
		in.mu.Lock()
		in.buf = append(in.buf, chunk[:n]...)
		if err != nil && in.err == nil {
			in.err = err
		}
		done := in.err != nil
		in.cond.Broadcast()
		in.mu.Unlock()
		if done {
			close(in.ended)
			return
		}
	}
}

// Read returns queued bytes, waiting for some; at the end of the queue
// of an ended stream it returns the error that ended it.
func (in *input) Read(p []byte) (int, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for len(in.buf) == 0 && in.err == nil {
		in.cond.Wait()
	}
	if len(in.buf) == 0 {
		return 0, in.err
	}
	n := copy(p, in.buf)
	in.buf = in.buf[n:]
	if len(in.buf) == 0 {
		in.buf = nil
	}
	return n, nil
}

// Close closes the source and ends reads at once.
func (in *input) Close() error {
	err := in.src.Close()
	in.mu.Lock()
	if in.err == nil {
		in.err = io.ErrClosedPipe
	}
	in.buf = nil
	in.cond.Broadcast()
	in.mu.Unlock()
	return err
}

// pumped joins a pumped input with the writer of the original stream.
type pumped struct {
	*input
	io.Writer
}

func (p pumped) Close() error { return p.input.Close() }
