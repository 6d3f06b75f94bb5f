package catalogue

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// putAged stores an HTTP tool and dates its file an hour back, as the
// files of a store opened after a while are: old enough to be kept
// decoded.
func putAged(t *testing.T, s *FileStore, slug string) (ToolKey, string) {
	t.Helper()
	key := ToolKey{BundleID: mustBundle(t, s, "b-"+slug), Slug: slug, Version: "1"}
	_, err := s.PutTool(context.Background(), key, httpSpec("Tool "+slug, "t1"))
	require.NoError(t, err)
	path := s.toolFile(key)
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(path, old, old))
	return key, path
}

// A tool file unchanged since it was read (same inode, size and
// modification time) is served from memory: even a change made behind
// the store's back that restores all three is not seen — what shows the
// file was not read again.
func TestFileStore_UnchangedToolFileNotReadAgain(t *testing.T) {
	s := openFile(t, t.TempDir(), nil)
	key, path := putAged(t, s, "kept")
	first, err := s.GetTool(context.Background(), key)
	require.NoError(t, err)

	fi, err := os.Stat(path)
	require.NoError(t, err)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	edited := strings.Replace(string(data), "Tool kept", "Tool KEPT", 1)
	require.Len(t, edited, len(data))
	require.NoError(t, os.WriteFile(path, []byte(edited), 0o600)) // in place: same inode
	require.NoError(t, os.Chtimes(path, fi.ModTime(), fi.ModTime()))

	again, err := s.GetTool(context.Background(), key)
	require.NoError(t, err)
	assert.Equal(t, first, again)
	assert.Equal(t, "Tool kept", again.DisplayName)
}

// Every change to a tool file is seen on the next read: rewritten in
// place (a new modification time), replaced by another file (a new inode,
// even with the old size and time), removed, or made corrupt.
func TestFileStore_ChangedToolFileReadAgain(t *testing.T) {
	ctx := context.Background()
	s := openFile(t, t.TempDir(), nil)
	key, path := putAged(t, s, "changed")
	_, err := s.GetTool(ctx, key)
	require.NoError(t, err)
	rewrite := func(from, to string, replace bool) {
		t.Helper()
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		fi, err := os.Stat(path)
		require.NoError(t, err)
		edited := strings.Replace(string(data), from, to, 1)
		require.Len(t, edited, len(data))
		if replace {
			tmp := filepath.Join(filepath.Dir(path), ".tmp-test")
			require.NoError(t, os.WriteFile(tmp, []byte(edited), 0o600))
			require.NoError(t, os.Chtimes(tmp, fi.ModTime(), fi.ModTime()))
			require.NoError(t, os.Rename(tmp, path))
			return
		}
		require.NoError(t, os.WriteFile(path, []byte(edited), 0o600))
	}

	rewrite("Tool changed", "Tool CHANGED", false)
	got, err := s.GetTool(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, "Tool CHANGED", got.DisplayName, "rewritten in place")

	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(path, old, old))
	_, err = s.GetTool(ctx, key) // kept again
	require.NoError(t, err)
	rewrite("Tool CHANGED", "Tool Changed", true)
	got, err = s.GetTool(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, "Tool Changed", got.DisplayName, "replaced by a file of the same size and time")

	require.NoError(t, os.Chtimes(path, old, old))
	_, err = s.GetTool(ctx, key)
	require.NoError(t, err)
	rewrite(`"slug": "changed"`, `"slug": "chang3d"`, false)
	_, err = s.GetTool(ctx, key)
	require.ErrorIs(t, err, ErrCorrupt, "made corrupt")
	assert.Len(t, s.Problems(), 1)

	require.NoError(t, os.Remove(path))
	_, err = s.GetTool(ctx, key)
	require.ErrorIs(t, err, ErrNotFound, "removed")
	list, err := s.ListTools(ctx, ToolQuery{})
	require.NoError(t, err)
	assert.Empty(t, list)
}

// A tool whose file changed within the last moments is read from the
// file every time: a later change in place within the file system's
// timestamp granularity could keep its size and time.
func TestFileStore_FreshToolFileNotKept(t *testing.T) {
	ctx := context.Background()
	s := openFile(t, t.TempDir(), nil)
	key := ToolKey{BundleID: mustBundle(t, s, "fresh"), Slug: "fresh", Version: "1"}
	_, err := s.PutTool(ctx, key, httpSpec("Tool fresh"))
	require.NoError(t, err)
	path := s.toolFile(key)
	_, err = s.GetTool(ctx, key)
	require.NoError(t, err)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(data), "Tool fresh", "Tool FRESH", 1)), 0o600))
	require.NoError(t, os.Chtimes(path, fi.ModTime(), fi.ModTime()))
	got, err := s.GetTool(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, "Tool FRESH", got.DisplayName)
}

// Tools read share no memory with the store or with each other: a
// caller changing what it got (maps, slices, pointed-to values) changes
// nothing another read returns.
func TestFileStore_ReadToolsShareNoMemory(t *testing.T) {
	ctx := context.Background()
	s := openFile(t, t.TempDir(), nil)
	key, path := putAged(t, s, "mine")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var want Tool // what the file holds, read apart from the store
	require.NoError(t, json.Unmarshal(data, &want))
	for range 2 {
		got, err := s.GetTool(ctx, key)
		require.NoError(t, err)
		got.Tags[0] = "changed"
		got.ArgSchema[0] = '['
		got.HTTPImpl.Request.Query["q"] = "changed"
		got.HTTPImpl.Request.Headers["X-New"] = "1"
		got.HTTPImpl.Request.Auth.Token = "changed"
		got.HTTPImpl.Limits.MaxRetries = 99
		list, err := s.ListTools(ctx, ToolQuery{})
		require.NoError(t, err)
		for i := range list {
			list[i].HTTPImpl.Request.URLTemplate = "changed"
		}
	}
	got, err := s.GetTool(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

// clone copies every reference a Tool holds, so that a field added to it
// later (a map, a slice, a pointer) is not shared by the copies the
// store hands out: each reference of a fully filled tool and of its
// clone must differ.
func TestTool_CloneSharesNoReference(t *testing.T) {
	var tool Tool
	fill(reflect.ValueOf(&tool).Elem())
	c := tool.clone()
	assert.Equal(t, tool, c)
	shared := sharedRefs(reflect.ValueOf(tool), reflect.ValueOf(c), "Tool")
	assert.Empty(t, shared, "fields the clone shares with the original")
}

// fill gives every field of v a non-zero value, allocating every
// pointer, map and slice.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			v.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(s.Index(i))
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k)
		fill(e)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i))
		}
	}
}

// sharedRefs lists the paths at which a and b hold the same pointer, map
// or slice array.
func sharedRefs(a, b reflect.Value, path string) []string {
	var out []string
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() {
			return nil
		}
		if a.Pointer() == b.Pointer() {
			out = append(out, path)
		}
		return append(out, sharedRefs(a.Elem(), b.Elem(), path)...)
	case reflect.Map:
		if !a.IsNil() && a.Pointer() == b.Pointer() {
			out = append(out, path)
		}
		for _, k := range a.MapKeys() {
			out = append(out, sharedRefs(a.MapIndex(k), b.MapIndex(k), path+"[key]")...)
		}
	case reflect.Slice:
		if a.Len() > 0 && a.Pointer() == b.Pointer() {
			out = append(out, path)
		}
		for i := range min(a.Len(), b.Len()) {
			out = append(out, sharedRefs(a.Index(i), b.Index(i), path+"[i]")...)
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if a.Type().Field(i).IsExported() {
				out = append(out, sharedRefs(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name)...)
			}
		}
	}
	return out
}
