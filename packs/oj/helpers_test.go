package oj_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/toolpack-go/toolpack/packs/oj"
	"github.com/toolpack-go/toolpack/packs/oj/mockbackend"
	"github.com/toolpack-go/toolpack/registry"
	"github.com/toolpack-go/toolpack/result"
)

// tb is what helpers need; *testing.T and *rapid.T both have it.
type tb interface {
	require.TestingT
	Helper()
}

// env is a recording backend on 127.0.0.1, a Client on it and a registry
// holding the pack.
type env struct {
	backend *mockbackend.Backend
	srv     *httptest.Server
	client  *oj.Client
	reg     *registry.Registry
}

// newEnv starts a backend answering with h (the fixtures when nil). cfg's
// BaseURL is filled in.
func newEnv(t testing.TB, h http.Handler, cfg oj.Config) *env {
	t.Helper()
	b := mockbackend.New(mockbackend.Options{Token: cfg.Token, Handler: h})
	srv := httptest.NewServer(b)
	t.Cleanup(srv.Close)
	cfg.BaseURL = srv.URL
	c, err := oj.NewClient(cfg)
	require.NoError(t, err)
	p, err := c.Pack()
	require.NoError(t, err)
	reg := registry.New(registry.Options{Prefix: new("")})
	require.NoError(t, reg.AddPack(p))
	return &env{backend: b, srv: srv, client: c, reg: reg}
}

func (e *env) invoke(t tb, tool string, args any) (result.Result[any], error) {
	t.Helper()
	raw, err := json.Marshal(args)
	require.NoError(t, err)
	return e.reg.Invoke(context.Background(), tool, raw)
}

// ok invokes tool and returns its Markdown, failing the test on any failure.
func (e *env) ok(t tb, tool string, args any) string {
	t.Helper()
	res, err := e.invoke(t, tool, args)
	require.NoError(t, err)
	require.True(t, res.Success, "failure: %s (%s)", res.Error, res.ErrorType)
	s, isString := res.Value.(string)
	require.True(t, isString, "value is %T", res.Value)
	return s
}

// fail invokes tool, expects a domain failure and returns it.
func (e *env) fail(t tb, tool string, args any) result.Result[any] {
	t.Helper()
	res, err := e.invoke(t, tool, args)
	require.NoError(t, err, "expected a domain failure, got a protocol error")
	require.False(t, res.Success, "expected a failure, got %v", res.Value)
	require.NotEmpty(t, res.Error)
	return res
}

func (e *env) uris() []string {
	var out []string
	for _, r := range e.backend.Requests() {
		out = append(out, r.URI)
	}
	return out
}

func (e *env) lastURI(t tb) string {
	t.Helper()
	rs := e.backend.Requests()
	require.NotEmpty(t, rs, "no request reached the backend")
	return rs[len(rs)-1].URI
}

func ptr[T any](v T) *T { return &v }

// jsonHandler answers every request with status, content type and body.
func jsonHandler(status int, ct, body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if ct != "" {
			w.Header().Set("Content-Type", ct)
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	})
}

// gfmTable parses md with goldmark's GFM table extension and returns the
// header cell count and the number of body rows of the first table, and the
// text of every body cell.
func gfmTable(t tb, md string) (cols, rows int, cells [][]string) {
	t.Helper()
	src := []byte(md)
	doc := goldmark.New(goldmark.WithExtensions(extension.Table)).Parser().Parse(text.NewReader(src))
	var table *extast.Table
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if tb, isTable := n.(*extast.Table); entering && isTable && table == nil {
			table = tb
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	require.NotNil(t, table, "no GFM table in:\n%s", md)
	for row := table.FirstChild(); row != nil; row = row.NextSibling() {
		n := row.ChildCount()
		if _, isHeader := row.(*extast.TableHeader); isHeader {
			cols = n
			continue
		}
		rows++
		var rowCells []string
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			rowCells = append(rowCells, cellText(c, src))
		}
		cells = append(cells, rowCells)
	}
	return cols, rows, cells
}

func cellText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if tx, isText := c.(*ast.Text); entering && isText {
			b.Write(tx.Segment.Value(src))
		}
		return ast.WalkContinue, nil
	})
	// GFM turns an escaped pipe back into a pipe inside a cell.
	return strings.ReplaceAll(b.String(), `\|`, "|")
}
