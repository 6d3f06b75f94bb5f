package main

import (
	"log/slog"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolpack-go/toolpack/packs/web"
	"github.com/toolpack-go/toolpack/registry/hostconfig"
)

// Any web_fetch key set to other than its default serves the web pack
// (webConfigured), whatever fields WebFetch gains: each field is changed
// in turn.
func TestWebConfigured_EveryWebFetchKey(t *testing.T) {
	assert.False(t, webConfigured(hostconfig.Default(t.TempDir())), "defaults alone serve no web pack")
	typ := reflect.TypeFor[hostconfig.WebFetch]()
	for i := range typ.NumField() {
		cfg := hostconfig.Default(t.TempDir())
		f := reflect.ValueOf(&cfg.WebFetch).Elem().Field(i)
		switch f.Kind() {
		case reflect.Bool:
			f.SetBool(!f.Bool())
		case reflect.Int, reflect.Int64:
			f.SetInt(f.Int() + 7)
		case reflect.Slice:
			f.Set(reflect.Append(f, reflect.Zero(f.Type().Elem())))
		default:
			t.Fatalf("field %s: kind %s not covered by this test", typ.Field(i).Name, f.Kind())
		}
		assert.True(t, webConfigured(cfg), "web_fetch field %s changed", typ.Field(i).Name)
	}
}

// Every build of the web pack shares one extraction bound while
// web_fetch.max_concurrent_extractions stays the same (a reload must not
// admit a new set of extractions beside those still running); a new value
// starts a bound of that size.
func TestWebSlots_SharedWhileTheSizeStays(t *testing.T) {
	w := &webSlots{}
	a, err := w.sized(3)
	require.NoError(t, err)
	b, err := w.sized(3)
	require.NoError(t, err)
	assert.Same(t, a, b, "same size, same bound")
	assert.Equal(t, 3, a.Size())
	c, err := w.sized(0)
	require.NoError(t, err)
	assert.NotSame(t, a, c)
	assert.Equal(t, web.DefaultMaxConcurrentExtractions(), c.Size())

	cfg := hostconfig.Default(t.TempDir())
	cfg.WebFetch.MaxConcurrentExtractions = 5
	build := newWebWith(w)
	_, err = build(cfg, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	d, err := w.sized(5)
	require.NoError(t, err)
	assert.Equal(t, 5, d.Size(), "the build used the configured size")
}
