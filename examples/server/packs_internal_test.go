package main

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"

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
