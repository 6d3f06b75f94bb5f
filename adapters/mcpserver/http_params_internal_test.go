package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzParamsError: for any method and params, the check never panics;
// params that decode into the method's SDK type pass, unless the method
// requires params and they are null, or they are logging/setLevel's with
// a level MCP does not define; an error is -32602, names the method and
// names no Go type.
func FuzzParamsError(f *testing.F) {
	methods := make([]string, 0, len(paramsOf))
	for m := range paramsOf {
		methods = append(methods, m)
	}
	sort.Strings(methods)
	for i, p := range []string{`"x"`, `{"name":5}`, `{"name":"e","_meta":5}`, `[1]`, `{"name":"e","arguments":"s"}`,
		`{"cursor":5}`, `{"protocolVersion":2,"capabilities":{"roots":{"listChanged":"x"}}}`, `{"uri":{}}`, `{"level":[]}`,
		`{"ref":{"type":5},"argument":{"name":1}}`, `null`, `{}`, `{"name":"greet","_meta":{"progressToken":{}}}`} {
		f.Add(uint8(i), p)
	}
	f.Fuzz(func(t *testing.T, m uint8, params string) {
		if !json.Valid([]byte(params)) {
			return // a message with invalid params JSON never decodes
		}
		method := methods[int(m)%len(methods)]
		id, _ := jsonrpc.MakeID(float64(1))
		req := &jsonrpc.Request{ID: id, Method: method, Params: json.RawMessage(params)}
		jerr := paramsError(req)
		p := paramsOf[method]()
		pass := json.Unmarshal([]byte(params), p) == nil
		if bytes.Equal(bytes.TrimSpace([]byte(params)), []byte("null")) && paramsRequired[method] {
			pass = false
		} else if lp, ok := p.(*sdk.SetLoggingLevelParams); ok && pass && !slices.Contains(loggingLevels, lp.Level) {
			pass = false
		}
		if pass != (jerr == nil) {
			t.Fatalf("%s %s: passes=%v, error=%v", method, params, pass, jerr)
		}
		if jerr == nil {
			return
		}
		if jerr.Code != jsonrpc.CodeInvalidParams {
			t.Fatalf("code %d", jerr.Code)
		}
		if !strings.HasPrefix(jerr.Message, `invalid params for "`+method+`"`) {
			t.Fatalf("message does not name the method: %s", jerr.Message)
		}
		for _, goish := range []string{"mcp.", "interface {}", "Go value", "Go struct", "*"} {
			if strings.Contains(jerr.Message, goish) {
				t.Fatalf("message names a Go type (%q): %s", goish, jerr.Message)
			}
		}
	})
}

// TestParamsErrorRequiredParamsAbsentOrNull: a method whose params MCP
// requires, called without them or with null, is invalid params naming
// the field; the SDK answered HTTP 400 text/plain or -32600. Methods whose
// params are optional pass.
func TestParamsErrorRequiredParamsAbsentOrNull(t *testing.T) {
	id, _ := jsonrpc.MakeID(float64(7))
	for _, p := range []string{"", "null", " null "} {
		jerr := paramsError(&jsonrpc.Request{ID: id, Method: "tools/call", Params: json.RawMessage(p)})
		if assert.NotNil(t, jerr, "params %q", p) {
			assert.Equal(t, int64(jsonrpc.CodeInvalidParams), jerr.Code)
			want := "none"
			if p != "" {
				want = "null"
			}
			assert.Equal(t, `invalid params for "tools/call": field "params" is required (a JSON object), got `+want, jerr.Message)
		}
		assert.Nil(t, paramsError(&jsonrpc.Request{ID: id, Method: "tools/list", Params: json.RawMessage(p)}), "tools/list params are optional")
	}
}

// TestParamsErrorUnknownLoggingLevel: logging/setLevel with a level MCP
// does not define is refused naming the field and the valid levels (the
// SDK answered {} and stored it); the eight levels pass.
func TestParamsErrorUnknownLoggingLevel(t *testing.T) {
	id, _ := jsonrpc.MakeID(float64(7))
	req := func(p string) *jsonrpc.Request {
		return &jsonrpc.Request{ID: id, Method: "logging/setLevel", Params: json.RawMessage(p)}
	}
	jerr := paramsError(req(`{"level":"bogus"}`))
	if assert.NotNil(t, jerr) {
		assert.Equal(t, int64(jsonrpc.CodeInvalidParams), jerr.Code)
		assert.Equal(t, `invalid params for "logging/setLevel": field "level" must be one of debug, info, notice, warning, error, critical, alert, emergency, got "bogus"`, jerr.Message)
	}
	assert.Contains(t, paramsError(req(`{}`)).Message, "got none")
	assert.Contains(t, paramsError(req(`{"level":"`+strings.Repeat("x", 40)+`"}`)).Message, "got a string of 40 bytes")
	for _, l := range loggingLevels {
		assert.Nil(t, paramsError(req(`{"level":"`+string(l)+`"}`)), l)
	}
}

// FuzzBatchRefusal: for any body, the batch check never panics; when it
// refuses, the answer is a JSON array with one error response per request
// of the batch, at least one of them invalid params, each with its
// request's id, and it quotes no params: no "arguments" member of the
// batch reaches it.
func FuzzBatchRefusal(f *testing.F) {
	for _, s := range []string{
		`[{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo","arguments":{"text":"sk-SECRET"},"_meta":7}}]`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":7}}]`,
		`[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"tools/call"}]`,
		`[{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"loud"}}]`,
		`[{"jsonrpc":"2.0","id":4,"method":"tools/list"}]`,
		`[]`, `[1]`, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, `[{"jsonrpc":"2.0","id":5,"result":{}}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		answer, bad := batchRefusal(body)
		if answer == nil {
			if bad != 0 {
				t.Fatalf("no answer but %d bad requests", bad)
			}
			return
		}
		var raws []json.RawMessage
		if err := json.Unmarshal(body, &raws); err != nil {
			t.Fatalf("refused a body that is not an array: %v", err)
		}
		var calls []*jsonrpc.Request
		for _, raw := range raws {
			msg, err := jsonrpc.DecodeMessage(raw)
			if err != nil {
				t.Fatalf("refused a batch with a malformed message: %v", err)
			}
			if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
				calls = append(calls, req)
				var p struct {
					Arguments json.RawMessage `json:"arguments"`
				}
				if json.Unmarshal(req.Params, &p) == nil && len(p.Arguments) > 2 && bytes.Contains(answer, p.Arguments) {
					t.Fatalf("the answer quotes arguments %s: %s", p.Arguments, answer)
				}
			}
		}
		var out []struct {
			ID    json.RawMessage `json:"id"`
			Error *jsonrpc.Error  `json:"error"`
		}
		if err := json.Unmarshal(answer, &out); err != nil {
			t.Fatalf("answer is not an array of responses: %v: %s", err, answer)
		}
		if len(out) != len(calls) {
			t.Fatalf("%d responses for %d requests", len(out), len(calls))
		}
		invalid := 0
		for i, r := range out {
			want, _ := json.Marshal(calls[i].ID.Raw())
			if r.Error == nil || !bytes.Equal(r.ID, want) {
				t.Fatalf("response %d: id %s (want %s), error %v", i, r.ID, want, r.Error)
			}
			if r.Error.Code == jsonrpc.CodeInvalidParams {
				invalid++
			}
		}
		if invalid == 0 || invalid != bad {
			t.Fatalf("%d invalid params responses, %d bad requests", invalid, bad)
		}
		// Bounded by the batch: each response echoes its own id and says
		// a bounded message (an id quoted in every response made a 1 MB
		// batch answer 1.9 GB).
		if limit := len(body) + 512*len(calls) + 64; len(answer) > limit {
			t.Fatalf("an answer of %d bytes to a batch of %d bytes and %d requests", len(answer), len(body), len(calls))
		}
	})
}

// A batch with one bad request of a long id and thousands of sound ones is
// answered in about its own size: the id is echoed in its own response
// only (it was quoted in every other's: 1 MB answered 1.9 GB).
func TestBatchRefusal_AnswerBoundedByTheBatch(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`[{"jsonrpc":"2.0","id":"` + strings.Repeat("X", 100_000) + `","method":"tools/call","params":"oops"}`)
	for i := range 20_000 {
		fmt.Fprintf(&b, `,{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i)
	}
	b.WriteString("]")
	answer, bad := batchRefusal(b.Bytes())
	require.Equal(t, 1, bad)
	assert.Less(t, len(answer), 4*b.Len(), "answer %d bytes for a batch of %d", len(answer), b.Len())
	assert.Equal(t, 1, strings.Count(string(answer), strings.Repeat("X", 100_000)), "the long id once, in its own response")
}
