package catalogue

import (
	"bytes"
	"io/fs"
	"maps"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
)

// racyAge is how long before it was read a tool file must have last
// changed for its decoded tool to be kept (see toolCache).
const racyAge = 2 * time.Second

// toolCache keeps the tools a FileStore has decoded, by bundle and file
// name, so that reading an unchanged file again costs one stat instead of
// an open, a read and a JSON decode. A host starting on a large catalogue
// reads every tool three times (the store's check at Open, the search
// index, the registry), and every listing reads again what it lists.
//
// An entry is used only while the file is the one it was decoded from:
// same device and inode, same size and modification time. The store
// replaces a file by renaming a new one over it (a new inode); a file
// rewritten in place (by hand) within the file system's timestamp
// granularity could keep all four, so a file is kept only if it last
// changed racyAge or more before it was read. Tools go in and out as
// copies (Tool.clone): no caller shares memory with the cache or with
// another caller.
type toolCache struct {
	mu      sync.Mutex
	bundles map[uuid.UUID]map[string]cachedTool
}

type cachedTool struct {
	info fs.FileInfo
	tool Tool
}

// get returns a copy of the tool decoded from the file name of bundle
// id, if path is still that file. ok is false when it is not known or
// changed; a file gone is forgotten.
func (c *toolCache) get(id uuid.UUID, name, path string) (Tool, bool) {
	c.mu.Lock()
	e, ok := c.bundles[id][name]
	c.mu.Unlock()
	if !ok {
		return Tool{}, false
	}
	fi, err := os.Stat(path)
	if err != nil || !sameFile(e.info, fi) {
		c.drop(id, name)
		return Tool{}, false
	}
	return e.tool.clone(), true
}

// put keeps a copy of t, decoded from the file name of bundle id as
// described by fi, unless the file changed too lately to be told from a
// later change in place.
func (c *toolCache) put(id uuid.UUID, name string, fi fs.FileInfo, t *Tool) {
	if time.Since(fi.ModTime()) < racyAge {
		return
	}
	e := cachedTool{info: fi, tool: t.clone()}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bundles == nil {
		c.bundles = map[uuid.UUID]map[string]cachedTool{}
	}
	b := c.bundles[id]
	if b == nil {
		b = map[string]cachedTool{}
		c.bundles[id] = b
	}
	b[name] = e
}

// drop forgets one file.
func (c *toolCache) drop(id uuid.UUID, name string) {
	c.mu.Lock()
	delete(c.bundles[id], name)
	c.mu.Unlock()
}

// keepOnly forgets the files of bundle id not in names (its directory as
// just listed): files removed by another process are not looked up again.
func (c *toolCache) keepOnly(id uuid.UUID, names []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.bundles[id]
	if len(b) == 0 {
		return
	}
	if len(names) == 0 {
		delete(c.bundles, id)
		return
	}
	for name := range b {
		if _, found := slices.BinarySearch(names, name); !found {
			delete(b, name)
		}
	}
}

// keepBundles forgets the bundles not in ids (the store as just listed).
func (c *toolCache) keepBundles(ids []uuid.UUID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.bundles) == 0 {
		return
	}
	keep := make(map[uuid.UUID]bool, len(ids))
	for _, id := range ids {
		keep[id] = true
	}
	for id := range c.bundles {
		if !keep[id] {
			delete(c.bundles, id)
		}
	}
}

// sameFile reports whether b describes the file a described, unchanged.
func sameFile(a, b fs.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// clone returns a copy of t that shares no memory with it: its slices,
// maps and pointers are copied too.
func (t *Tool) clone() Tool {
	c := *t
	c.Tags = slices.Clone(t.Tags)
	c.ArgSchema = bytes.Clone(t.ArgSchema)
	c.OutputSchema = bytes.Clone(t.OutputSchema)
	if t.LastCalledAt != nil {
		at := *t.LastCalledAt
		c.LastCalledAt = &at
	}
	if t.GoImpl != nil {
		g := *t.GoImpl
		c.GoImpl = &g
	}
	if t.StepsImpl != nil {
		s := *t.StepsImpl
		c.StepsImpl = &s
	}
	if t.HTTPImpl != nil {
		h := *t.HTTPImpl
		h.Request.Query = maps.Clone(h.Request.Query)
		h.Request.Headers = maps.Clone(h.Request.Headers)
		if h.Request.Auth != nil {
			a := *h.Request.Auth
			a.Scopes = slices.Clone(a.Scopes)
			h.Request.Auth = &a
		}
		c.HTTPImpl = &h
	}
	return c
}
