package mcpproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The go-sdk client decodes results into Go values: structured content
// into float64 numbers (2^53+1 comes back as 2^53), tool annotations into
// plain booleans (a stated "readOnlyHint": false reads like no hint at
// all). The proxy therefore keeps the raw JSON of the responses to its own
// tools/list and tools/call requests: a rawCapture travels in the request's
// context, and the transport fills it with the raw result of each request
// sent with that context.
//
//   - stdio and custom transports: a Connection wrapper (captureConn) sees
//     the request ID on Write and the matching response on Read;
//   - streamable HTTP: the RoundTripper that adds the configured headers
//     reads the request ID from the POST body and the response from the
//     JSON or event-stream body as the SDK reads it.
//
// A custom *mcp.StreamableClientTransport is not wrapped (its connection
// relies on hooks of the SDK that a wrapper would hide), so its results
// keep the SDK's decoding. Whenever the raw result is missing (or larger
// than Options.MaxResultBytes), the SDK's values are used.

// rawCapture collects the raw results of the requests sent with a context
// that carries it (withCapture).
type rawCapture struct {
	max int

	mu      sync.Mutex
	expect  map[string]bool // HTTP: IDs of the requests sent
	results []json.RawMessage
	done    bool
}

type captureKey struct{}

func newCapture(maxBytes int) *rawCapture {
	return &rawCapture{max: maxBytes, expect: map[string]bool{}}
}

func withCapture(ctx context.Context, c *rawCapture) context.Context {
	return context.WithValue(ctx, captureKey{}, c)
}

func captureFrom(ctx context.Context) *rawCapture {
	c, _ := ctx.Value(captureKey{}).(*rawCapture)
	return c
}

// idKey is a comparable form of a JSON-RPC ID.
func idKey(id jsonrpc.ID) string {
	switch v := id.Raw().(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case string:
		return strconv.Quote(v)
	}
	return ""
}

func (c *rawCapture) sent(key string) {
	c.mu.Lock()
	c.expect[key] = true
	c.mu.Unlock()
}

func (c *rawCapture) expects(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.expect[key]
}

// add keeps a copy of raw, unless it is larger than the cap.
func (c *rawCapture) add(raw json.RawMessage) {
	if len(raw) > c.max {
		return
	}
	cp := append(json.RawMessage(nil), raw...)
	c.mu.Lock()
	if !c.done {
		c.results = append(c.results, cp)
	}
	c.mu.Unlock()
}

// finish ends the capture and returns the results, in arrival order.
func (c *rawCapture) finish() []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done = true
	return c.results
}

func (c *rawCapture) finished() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.done
}

// captureTransport wraps the connections of inner in captureConn.
type captureTransport struct{ inner mcp.Transport }

func (t captureTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &captureConn{Connection: conn, pending: map[string]*rawCapture{}}, nil
}

// captureConn hands the raw result of each response to the capture of the
// request it answers.
type captureConn struct {
	mcp.Connection

	mu      sync.Mutex
	pending map[string]*rawCapture
}

// maxPending bounds the requests waiting for an answer before the entries
// of finished captures (calls that ended without one) are dropped.
const maxPending = 64

func (c *captureConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	var key string
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		if cp := captureFrom(ctx); cp != nil {
			key = idKey(req.ID)
			c.mu.Lock()
			if len(c.pending) >= maxPending {
				for k, p := range c.pending {
					if p.finished() {
						delete(c.pending, k)
					}
				}
			}
			c.pending[key] = cp
			c.mu.Unlock()
		}
	}
	err := c.Connection.Write(ctx, msg)
	if err != nil && key != "" {
		c.mu.Lock()
		delete(c.pending, key)
		c.mu.Unlock()
	}
	return err
}

func (c *captureConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.ID.IsValid() {
		key := idKey(resp.ID)
		c.mu.Lock()
		cp := c.pending[key]
		delete(c.pending, key)
		c.mu.Unlock()
		if cp != nil && resp.Error == nil {
			cp.add(resp.Result)
		}
	}
	return msg, err
}

// captureHTTP wraps a successful JSON or event-stream response body so
// that the answer to a call noted by noteRequest is captured as the SDK
// reads it.
func captureHTTP(cp *rawCapture, resp *http.Response) {
	if resp.StatusCode < 200 || resp.StatusCode > 299 || resp.Body == nil {
		return
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "application/json":
		resp.Body = &captureBody{ReadCloser: resp.Body, cp: cp}
	case "text/event-stream":
		resp.Body = &captureBody{ReadCloser: resp.Body, cp: cp, sse: true}
	}
}

// noteRequest records the ID of the call in req's body, if it is one.
func noteRequest(cp *rawCapture, req *http.Request) {
	if req.Method != http.MethodPost || req.GetBody == nil || req.ContentLength > int64(cp.max) {
		return
	}
	body, err := req.GetBody()
	if err != nil {
		return
	}
	defer body.Close()
	b, err := io.ReadAll(io.LimitReader(body, int64(cp.max)+1))
	if err != nil || len(b) > cp.max {
		return
	}
	if msg, err := jsonrpc.DecodeMessage(b); err == nil {
		if r, ok := msg.(*jsonrpc.Request); ok && r.IsCall() {
			cp.sent(idKey(r.ID))
		}
	}
}

// captureBody passes a response body through and captures the responses
// it carries: the whole body for application/json, each event's data for
// text/event-stream. It stops capturing (and only passes bytes through)
// once a message grows beyond the capture's cap.
type captureBody struct {
	io.ReadCloser
	cp   *rawCapture
	sse  bool
	buf  []byte // JSON: the body so far; SSE: the current partial line
	data []byte // SSE: the data lines of the current event
	dead bool
}

func (b *captureBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if !b.dead {
		b.feed(p[:n])
		if err == io.EOF {
			b.end()
		}
	}
	return n, err
}

func (b *captureBody) feed(p []byte) {
	if !b.sse {
		b.buf = append(b.buf, p...)
		if len(b.buf) > b.cp.max+1024 {
			b.stop()
		}
		return
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			b.buf = append(b.buf, p...)
			if len(b.buf) > b.cp.max+1024 {
				b.stop()
			}
			return
		}
		b.buf = append(b.buf, p[:i]...)
		p = p[i+1:]
		b.line(bytes.TrimSuffix(b.buf, []byte("\r")))
		if b.dead {
			return
		}
		b.buf = b.buf[:0]
	}
}

// line handles one line of an event stream.
func (b *captureBody) line(l []byte) {
	switch {
	case len(l) == 0:
		if len(b.data) > 0 {
			b.message(b.data)
		}
		b.data = b.data[:0]
	case bytes.HasPrefix(l, []byte("data:")):
		d := bytes.TrimPrefix(l[len("data:"):], []byte(" "))
		if len(b.data) > 0 {
			b.data = append(b.data, '\n')
		}
		b.data = append(b.data, d...)
		if len(b.data) > b.cp.max+1024 {
			b.stop()
		}
	}
}

func (b *captureBody) end() {
	if b.sse {
		if len(b.buf) > 0 {
			b.line(bytes.TrimSuffix(b.buf, []byte("\r")))
		}
		b.line(nil)
	} else {
		b.message(b.buf)
	}
	b.stop()
}

func (b *captureBody) stop() {
	b.dead = true
	b.buf, b.data = nil, nil
}

// message captures data if it is the response to a call of the capture.
func (b *captureBody) message(data []byte) {
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return
	}
	if r, ok := msg.(*jsonrpc.Response); ok && r.Error == nil && r.ID.IsValid() && b.cp.expects(idKey(r.ID)) {
		b.cp.add(r.Result)
	}
}
