package catalogue

import (
	"crypto/sha256"
	"encoding/json"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// maxCachedSchemas bounds a SchemaCache; when full it is emptied (a tool
// version's schemas never change, so a cached schema never goes stale; the
// bound only caps memory).
const maxCachedSchemas = 4096

// SchemaCache keeps compiled schemas (CompileSchema) by the SHA-256 of
// their text — not by tool id, which is unique only within a bundle (a
// copy of a bundle keeps its tools' ids) and may come back with another
// schema in a bundle imported again after its first was reaped. At most
// 4096 are kept. The zero value is ready to use; it is safe for
// concurrent use.
type SchemaCache struct {
	mu sync.Mutex
	m  map[[16]byte]*jsonschema.Schema
}

// Compile returns the compiled schema of raw, from the cache when the same
// text was compiled before. A schema that does not compile is not cached.
func (c *SchemaCache) Compile(raw json.RawMessage) (*jsonschema.Schema, error) {
	sum := sha256.Sum256(raw)
	key := [16]byte(sum[:16])
	c.mu.Lock()
	s, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return s, nil
	}
	s, err := CompileSchema(raw)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCachedSchemas {
		c.m = map[[16]byte]*jsonschema.Schema{}
	}
	c.m[key] = s
	c.mu.Unlock()
	return s, nil
}
