package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxMessageBytes caps one inbound message of StdioTransport and
// IOTransport (one line, newline excluded) when MaxMessageBytes is 0 or
// less. It is the SDK's own default line cap (16 MiB).
const DefaultMaxMessageBytes = sdk.DefaultMaxLineLength

// JSON-RPC error codes the transports answer malformed input with.
const (
	codeParseError     = jsonrpc.CodeParseError
	codeInvalidRequest = jsonrpc.CodeInvalidRequest
)

// readBufferSize is the size of a connection's read buffer; longer lines
// are assembled from several reads, up to the message cap.
const readBufferSize = 64 << 10

// maxKeptWriteBuffer bounds the write buffer kept between messages, so that
// one huge response does not pin its buffer for the rest of the session.
const maxKeptWriteBuffer = 64 << 10

// StdioTransport is an sdk.Transport over the process's standard input and
// output: newline-delimited JSON-RPC messages, as the MCP stdio transport
// specifies (a message never contains a raw newline). ServeStdio uses it;
// pass one to (*sdk.Server).Run to set its options.
//
// Compared with the SDK's own StdioTransport:
//
//   - When stdin is a pipe or a socket (what an MCP client gives its server)
//     and not the same file as stdout, the session reads it directly, with
//     no goroutine between the pipe and the session: stdin is switched to
//     non-blocking mode for the session, so that the Go runtime's poller
//     waits for input and closing the session interrupts a pending read,
//     and its blocking mode is restored when the session ends. Nothing
//     else in the process may read stdin meanwhile. Any other stdin (a
//     terminal, a file) is read by a goroutine, as the SDK does.
//   - Each message is decoded once, with encoding/json; a response is
//     written in one Write call without re-encoding its result.
//   - Malformed input does not end the session. A line that is not JSON
//     gets a JSON-RPC parse error (-32700, id null); a line that is JSON but
//     not a JSON-RPC 2.0 message, a batch (a JSON array: MCP 2025-06-18
//     removed batching, and this transport supports none), or a line longer
//     than the cap gets an invalid-request error (-32600, with the
//     message's id when it has a usable one). Each is logged at WARN
//     without the line's content. Blank lines are skipped; a trailing "\r"
//     is accepted.
//   - Stdout is never closed (the SDK closes it when the session ends).
//
// Messages are decoded as jsonrpc.DecodeMessage decodes them: exact,
// case-sensitive member names, unknown members ignored, a numeric id
// truncated to an integer, a "method" member makes a request.
type StdioTransport struct {
	// MaxMessageBytes caps one inbound line (newline excluded); 0 or less
	// means DefaultMaxMessageBytes. A longer line is consumed without being
	// kept and answered with an invalid-request error.
	MaxMessageBytes int
	// Logger receives the WARN records of malformed input; nil means
	// slog.Default().
	Logger *slog.Logger
}

// Connect implements sdk.Transport. It is called once per session.
func (t *StdioTransport) Connect(context.Context) (sdk.Connection, error) {
	if f, restore, ok := pollableStdin(); ok {
		return newConn(f, os.Stdout, t.MaxMessageBytes, t.Logger, f, restore), nil
	}
	return newConn(os.Stdin, os.Stdout, t.MaxMessageBytes, t.Logger, nil, nil), nil
}

// IOTransport is an sdk.Transport over a given reader and writer, with the
// framing, error answers and caps of StdioTransport. ServeIO uses it.
//
// A Reader with read deadlines (a net.Conn, or an *os.File the runtime
// polls, such as either end of os.Pipe) is read directly by the session;
// any other Reader is read by a goroutine. When the session ends, a pending
// read is interrupted (by a past deadline, or by closing Reader) and Reader
// is closed if it is an io.Closer; Writer is never closed.
type IOTransport struct {
	// Reader supplies the client's messages, one per line.
	Reader io.Reader
	// Writer receives the server's messages, one per line. Each message is
	// one Write call.
	Writer io.Writer
	// MaxMessageBytes is as in StdioTransport.
	MaxMessageBytes int
	// Logger is as in StdioTransport.
	Logger *slog.Logger
}

// Connect implements sdk.Transport. It is called once per session.
func (t *IOTransport) Connect(context.Context) (sdk.Connection, error) {
	if t.Reader == nil || t.Writer == nil {
		return nil, errors.New("adapters/mcp: IOTransport: Reader and Writer are both required")
	}
	var dl deadliner
	if d, ok := t.Reader.(deadliner); ok && d.SetReadDeadline(time.Time{}) == nil {
		dl = d
	}
	return newConn(t.Reader, t.Writer, t.MaxMessageBytes, t.Logger, dl, nil), nil
}

// deadliner is a reader whose pending Read a past deadline interrupts.
type deadliner interface {
	SetReadDeadline(time.Time) error
}

// conn is the sdk.Connection of StdioTransport and IOTransport.
type conn struct {
	r       io.Reader
	br      *bufio.Reader
	max     int
	log     *slog.Logger
	dl      deadliner // non-nil: Read reads r itself; Close interrupts it with a past deadline
	restore func()    // run once reading has stopped, before r is closed

	rmu  sync.Mutex      // held by a direct Read while it reads
	msgs chan readResult // goroutine mode: what readLoop read
	done chan struct{}   // closed by Close
	once sync.Once

	wmu  sync.Mutex // serialises writes (responses and rejections)
	w    io.Writer
	wbuf []byte

	// Calls read but not yet answered, so that the end of input waits for
	// their responses (see Read).
	pmu     sync.Mutex
	pending map[jsonrpc.ID]struct{}
	drained chan struct{} // set while Read waits at the end of input; closed when pending empties
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

func newConn(r io.Reader, w io.Writer, maxBytes int, log *slog.Logger, dl deadliner, restore func()) *conn {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxMessageBytes
	}
	if log == nil {
		log = slog.Default()
	}
	c := &conn{
		r: r, br: bufio.NewReaderSize(r, readBufferSize), max: maxBytes, log: log,
		dl: dl, restore: restore, w: w, done: make(chan struct{}),
	}
	if dl == nil {
		c.msgs = make(chan readResult)
		go c.readLoop()
	}
	return c
}

// readLoop feeds Read when the reader cannot be interrupted by a deadline.
// It ends at the first read error or when the connection closes.
func (c *conn) readLoop() {
	for {
		msg, err := c.readMessage()
		select {
		case c.msgs <- readResult{msg, err}:
		case <-c.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// Read implements sdk.Connection: the next well-formed message. At the end
// of input it first waits until every call it returned has been answered
// (so that a client that sends its requests and closes its side still gets
// the answers), then returns io.EOF; it returns io.EOF at once when the
// connection is closed, and ctx's error when ctx is done first.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.read(ctx)
	if err == nil {
		if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
			c.pmu.Lock()
			if c.pending == nil {
				c.pending = map[jsonrpc.ID]struct{}{}
			}
			c.pending[req.ID] = struct{}{}
			c.pmu.Unlock()
		}
		return msg, nil
	}
	if errors.Is(err, io.EOF) {
		c.pmu.Lock()
		if len(c.pending) == 0 {
			c.pmu.Unlock()
			return nil, io.EOF
		}
		drained := make(chan struct{})
		c.drained = drained
		c.pmu.Unlock()
		select {
		case <-drained:
		case <-c.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return nil, io.EOF
	}
	return nil, err
}

// answered records that the call id has its response.
func (c *conn) answered(id jsonrpc.ID) {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	delete(c.pending, id)
	if len(c.pending) == 0 && c.drained != nil {
		close(c.drained)
		c.drained = nil
	}
}

// read returns the next message or the reason there is none.
func (c *conn) read(ctx context.Context) (jsonrpc.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if c.dl == nil {
		select {
		case r := <-c.msgs:
			return r.msg, r.err
		case <-c.done:
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	c.rmu.Lock()
	defer c.rmu.Unlock()
	select {
	case <-c.done:
		return nil, io.EOF
	default:
	}
	msg, err := c.readMessage()
	if err != nil {
		select {
		case <-c.done: // interrupted by Close
			return nil, io.EOF
		default:
		}
	}
	return msg, err
}

// readMessage reads lines until one holds a well-formed message, answering
// malformed ones. Its error is the reader's (io.EOF at the end of input).
func (c *conn) readMessage() (jsonrpc.Message, error) {
	for {
		line, tooLong, err := c.readLine()
		if tooLong {
			c.reject(&rejection{code: codeInvalidRequest, msg: fmt.Sprintf("invalid request: message longer than %d bytes", c.max)})
		} else if line = bytes.TrimSpace(line); len(line) > 0 {
			msg, derr := decodeMessage(line)
			if derr == nil {
				return msg, nil
			}
			var re *rejection
			if errors.As(derr, &re) {
				c.reject(re)
			}
		}
		if err != nil {
			return nil, err
		}
	}
}

// readLine returns the next line without its newline. A line longer than
// c.max is consumed up to its newline without being kept and reported as
// tooLong. At the end of input, a last line without a newline is returned
// with io.EOF. On any other read error the partial line is dropped.
func (c *conn) readLine() (line []byte, tooLong bool, err error) {
	var long []byte // a line longer than the read buffer, up to c.max
	for {
		chunk, err := c.br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if !tooLong {
				if len(long)+len(chunk) > c.max {
					tooLong, long = true, nil
				} else {
					long = append(long, chunk...)
				}
			}
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, false, err
		}
		if tooLong {
			return nil, true, err
		}
		chunk = bytes.TrimSuffix(chunk, []byte{'\n'})
		if long != nil {
			chunk = append(long, chunk...)
		}
		if len(chunk) > c.max {
			return nil, true, err
		}
		return chunk, false, err
	}
}

// rejection is a malformed message and how it is answered.
type rejection struct {
	id   jsonrpc.ID
	code int64
	msg  string
}

func (r *rejection) Error() string { return r.msg }

func reject(id jsonrpc.ID, code int64, msg string) error {
	return &rejection{id: id, code: code, msg: msg}
}

// decodeMessage decodes one JSON-RPC 2.0 message (a non-empty line) as
// jsonrpc.DecodeMessage does, with encoding/json. A malformed message is a
// *rejection saying how to answer it.
func decodeMessage(data []byte) (jsonrpc.Message, error) {
	switch data[0] {
	case '{':
	case '[':
		if !json.Valid(data) {
			return nil, reject(jsonrpc.ID{}, codeParseError, "parse error: not JSON")
		}
		return nil, reject(jsonrpc.ID{}, codeInvalidRequest, "invalid request: JSON-RPC batches are not supported")
	default:
		if !json.Valid(data) {
			return nil, reject(jsonrpc.ID{}, codeParseError, "parse error: not JSON")
		}
		return nil, reject(jsonrpc.ID{}, codeInvalidRequest, "invalid request: a JSON-RPC message must be a JSON object")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, reject(jsonrpc.ID{}, codeParseError, "parse error: not JSON")
	}
	var rawID any
	if raw, ok := m["id"]; ok {
		if err := json.Unmarshal(raw, &rawID); err != nil {
			return nil, reject(jsonrpc.ID{}, codeInvalidRequest, `invalid request: "id" must be a string, a number or null`)
		}
	}
	id, err := jsonrpc.MakeID(rawID)
	if err != nil {
		return nil, reject(jsonrpc.ID{}, codeInvalidRequest, `invalid request: "id" must be a string, a number or null`)
	}
	var version string
	if raw, ok := m["jsonrpc"]; !ok || json.Unmarshal(raw, &version) != nil || version != "2.0" {
		return nil, reject(id, codeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`)
	}
	// "error" must be null or an error object whatever the message kind, as
	// jsonrpc.DecodeMessage decodes every member before looking at any.
	wireErr, err := decodeError(m["error"])
	if err != nil {
		return nil, reject(id, codeInvalidRequest, `invalid request: "error" must be a JSON-RPC error object`)
	}
	if raw, ok := m["method"]; ok {
		var method string
		if err := json.Unmarshal(raw, &method); err != nil {
			return nil, reject(id, codeInvalidRequest, `invalid request: "method" must be a string`)
		}
		return &jsonrpc.Request{ID: id, Method: method, Params: m["params"]}, nil
	}
	if !id.IsValid() {
		return nil, reject(jsonrpc.ID{}, codeInvalidRequest, `invalid request: a message needs a "method" or an "id"`)
	}
	resp := &jsonrpc.Response{ID: id, Result: m["result"]}
	if wireErr != nil {
		resp.Error = wireErr
	}
	return resp, nil
}

// decodeError decodes the "error" member of a message (absent or null: nil)
// with exact, case-sensitive member names, as the SDK does.
func decodeError(raw json.RawMessage) (*jsonrpc.Error, error) {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	e := &jsonrpc.Error{Data: m["data"]}
	if c, ok := m["code"]; ok {
		if err := json.Unmarshal(c, &e.Code); err != nil {
			return nil, err
		}
	}
	if msg, ok := m["message"]; ok {
		if err := json.Unmarshal(msg, &e.Message); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// reject answers a malformed line with a JSON-RPC error and logs it at WARN
// (never with the line's content).
func (c *conn) reject(r *rejection) {
	c.log.Warn("adapters/mcp: malformed JSON-RPC message answered with an error", "reason", r.msg, "code", r.code)
	wire := struct {
		JSONRPC string        `json:"jsonrpc"`
		ID      any           `json:"id"`
		Error   jsonrpc.Error `json:"error"`
	}{"2.0", r.id.Raw(), jsonrpc.Error{Code: r.code, Message: r.msg}}
	data, err := json.Marshal(wire)
	if err != nil {
		return
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, _ = c.w.Write(append(data, '\n'))
}

// Write implements sdk.Connection: msg as one line, in one Write call.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	buf, err := appendMessage(c.wbuf[:0], msg)
	if err != nil {
		return fmt.Errorf("adapters/mcp: encode message: %w", err)
	}
	buf = append(buf, '\n')
	_, err = c.w.Write(buf)
	if cap(buf) <= maxKeptWriteBuffer {
		c.wbuf = buf[:0]
	}
	if r, ok := msg.(*jsonrpc.Response); ok {
		c.answered(r.ID)
	}
	return err
}

// appendMessage appends the wire form of msg to buf (no newline). A
// successful response with an integer id is written around its result as
// the SDK produced it (compact JSON, which jsonrpc.EncodeMessage would only
// copy); every other message goes through jsonrpc.EncodeMessage. A result
// holding a raw newline or carriage return also goes through
// EncodeMessage, which compacts it, so that a message is always one line.
func appendMessage(buf []byte, msg jsonrpc.Message) ([]byte, error) {
	if r, ok := msg.(*jsonrpc.Response); ok && r.Error == nil && len(r.Result) > 0 &&
		bytes.IndexByte(r.Result, '\n') < 0 && bytes.IndexByte(r.Result, '\r') < 0 {
		if n, ok := r.ID.Raw().(int64); ok {
			buf = append(buf, `{"jsonrpc":"2.0","id":`...)
			buf = strconv.AppendInt(buf, n, 10)
			buf = append(buf, `,"result":`...)
			buf = append(buf, r.Result...)
			return append(buf, '}'), nil
		}
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return buf, err
	}
	return append(buf, data...), nil
}

// Close implements sdk.Connection: it interrupts a pending Read, restores
// stdin's blocking mode when the transport changed it, and closes the
// reader if it is an io.Closer. It is safe to call more than once and
// concurrently.
func (c *conn) Close() error {
	var err error
	c.once.Do(func() {
		close(c.done)
		if c.dl != nil {
			_ = c.dl.SetReadDeadline(time.Unix(1, 0)) // interrupts a pending Read
			c.rmu.Lock()                              // that Read has returned
			defer c.rmu.Unlock()
		}
		if c.restore != nil {
			c.restore()
		}
		if cl, ok := c.r.(io.Closer); ok {
			if cerr := cl.Close(); cerr != nil && !errors.Is(cerr, os.ErrClosed) {
				err = cerr
			}
		}
	})
	return err
}

// SessionID implements sdk.Connection; stdio sessions have no ID.
func (c *conn) SessionID() string { return "" }
