package mcpstdio

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

// DefaultMaxMessageBytes caps one inbound message of Transport and
// IOTransport (one line, line ending excluded) when MaxMessageBytes is 0
// or less. It is the SDK's own default line cap (16 MiB).
const DefaultMaxMessageBytes = sdk.DefaultMaxLineLength

// DefaultDrainTimeout bounds how long a session whose input has ended waits
// for the answers to the calls it has read, when DrainTimeout is 0.
const DefaultDrainTimeout = 2 * time.Second

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

// Transport is an sdk.Transport over the process's standard input and
// output: newline-delimited JSON-RPC messages, as the MCP stdio transport
// specifies (a message never contains a raw newline). ServeStdio uses it;
// pass one to (*sdk.Server).Run to set its options. Run one session on it
// at a time: nothing else in the process may read stdin or write to stdout
// meanwhile.
//
// Compared with the SDK's own StdioTransport:
//
//   - On Linux, when stdin is a pipe or a socket (what an MCP host gives its
//     server) and not the same file as stdout or stderr, the session reads
//     it directly through the Go runtime's poller, with no goroutine in
//     between (see the package documentation for what that is worth). A
//     pipe is opened again in non-blocking mode, leaving stdin's own mode
//     alone; a socket is switched to non-blocking mode for the session and
//     back when the session ends (a process killed before that leaves it
//     non-blocking). Any other stdin (a terminal, a file, another OS) is
//     read by a goroutine, as the SDK does; that goroutine may stay blocked
//     in a read after the session, as the SDK's does.
//   - Each message is decoded once, with encoding/json; a response is
//     written in one Write call without re-encoding its result.
//   - Malformed input does not end the session. A line that is not JSON
//     gets a JSON-RPC parse error (-32700); a line that is JSON but not a
//     JSON-RPC 2.0 message, a batch (a JSON array: MCP 2025-06-18 removed
//     batching, and this transport supports none), or a line longer than
//     the cap gets an invalid-request error (-32600). The answer carries
//     the request's id when the line is a request with a usable one, and
//     null otherwise (a malformed response's id belongs to the server's own
//     calls, and an over-long line is never parsed). Each is logged at WARN
//     without the line's content. Blank lines are skipped; a "\r" before the
//     newline is accepted.
//   - At the end of input the session first waits, up to DrainTimeout, for
//     the answers to the calls it has read, so that a client that writes
//     its requests and closes its side still gets the answers. (The SDK
//     cancels them at once.) The wait ends early when every call has been
//     answered, when the server sends a call of its own (its answer can no
//     longer arrive), or when the session is closed.
//   - Stdout is never closed. When the session ends, os.Stdin is closed in
//     goroutine mode; in direct mode only the session's own file (the pipe
//     opened again, or the socket's duplicate) is, and os.Stdin stays open.
//
// Messages are decoded as jsonrpc.DecodeMessage decodes them: exact,
// case-sensitive member names, unknown members ignored, a numeric id
// truncated to an integer, a "method" member makes a request.
type Transport struct {
	// MaxMessageBytes caps one inbound line (line ending excluded); 0 or
	// less means DefaultMaxMessageBytes. There is no uncapped mode (the
	// SDK's negative MaxLineLength). A longer line is consumed without being
	// kept and answered with an invalid-request error.
	MaxMessageBytes int
	// DrainTimeout bounds the wait for answers at the end of input; 0 means
	// DefaultDrainTimeout, a negative value means no wait (the SDK's
	// behaviour: calls still running are cancelled).
	DrainTimeout time.Duration
	// Logger receives the WARN records of malformed input; nil means
	// slog.Default().
	Logger *slog.Logger
	// Stop, when closed, ends the session as the end of input does: no
	// more messages are read, the answers to the calls read are awaited
	// (up to DrainTimeout) and written, then the session ends. A host
	// closes it on SIGTERM so that the calls under way are answered;
	// cancelling the context given to the SDK's Run instead cancels them
	// and their answers are never written. Nil never stops.
	Stop <-chan struct{}
}

// Connect implements sdk.Transport. It is called once per session.
func (t *Transport) Connect(context.Context) (sdk.Connection, error) {
	o := connOptions{max: t.MaxMessageBytes, drain: t.DrainTimeout, log: t.Logger, stop: t.Stop}
	if f, restore, ok := pollableStdin(); ok {
		o.dl, o.restore = f, restore
		return newConn(f, os.Stdout, o), nil
	}
	return newConn(os.Stdin, os.Stdout, o), nil
}

// IOTransport is an sdk.Transport over a given reader and writer, with the
// framing, error answers, caps and end-of-input wait of Transport.
// ServeIO uses it.
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
	// MaxMessageBytes is as in Transport.
	MaxMessageBytes int
	// DrainTimeout is as in Transport.
	DrainTimeout time.Duration
	// Logger is as in Transport.
	Logger *slog.Logger
	// Stop is as in Transport.
	Stop <-chan struct{}
}

// Connect implements sdk.Transport. It is called once per session.
func (t *IOTransport) Connect(context.Context) (sdk.Connection, error) {
	if t.Reader == nil || t.Writer == nil {
		return nil, errors.New("mcpstdio: IOTransport: Reader and Writer are both required")
	}
	o := connOptions{max: t.MaxMessageBytes, drain: t.DrainTimeout, log: t.Logger, stop: t.Stop}
	if d, ok := t.Reader.(deadliner); ok && d.SetReadDeadline(time.Time{}) == nil {
		o.dl = d
	}
	return newConn(t.Reader, t.Writer, o), nil
}

// deadliner is a reader whose pending Read a past deadline interrupts.
type deadliner interface {
	SetReadDeadline(time.Time) error
}

// connOptions are what a transport gives newConn.
type connOptions struct {
	max     int             // message cap; <= 0: DefaultMaxMessageBytes
	drain   time.Duration   // end-of-input wait; 0: DefaultDrainTimeout; < 0: none
	log     *slog.Logger    // nil: slog.Default()
	dl      deadliner       // non-nil: read r directly, interrupt with a past deadline
	restore func()          // run once reading has stopped, before r is closed
	stop    <-chan struct{} // closed: read no more, as at the end of input
}

// conn is the sdk.Connection of Transport and IOTransport.
type conn struct {
	r     io.Reader
	br    *bufio.Reader
	max   int
	drain time.Duration
	log   *slog.Logger
	dl    deadliner
	// restore and closing r happen once (release), by Close or, when a
	// direct Read is under way at Close, by that Read as it returns.
	restore  func()
	released sync.Once

	rmu  sync.Mutex      // held by a direct Read while it reads
	msgs chan readResult // goroutine mode: what readLoop read
	done chan struct{}   // closed by Close
	once sync.Once
	stop <-chan struct{} // connOptions.stop; nil: never

	wmu  sync.Mutex // serialises writes (responses and rejections)
	w    io.Writer
	wbuf []byte

	// Calls in both directions still unanswered, for the end-of-input wait.
	pmu      sync.Mutex
	pending  map[jsonrpc.ID]struct{} // the client's calls read, not yet answered
	outgoing map[jsonrpc.ID]struct{} // the server's calls written, not yet answered
	drained  chan struct{}           // set while Read waits at the end of input; closed to end the wait
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

func newConn(r io.Reader, w io.Writer, o connOptions) *conn {
	if o.max <= 0 {
		o.max = DefaultMaxMessageBytes
	}
	if o.drain == 0 {
		o.drain = DefaultDrainTimeout
	}
	if o.log == nil {
		o.log = slog.Default()
	}
	c := &conn{
		r: r, br: bufio.NewReaderSize(r, readBufferSize), max: o.max, drain: o.drain, log: o.log,
		dl: o.dl, restore: o.restore, w: w, done: make(chan struct{}), stop: o.stop,
		pending: map[jsonrpc.ID]struct{}{}, outgoing: map[jsonrpc.ID]struct{}{},
	}
	if c.dl == nil {
		c.msgs = make(chan readResult)
		go c.readLoop()
	} else if c.stop != nil {
		go func() {
			select {
			case <-c.stop:
				_ = c.dl.SetReadDeadline(time.Unix(1, 0)) // interrupts a pending Read
			case <-c.done:
			}
		}()
	}
	return c
}

// stopped reports whether Stop was closed.
func (c *conn) stopped() bool {
	select {
	case <-c.stop:
		return true
	default:
		return false
	}
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
// of input it returns io.EOF after the end-of-input wait (see
// Transport); it returns io.EOF at once when the connection is
// closed, and ctx's error when ctx is done first.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.read(ctx)
	if err == nil {
		c.track(msg)
		return msg, nil
	}
	if errors.Is(err, io.EOF) {
		c.waitForAnswers(ctx)
		return nil, io.EOF
	}
	return nil, err
}

// track records a call read from the client, and the answer to a call of
// the server.
func (c *conn) track(msg jsonrpc.Message) {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if m.ID.IsValid() {
			c.pending[m.ID] = struct{}{}
		}
	case *jsonrpc.Response:
		delete(c.outgoing, m.ID)
	}
}

// waitForAnswers is the end-of-input wait: it returns when every call read
// has been answered, when the server sends (or has sent) a call of its own
// that is still unanswered, after c.drain, or when the connection closes.
func (c *conn) waitForAnswers(ctx context.Context) {
	if c.drain < 0 {
		return
	}
	c.pmu.Lock()
	if len(c.pending) == 0 || len(c.outgoing) > 0 {
		c.pmu.Unlock()
		return
	}
	drained := make(chan struct{})
	c.drained = drained
	c.pmu.Unlock()
	t := time.NewTimer(c.drain)
	defer t.Stop()
	select {
	case <-drained:
	case <-t.C:
	case <-c.done:
	case <-ctx.Done():
	}
	c.pmu.Lock()
	if c.drained == drained {
		c.drained = nil
	}
	c.pmu.Unlock()
}

// sent records a message written to the client: the answer to one of its
// calls, or a call of the server's own.
func (c *conn) sent(msg jsonrpc.Message) {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	switch m := msg.(type) {
	case *jsonrpc.Response:
		delete(c.pending, m.ID)
		if len(c.pending) > 0 {
			return
		}
	case *jsonrpc.Request:
		if !m.ID.IsValid() {
			return
		}
		c.outgoing[m.ID] = struct{}{}
	default:
		return
	}
	if c.drained != nil {
		close(c.drained)
		c.drained = nil
	}
}

// read returns the next message or the reason there is none.
func (c *conn) read(ctx context.Context) (jsonrpc.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if c.stopped() {
		return nil, io.EOF
	}
	if c.dl == nil {
		select {
		case r := <-c.msgs:
			return r.msg, r.err
		case <-c.done:
			return nil, io.EOF
		case <-c.stop:
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	c.rmu.Lock()
	defer c.rmu.Unlock()
	if c.closed() {
		_ = c.release()
		return nil, io.EOF
	}
	msg, err := c.readMessage()
	if c.closed() { // interrupted by Close, which left the release to this Read
		_ = c.release()
		return nil, io.EOF
	}
	if err != nil && c.stopped() { // interrupted by Stop
		return nil, io.EOF
	}
	return msg, err
}

func (c *conn) closed() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// readMessage reads lines until one holds a well-formed message, answering
// malformed ones. Its error is the reader's (io.EOF at the end of input).
func (c *conn) readMessage() (jsonrpc.Message, error) {
	for {
		line, tooLong, err := c.readLine()
		if tooLong {
			c.reject(reject(jsonrpc.ID{}, codeInvalidRequest, fmt.Sprintf("invalid request: message longer than %d bytes", c.max)))
		} else if line = bytes.Trim(line, jsonSpace); len(line) > 0 {
			msg, re := decodeMessage(line)
			if re == nil {
				return msg, nil
			}
			c.reject(re)
		}
		if err != nil {
			return nil, err
		}
	}
}

// jsonSpace is JSON's insignificant whitespace; other Unicode spaces are
// not skipped (the line is then not JSON).
const jsonSpace = " \t\r\n"

// readLine returns the next line without its line ending ("\n" or "\r\n").
// A line longer than c.max is consumed up to its newline without being kept
// and reported as tooLong. At the end of input, a last line without a
// newline is returned with io.EOF. On any other read error the partial line
// is dropped.
func (c *conn) readLine() (line []byte, tooLong bool, err error) {
	var long []byte // a line longer than the read buffer, up to c.max (+1 for a "\r")
	for {
		chunk, err := c.br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if !tooLong {
				if len(long)+len(chunk) > c.max+1 {
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
		if long != nil {
			chunk = append(long, chunk...)
		}
		chunk = bytes.TrimSuffix(chunk, []byte{'\n'})
		chunk = bytes.TrimSuffix(chunk, []byte{'\r'})
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

func reject(id jsonrpc.ID, code int64, msg string) *rejection {
	return &rejection{id: id, code: code, msg: msg}
}

// decodeMessage decodes one JSON-RPC 2.0 message (a non-empty line) as
// jsonrpc.DecodeMessage does, with encoding/json. A malformed message gives
// a rejection saying how to answer it instead.
func decodeMessage(data []byte) (jsonrpc.Message, *rejection) {
	if data[0] != '{' {
		switch {
		case !json.Valid(data):
			return nil, reject(jsonrpc.ID{}, codeParseError, "parse error: not JSON")
		case data[0] == '[':
			return nil, reject(jsonrpc.ID{}, codeInvalidRequest, "invalid request: JSON-RPC batches are not supported")
		default:
			return nil, reject(jsonrpc.ID{}, codeInvalidRequest, "invalid request: a JSON-RPC message must be a JSON object")
		}
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
	// Answers to a malformed line carry its id only when it is a request:
	// the id of a response names one of the server's own calls.
	answerID := jsonrpc.ID{}
	if _, isRequest := m["method"]; isRequest {
		answerID = id
	}
	var version string
	if raw, ok := m["jsonrpc"]; !ok || json.Unmarshal(raw, &version) != nil || version != "2.0" {
		return nil, reject(answerID, codeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`)
	}
	// "error" must be null or an error object whatever the message kind, as
	// jsonrpc.DecodeMessage decodes every member before looking at any.
	wireErr, err := decodeError(m["error"])
	if err != nil {
		return nil, reject(answerID, codeInvalidRequest, `invalid request: "error" must be a JSON-RPC error object`)
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
	if c.closed() {
		return // a goroutine-mode reader still running after the session
	}
	c.log.Warn("mcpstdio: malformed JSON-RPC message answered with an error", "reason", r.msg, "code", r.code)
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
	c.sent(msg) // a response not written is not coming either
	if err := ctx.Err(); err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	buf, err := appendMessage(c.wbuf[:0], msg)
	if err != nil {
		return fmt.Errorf("mcpstdio: encode message: %w", err)
	}
	buf = append(buf, '\n')
	_, err = c.w.Write(buf)
	if cap(buf) <= maxKeptWriteBuffer {
		c.wbuf = buf[:0]
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

// Close implements sdk.Connection: it interrupts a pending Read, then
// (once reading has stopped) restores stdin's mode when the transport
// changed it and closes the reader if it is an io.Closer. It never waits for
// a Read: a direct Read under way (even one blocked writing an error answer)
// does that release itself as it returns. It is safe to call more than once
// and concurrently.
func (c *conn) Close() error {
	var err error
	c.once.Do(func() {
		close(c.done)
		if c.dl != nil {
			_ = c.dl.SetReadDeadline(time.Unix(1, 0)) // interrupts a pending Read
			if !c.rmu.TryLock() {
				return // the Read under way releases the reader
			}
			defer c.rmu.Unlock()
		}
		err = c.release()
	})
	return err
}

// release runs once reading has stopped for good; the reader's Close error
// goes to the first caller.
func (c *conn) release() (err error) {
	c.released.Do(func() {
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
