package mcpstdio

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/require"
)

// FuzzDecodeMessage: on any line the transport's decoder never panics,
// accepts exactly the lines the SDK's stdio transport accepts (one JSON
// value that jsonrpc.DecodeMessage decodes; see sdkDecode), producing the
// same message, and answers everything else with a JSON-RPC error code.
func FuzzDecodeMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"a","result":{}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":1.5,"method":null}`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"m","data":null}}`,
		`{"jsonrpc":"2.0","id":4,"error":{}}`,
		`{"Jsonrpc":"2.0","ID":1,"Method":"ping"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1,"method":"ping"}x`,
		`"str"`,
		`{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		data = bytes.TrimSpace(data)
		if len(data) == 0 {
			return // blank lines never reach the decoder
		}
		want, werr := sdkDecode(data)
		got, re := decodeMessage(data)
		if re != nil {
			require.Nil(t, got, "a refused line yields no message")
			require.Contains(t, []int64{codeParseError, codeInvalidRequest}, re.code)
			require.Error(t, werr, "the transport refuses %q, which the SDK accepts", data)
			return
		}
		require.NoError(t, werr, "the transport accepts %q, which the SDK refuses", data)
		sameMessage(t, want, got)
	})
}

// sdkDecode decodes a line as the SDK's stdio transport does: its stream
// decoder reads one JSON value and refuses trailing data on the line, then
// jsonrpc.DecodeMessage decodes it (DecodeMessage alone ignores data after
// the first value).
func sdkDecode(line []byte) (jsonrpc.Message, error) {
	if !json.Valid(line) {
		return nil, errors.New("not one JSON value")
	}
	return jsonrpc.DecodeMessage(line)
}

// FuzzReadStream: whatever bytes arrive, reading never panics, every line
// has exactly one outcome (a message passed on, or one error answer; a line
// of JSON whitespace has none, a line over the cap is answered unread), and
// everything written back is one JSON-RPC error object per line.
func FuzzReadStream(f *testing.F) {
	for _, s := range []string{
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n",
		"garbage\n\n  \r\n{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\r\n[1]\n",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"" + strings.Repeat("x", 300) + "\"}\nnext\n",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
		"\x00\xff\n{}\n",
	} {
		f.Add([]byte(s))
	}
	const maxBytes = 256
	f.Fuzz(func(t *testing.T, data []byte) {
		want := 0
		for _, line := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSuffix(line, []byte("\r"))) > maxBytes || len(bytes.Trim(line, jsonSpace)) > 0 {
				want++
			}
		}
		msgs, answers := readAll(t, data, maxBytes)
		got := len(msgs)
		for _, line := range strings.Split(answers, "\n") {
			if line == "" {
				continue
			}
			got++
			var a struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *jsonrpc.Error  `json:"error"`
			}
			require.NoError(t, json.Unmarshal([]byte(line), &a), "answer %q", line)
			require.Equal(t, "2.0", a.JSONRPC)
			require.NotNil(t, a.Error)
			require.NotEmpty(t, a.ID, "an answer always has an id member")
		}
		require.Equal(t, want, got, "one outcome per non-blank line")
	})
}
