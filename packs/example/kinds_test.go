package example

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// TestIsPrime checks the bool tool at the edges and its bounds.
func TestIsPrime(t *testing.T) {
	r := newRegistry(t)
	for n, want := range map[string]bool{
		"0": false, "1": false, "2": true, "3": true, "4": false, "9": false, "97": true,
		"7919": true, "1000000": false, "999999999989": true, "1000000000000": false, "999999000001": true, "999966000289": false, // 999983²
	} {
		res := invoke(t, r, "is_prime", `{"n":`+n+`}`)
		require.True(t, res.Success, res.Error)
		assert.Equal(t, want, res.Value, "is_prime(%s)", n)
	}
	assert.Equal(t, []string{"n"}, fields(t, invoke(t, r, "is_prime", `{"n":-1}`)))
	assert.Equal(t, []string{"n"}, fields(t, invoke(t, r, "is_prime", `{"n":1000000000001}`)))
	assert.Equal(t, []string{"n"}, fields(t, invoke(t, r, "is_prime", `{}`)))
	assert.Equal(t, []string{"n"}, fields(t, invoke(t, r, "is_prime", `{"n":2.5}`)))
}

// TestIsPrime_AgreesWithSieve compares trial division with a sieve below
// 10000.
func TestIsPrime_AgreesWithSieve(t *testing.T) {
	const limit = 10000
	composite := make([]bool, limit)
	for i := 2; i*i < limit; i++ {
		if !composite[i] {
			for j := i * i; j < limit; j += i {
				composite[j] = true
			}
		}
	}
	for n := int64(0); n < limit; n++ {
		res, err := IsPrime(context.Background(), IsPrimeArgs{N: &n})
		require.NoError(t, err)
		assert.Equal(t, n >= 2 && !composite[n], res.Value, "n=%d", n)
	}
}

// TestListDocuments_ArrayOldestFirst: the array tool returns [] (never
// null) for an empty store and lists documents in creation order.
func TestListDocuments_ArrayOldestFirst(t *testing.T) {
	r := newRegistry(t)
	res := invoke(t, r, "list_documents", `{}`)
	require.True(t, res.Success, res.Error)
	b, err := json.Marshal(res.Value)
	require.NoError(t, err)
	assert.JSONEq(t, `[]`, string(b), "an empty store is an empty array, not null")

	for i := 1; i <= 12; i++ {
		require.True(t, invoke(t, r, "create_document", fmt.Sprintf(`{"title":"t%d","confirm":"CREATE_DOCUMENT"}`, i)).Success)
	}
	require.True(t, invoke(t, r, "delete_document", `{"id":"doc-2","confirm":"DELETE_DOCUMENT"}`).Success)
	list := invoke(t, r, "list_documents", `{}`).Value.([]DocumentInfo)
	require.Len(t, list, 11)
	assert.Equal(t, DocumentInfo{ID: "doc-1", Title: "t1"}, list[0])
	assert.Equal(t, DocumentInfo{ID: "doc-3", Title: "t3"}, list[1])
	assert.Equal(t, DocumentInfo{ID: "doc-10", Title: "t10"}, list[8], "numeric order, not string order")
	assert.Equal(t, []string{"x"}, fields(t, invoke(t, r, "list_documents", `{"x":1}`)), "no arguments accepted")
}

// TestDeleteDocument_NilValue: the nil-result tool deletes, returns no
// value with a message, frees the title, needs the exact consent phrase,
// and reports an unknown id as not_found.
func TestDeleteDocument_NilValue(t *testing.T) {
	r := newRegistry(t)
	require.True(t, invoke(t, r, "create_document", `{"title":"T","confirm":"CREATE_DOCUMENT"}`).Success)

	for _, bad := range []string{`{"id":"doc-1"}`, `{"id":"doc-1","confirm":"yes"}`, `{"id":"doc-1","confirm":"CREATE_DOCUMENT"}`} {
		assert.Contains(t, fields(t, invoke(t, r, "delete_document", bad)), "confirm", bad)
	}
	require.True(t, invoke(t, r, "get_document", `{"id":"doc-1"}`).Success, "nothing deleted without consent")

	res := invoke(t, r, "delete_document", `{"id":"doc-1","confirm":"DELETE_DOCUMENT"}`)
	require.True(t, res.Success, res.Error)
	assert.Nil(t, res.Value, "no value")
	assert.Equal(t, "Deleted doc-1.", res.Message)
	assert.Equal(t, result.NotFound, invoke(t, r, "get_document", `{"id":"doc-1"}`).ErrorType)

	again := invoke(t, r, "delete_document", `{"id":"doc-1","confirm":"DELETE_DOCUMENT"}`)
	assert.Equal(t, result.NotFound, again.ErrorType)
	assert.Contains(t, again.Instruction, "list_documents")

	created := invoke(t, r, "create_document", `{"title":"T","confirm":"CREATE_DOCUMENT"}`)
	require.True(t, created.Success, "the title is free again: %s", created.Error)
	assert.Equal(t, "doc-2", created.Value.(Document).ID)
}

// progressLog collects the progress reports of calls made with its
// context.
type progressLog struct {
	mu  sync.Mutex
	got []registry.Progress
	on  func(registry.Progress)
}

func (l *progressLog) ctx(parent context.Context) context.Context {
	return registry.WithProgress(parent, func(_ context.Context, p registry.Progress) error {
		l.mu.Lock()
		l.got = append(l.got, p)
		l.mu.Unlock()
		if l.on != nil {
			l.on(p)
		}
		return nil
	})
}

func (l *progressLog) reports() []registry.Progress {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]registry.Progress(nil), l.got...)
}

// TestCount_ReportsProgressEachStep: the long-running tool reports n/N
// after every number, in order, and returns N.
func TestCount_ReportsProgressEachStep(t *testing.T) {
	r := newRegistry(t)
	var log progressLog
	res, err := r.Invoke(log.ctx(t.Context()), "count", json.RawMessage(`{"n":4,"delay_ms":0}`))
	require.NoError(t, err)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, 4, res.Value)
	want := make([]registry.Progress, 4)
	for i := range want {
		want[i] = registry.Progress{Progress: float64(i + 1), Total: 4, Message: fmt.Sprintf("counted to %d", i+1)}
	}
	assert.Equal(t, want, log.reports())
}

// TestCount_WithoutListener: outside MCP (no progress requested) count
// works the same and reports go nowhere.
func TestCount_WithoutListener(t *testing.T) {
	r := newRegistry(t)
	res := invoke(t, r, "count", `{"n":2,"delay_ms":1}`)
	require.True(t, res.Success, res.Error)
	assert.Equal(t, 2, res.Value)
}

// TestCount_HonoursCancellation: a call cancelled while counting stops
// before the next number, with an error wrapping context.Canceled (a
// protocol failure, as the registry reports every cancelled call).
func TestCount_HonoursCancellation(t *testing.T) {
	r := newRegistry(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	log := progressLog{on: func(p registry.Progress) {
		if p.Progress == 1 {
			cancel()
		}
	}}
	// Without cancellation this call would take 100 × 200 ms; the test ends
	// as soon as the cancellation is honoured.
	_, err := r.Invoke(log.ctx(ctx), "count", json.RawMessage(`{"n":100,"delay_ms":200}`))
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.Canceled), "%v", err)
	assert.Len(t, log.reports(), 1, "no number after the cancellation")
}

// TestCount_Bounds: n and delay_ms are bounded; delay_ms is optional with a
// documented default.
func TestCount_Bounds(t *testing.T) {
	r := newRegistry(t)
	assert.ElementsMatch(t, []string{"n", "delay_ms"}, fields(t, invoke(t, r, "count", `{"n":101,"delay_ms":1001}`)))
	assert.ElementsMatch(t, []string{"n"}, fields(t, invoke(t, r, "count", `{"n":0}`)))
	assert.ElementsMatch(t, []string{"delay_ms"}, fields(t, invoke(t, r, "count", `{"n":1,"delay_ms":-1}`)))
	tool, ok := r.Lookup("count")
	require.True(t, ok)
	var schema struct {
		Properties map[string]struct {
			Default json.RawMessage `json:"default"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	require.NoError(t, json.Unmarshal(tool.InputSchema, &schema))
	assert.JSONEq(t, `100`, string(schema.Properties["delay_ms"].Default))
	assert.Equal(t, []string{"n"}, schema.Required)
	assert.Equal(t, int(DefaultCountDelay.Milliseconds()), 100, "the schema's default is the code's")
}

// TestLines: lines(count) returns "line 1" … "line N", one per line, with
// no '\n' after the last; count is bounded by MaxLines.
func TestLines(t *testing.T) {
	r := newRegistry(t)
	assert.Equal(t, "line 1", invoke(t, r, "lines", `{"count":1}`).Value)
	assert.Equal(t, "line 1\nline 2\nline 3", invoke(t, r, "lines", `{"count":3}`).Value)

	res := invoke(t, r, "lines", `{"count":1000000}`)
	require.True(t, res.Success, res.Error)
	text := res.Value.(string)
	assert.Len(t, text, 11_888_895, "the size MaxLines documents")
	lines := strings.Split(text, "\n")
	require.Len(t, lines, MaxLines)
	for _, i := range []int{0, 9, 99_999, 999_999} {
		assert.Equal(t, fmt.Sprintf("line %d", i+1), lines[i])
	}

	for _, bad := range []string{`{"count":0}`, `{"count":-1}`, `{"count":1000001}`, `{}`, `{"count":"5"}`} {
		assert.Equal(t, []string{"count"}, fields(t, invoke(t, r, "lines", bad)), bad)
	}
}
