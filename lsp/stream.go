package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// maxMessage bounds one message's body. A larger Content-Length is skipped
// rather than allocated: a broken client must not exhaust memory.
const maxMessage = 256 << 20

// stream is the LSP base protocol (Content-Length framed JSON-RPC) over a
// byte stream. Unlike jsonrpc2.NewStream it survives bad input: a frame
// that is not valid JSON-RPC is reported through bad and skipped, header
// garbage is skipped up to the next blank line, and a Content-Length that
// lies is recovered from at the next header. jsonrpc2's Conn
// closes the connection on any Read error, so only the end of the input
// (or a closed pipe) ends the session.
type stream struct {
	in  *bufio.Reader
	out io.Writer
	c   io.Closer
	bad func(error) // reports a skipped frame; may be nil

	wmu sync.Mutex
}

var _ jsonrpc2.Stream = (*stream)(nil)

func newStream(rwc io.ReadWriteCloser, bad func(error)) *stream {
	return &stream{in: bufio.NewReader(rwc), out: rwc, c: rwc, bad: bad}
}

// Read returns the next well-formed message.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return nil, total, err
		}
		length, n, err := s.readHeader()
		total += n
		if err != nil {
			return nil, total, err
		}
		if length < 0 {
			s.report(errors.New("jsonrpc: frame without a valid Content-Length header skipped"))
			continue
		}
		if length > maxMessage {
			m, err := io.CopyN(io.Discard, s.in, length)
			total += m
			if err != nil {
				return nil, total, err
			}
			s.report(fmt.Errorf("jsonrpc: message of %d bytes skipped (limit %d)", length, maxMessage))
			continue
		}
		// ReadAll over a limit grows with the data actually sent, so a
		// Content-Length that lies costs nothing.
		data, err := io.ReadAll(io.LimitReader(s.in, length))
		total += int64(len(data))
		if err != nil {
			return nil, total, err
		}
		if int64(len(data)) < length {
			return nil, total, io.ErrUnexpectedEOF
		}
		msg, err := decodeMessage(data)
		if err != nil {
			s.report(err)
			continue
		}
		return msg, total, nil
	}
}

// readHeader reads header lines up to the blank line and returns the
// Content-Length, or -1 when it is missing or unreadable.
func (s *stream) readHeader() (length, total int64, err error) {
	length = -1
	sawLine := false
	for {
		line, err := s.in.ReadString('\n')
		total += int64(len(line))
		if err != nil {
			if err == io.EOF && !sawLine && line == "" {
				return -1, total, io.EOF
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return -1, total, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			if !sawLine {
				continue // stray blank lines between frames
			}
			return length, total, nil
		}
		sawLine = true
		// The header may follow the tail of a body whose Content-Length
		// was too short (no newline in between): take it wherever it is
		// on the line, so the stream falls back in step.
		i := lastIndexFoldASCII(line, "content-length:")
		if i < 0 {
			continue
		}
		value := line[i+len("content-length:"):]
		n, perr := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if perr != nil || n <= 0 {
			length = -1
			continue
		}
		length = n
	}
}

// decodeMessage decodes one JSON-RPC message, turning every failure
// (including a panic in a decoder) into an error.
func decodeMessage(data []byte) (msg jsonrpc2.Message, err error) {
	defer func() {
		if r := recover(); r != nil {
			msg, err = nil, fmt.Errorf("jsonrpc: undecodable message: %v", r)
		}
	}()
	if !json.Valid(data) {
		return nil, fmt.Errorf("jsonrpc: message is not valid JSON (%d bytes)", len(data))
	}
	msg, err = jsonrpc2.DecodeMessage(data)
	if err != nil {
		return nil, fmt.Errorf("jsonrpc: %w", err)
	}
	return msg, nil
}

func (s *stream) report(err error) {
	if s.bad != nil {
		s.bad(err)
	}
}

// Write sends one message as a single write.
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return 0, fmt.Errorf("jsonrpc: marshal: %w", err)
	}
	buf := make([]byte, 0, len(data)+32)
	buf = append(buf, "Content-Length: "...)
	buf = strconv.AppendInt(buf, int64(len(data)), 10)
	buf = append(buf, "\r\n\r\n"...)
	buf = append(buf, data...)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	n, err := s.out.Write(buf)
	return int64(n), err
}

// Close closes the underlying connection.
func (s *stream) Close() error { return s.c.Close() }

// lastIndexFoldASCII is strings.LastIndex ignoring ASCII case; other bytes
// compare as they are, so the index is one into s itself.
func lastIndexFoldASCII(s, lower string) int {
	for i := len(s) - len(lower); i >= 0; i-- {
		j := 0
		for j < len(lower) {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != lower[j] {
				break
			}
			j++
		}
		if j == len(lower) {
			return i
		}
	}
	return -1
}
